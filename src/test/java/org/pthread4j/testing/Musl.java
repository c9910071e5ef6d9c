package org.pthread4j.testing;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * C programs linked against musl for the interop tests: built with {@code musl-gcc} into
 * {@code target/c}, with the sync-file library ({@code src/main/c}) on the include path, and
 * run with their output line by line. Tests that need them are skipped, saying why, where
 * {@code musl-gcc} is missing ({@code apt-get install musl-tools}; {@code .ci/run} installs it).
 */
public final class Musl {
    /** The C sync-file library's directory. */
    public static final Path LIBRARY = Path.of("src/main/c");
    private static final Path OUT = Path.of("target/c");
    private static final Map<String, Path> BUILT = new HashMap<>();
    private static String missing;
    private static boolean probed;

    private Musl() {
    }

    /** {@return null when musl-gcc runs here, else why the musl tests are skipped} */
    public static synchronized String skipReason() {
        if (!probed) {
            probed = true;
            try {
                final Process p = new ProcessBuilder("musl-gcc", "--version").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    missing = "musl-gcc --version failed";
                }
            } catch (final IOException | InterruptedException e) {
                missing = "musl-gcc is not installed (apt-get install musl-tools): " + e.getMessage();
            }
        }
        return missing;
    }

    /** Skips the calling test when musl-gcc is missing. */
    public static void require() {
        final String reason = skipReason();
        assumeTrue(reason == null, () -> "skipped: " + reason);
    }

    /**
     * Builds a static musl program once per JVM.
     *
     * @param name    the binary's name in {@code target/c}
     * @param sources C files, relative to the repository's top directory
     * @return the binary
     */
    public static synchronized Path build(final String name, final String... sources) throws Exception {
        require();
        final Path known = BUILT.get(name);
        if (known != null) {
            return known;
        }
        Files.createDirectories(OUT);
        final Path out = OUT.resolve(name);
        final List<String> cmd = new ArrayList<>(List.of("musl-gcc", "-O2", "-static", "-Wall", "-Wextra", "-Werror",
            "-I", LIBRARY.toString(), "-o", out.toString()));
        cmd.addAll(List.of(sources));
        cmd.add("-lpthread");
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "musl-gcc took more than 120 s");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + log);
        BUILT.put(name, out);
        return out;
    }

    /**
     * Builds the C sync-file library with its Makefile ({@code make -C src/main/c
     * BUILD=target/c/lib}) once per JVM.
     *
     * @return {@code libpthread4j_sync.a}
     */
    public static synchronized Path library() throws Exception {
        require();
        final Path lib = OUT.resolve("lib").toAbsolutePath();
        final Path archive = lib.resolve("libpthread4j_sync.a");
        if (BUILT.containsKey("lib")) {
            return archive;
        }
        final List<String> cmd = List.of("make", "-s", "-C", LIBRARY.toString(), "BUILD=" + lib);
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "make took more than 120 s");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + log);
        BUILT.put("lib", archive);
        return archive;
    }

    /**
     * Builds a static musl program linked with the C sync-file library, once per JVM.
     *
     * @param name    the binary's name in {@code target/c}
     * @param sources C files, relative to the repository's top directory
     * @return the binary
     */
    public static Path buildWithLibrary(final String name, final String... sources) throws Exception {
        final String[] all = java.util.Arrays.copyOf(sources, sources.length + 1);
        all[sources.length] = library().toString();
        return build(name, all);
    }

    /**
     * {@return musl's version as {major, minor, patch}, from its dynamic loader
     *     ({@code /lib/ld-musl-ARCH.so.1} prints it), or null when it cannot be found}
     */
    public static int[] version() {
        final String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT).equals("aarch64") ? "aarch64" : "x86_64";
        try {
            final Process p = new ProcessBuilder("/lib/ld-musl-" + arch + ".so.1").redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
            for (final String line : out.split("\n")) {
                if (line.startsWith("Version ")) {
                    final String[] v = line.substring(8).trim().split("\\.");
                    return new int[] {Integer.parseInt(v[0]), Integer.parseInt(v[1]), Integer.parseInt(v[2])};
                }
            }
        } catch (final IOException | InterruptedException | RuntimeException e) {
            return null;
        }
        return null;
    }

    /**
     * {@return null when musl's {@code sem_t} has this library's encoding (musl 1.2.4 and later:
     *     a sticky waiters bit), else why a sleeping waiter on one side cannot be woken by the other}
     */
    public static String semaphoreSkipReason() {
        final int[] v = version();
        if (v == null) {
            return "musl's version is unknown (no /lib/ld-musl-*.so.1 to ask)";
        }
        if (v[0] > 1 || (v[0] == 1 && (v[1] > 2 || (v[1] == 2 && v[2] >= 4)))) {
            return null;
        }
        return "musl " + v[0] + "." + v[1] + "." + v[2] + " encodes \"zero, with sleepers\" in sem_t as -1; musl 1.2.4"
            + " (commit 159d1f6c) made it a sticky bit 31, which this library implements, so a sleeper of one and a"
            + " post of the other do not meet (waits that find a permit do, and are tested)";
    }

    /** A running C program and its output, line by line. */
    public static final class Proc implements AutoCloseable {
        private final Process process;
        private final Output out;
        private final PrintWriter in;

        /**
         * Starts a program.
         *
         * @param command the binary and its arguments
         */
        public Proc(final List<String> command) throws IOException {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            out = new Output(process, "c-reader");
        }

        /**
         * Starts a program.
         *
         * @param binary the program
         * @param args   its arguments
         */
        public Proc(final Path binary, final String... args) throws IOException {
            this(concat(binary, args));
        }

        private static List<String> concat(final Path binary, final String... args) {
            final List<String> cmd = new ArrayList<>(List.of(binary.toString()));
            cmd.addAll(List.of(args));
            return cmd;
        }

        /** {@return its next line, within 60 s (liveness)} */
        public String line() throws InterruptedException {
            final String l = out.poll(Duration.ofSeconds(60));
            assertNotNull(l, "the C process printed nothing for 60 s (alive: " + process.isAlive() + "); output:\n"
                + transcript());
            return l;
        }

        /** @param line a line for its standard input */
        public void send(final String line) {
            in.println(line);
        }

        /** {@return its exit status, within 60 s, once all its output has been read} */
        public int waitFor() throws InterruptedException {
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the C process did not exit within 60 s; output:\n"
                + transcript());
            out.drain(Duration.ofSeconds(60));
            return process.exitValue();
        }

        /** {@return everything it printed so far} */
        public String transcript() {
            return out.transcript();
        }

        /** {@return the process} */
        public Process process() {
            return process;
        }

        @Override
        public void close() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Runs a program to its end (60 s at most) and returns what it printed.
     *
     * @param binary the program
     * @param args   its arguments
     * @return its output lines
     */
    public static List<String> run(final Path binary, final String... args) throws Exception {
        final List<String> cmd = new ArrayList<>(List.of(binary.toString()));
        cmd.addAll(List.of(args));
        final Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the C process did not exit within 60 s");
        assertEquals(0, p.exitValue(), "exit status of " + String.join(" ", cmd) + "; output:\n" + out);
        return List.of(out.split("\n"));
    }
}
