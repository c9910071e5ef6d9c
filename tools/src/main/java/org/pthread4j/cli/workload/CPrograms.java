package org.pthread4j.cli.workload;

import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.nio.file.StandardCopyOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The C baselines: programs whose sources are resources of the tools jar (from
 * {@code tools/src/main/c}), compiled with {@code gcc -O2 -pthread} (and, where it is installed,
 * {@code musl-gcc -static}, for musl's own pthreads) into a cache directory the first time they
 * are needed, and run as subprocesses in the same bench run as the Java figures they are compared
 * with. The cache ({@link #defaultCache()}) is keyed by a hash of the source and the compiler
 * command, so an edited source is compiled afresh and nothing is looked up in the project
 * directory: the jar runs from anywhere. Each program measures itself for the time it is given
 * (after its own warm-up, so the harness warms a C case up with one short run only) and prints
 * its figures on its last line, one per measure of the group, separated by spaces. Without the
 * compiler the cases are skipped with the reason in the table.
 */
public final class CPrograms {
    /** Name of the backend column for the glibc rows. */
    public static final String BACKEND = Libc.GLIBC.backend;

    private static final Map<String, Object> BUILT = new ConcurrentHashMap<>();
    /** Where the sources are, relative to this class, in the jar. */
    private static final String SOURCES = "c/";

    /** The C libraries the baselines are built against. */
    public enum Libc {
        /** The system's C library, with {@code gcc}. */
        GLIBC("gcc", List.of(), "", "C (glibc)"),
        /** musl, with its {@code musl-gcc} wrapper, linked statically (no musl loader needed). */
        MUSL("musl-gcc", List.of("-static"), "-musl", "C (musl)");

        final String compiler;
        final List<String> flags;
        final String suffix;
        final String backend;

        Libc(final String compiler, final List<String> flags, final String suffix, final String backend) {
            this.compiler = compiler;
            this.flags = flags;
            this.suffix = suffix;
            this.backend = backend;
        }
    }

    private CPrograms() {
    }

    /**
     * A case that runs a C program, built with gcc, once per trial.
     *
     * @param cache   the directory of compiled programs
     * @param program the program's name ({@code NAME.c} among the sources)
     * @param impl    the row's impl column
     * @param args    arguments before the trial length in milliseconds
     * @return the case, or a skipped case saying why it cannot run here
     */
    public static Case of(final Path cache, final String program, final String impl, final String... args) {
        return of(cache, Libc.GLIBC, program, impl, args);
    }

    /**
     * A case that runs a C program once per trial.
     *
     * @param cache   the directory of compiled programs
     * @param libc    the C library to build it against
     * @param program the program's name ({@code NAME.c} among the sources)
     * @param impl    the row's impl column
     * @param args    arguments before the trial length in milliseconds
     * @return the case, or a skipped case saying why it cannot run here
     */
    public static Case of(final Path cache, final Libc libc, final String program, final String impl,
                          final String... args) {
        final Object built = build(cache, libc, program);
        if (built instanceof String reason) {
            return Case.skipped(impl, libc.backend, reason);
        }
        final Path binary = (Path) built;
        return Case.of(impl, libc.backend, () -> new Fixture() {
            @Override
            public double[] trial(final long budgetNanos) throws IOException, InterruptedException {
                return run(binary, args, budgetNanos);
            }

            /** One short run: the program warms itself up before it measures, on every run. */
            @Override
            public void warmUp(final long budgetNanos) throws IOException, InterruptedException {
                run(binary, args, Math.max(budgetNanos / 4, 1_000_000L));
            }

            @Override
            public void close() {
            }
        });
    }

    /**
     * The same program built against every C library: a glibc case and a musl case.
     *
     * @param cache   the directory of compiled programs
     * @param program the program's name
     * @param impl    the rows' impl column
     * @param args    arguments before the trial length in milliseconds
     * @return one case per {@link Libc}
     */
    public static List<Case> each(final Path cache, final String program, final String impl, final String... args) {
        final List<Case> cases = new ArrayList<>();
        for (final Libc libc : Libc.values()) {
            cases.add(of(cache, libc, program, impl, args));
        }
        return cases;
    }

    /**
     * @param cache   the directory of compiled programs
     * @param program the program's name
     * @return the glibc binary's path, or a String saying why there is none
     */
    static Object build(final Path cache, final String program) {
        return build(cache, Libc.GLIBC, program);
    }

    /**
     * @param cache   the directory of compiled programs
     * @param libc    the C library
     * @param program the program's name
     * @return the binary's path, or a String saying why there is none
     */
    static Object build(final Path cache, final Libc libc, final String program) {
        return BUILT.computeIfAbsent(cache + "/" + program + libc.suffix, k -> compile(cache, libc, program));
    }

    /**
     * {@return the default cache of compiled programs: {@code $XDG_CACHE_HOME/pthread4j/bench-c},
     * else {@code ~/.cache/pthread4j/bench-c}}
     */
    public static Path defaultCache() {
        final String xdg = System.getenv("XDG_CACHE_HOME");
        final Path base = xdg != null && xdg.startsWith("/") ? Path.of(xdg)
            : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("pthread4j").resolve("bench-c");
    }

    /**
     * {@return a program's source, from the jar}
     *
     * @param program the program's name
     * @throws IOException when there is no such source
     */
    static byte[] source(final String program) throws IOException {
        try (InputStream in = CPrograms.class.getResourceAsStream(SOURCES + program + ".c")) {
            if (in == null) {
                throw new IOException("no C source " + program + ".c in the tools jar");
            }
            return in.readAllBytes();
        }
    }

    /**
     * Compiles a program into {@code cache/HASH/}, HASH naming the source and the compiler
     * command, unless it is there already. Everything is written under a temporary name and
     * renamed into place, so a concurrent bench or an interrupted compilation leaves no
     * half-written binary.
     */
    private static synchronized Object compile(final Path cache, final Libc libc, final String program) {
        try {
            final byte[] source = source(program);
            final List<String> flags = new ArrayList<>(List.of("-O2", "-Wall", "-pthread"));
            flags.addAll(libc.flags);
            final Path dir = cache.resolve(hash(source, libc.compiler + " " + String.join(" ", flags)));
            final Path binary = dir.resolve(program + libc.suffix);
            if (Files.isRegularFile(binary) && Files.isExecutable(binary)) {
                return binary;
            }
            Files.createDirectories(dir);
            final Path src = dir.resolve(program + ".c");
            if (!Files.isRegularFile(src)) {
                final Path tmp = Files.createTempFile(dir, "." + program, ".c");
                Files.write(tmp, source);
                Files.move(tmp, src, StandardCopyOption.ATOMIC_MOVE);
            }
            final Path out = Files.createTempFile(dir, "." + program + libc.suffix, ".tmp");
            final List<String> cmd = new ArrayList<>(List.of(libc.compiler));
            cmd.addAll(flags);
            cmd.addAll(List.of("-o", out.toString(), src.toString()));
            try {
                final Process p;
                try {
                    p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                } catch (final IOException e) {
                    return libc.compiler + " not found: " + libc.backend + " baselines skipped";
                }
                final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return libc.compiler + " did not finish compiling " + program;
                }
                if (p.exitValue() != 0) {
                    return libc.compiler + " failed on " + program + ".c: "
                        + output.lines().findFirst().orElse("exit " + p.exitValue());
                }
                Files.move(out, binary, StandardCopyOption.ATOMIC_MOVE);
                return binary;
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (final IOException e) {
            return "cannot build " + program + " in " + cache + ": " + e.getMessage();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while compiling " + program;
        }
    }

    private static String hash(final byte[] source, final String command) {
        try {
            final MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(source);
            d.update(command.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d.digest(), 0, 8);
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Runs the program once.
     *
     * @param binary the program
     * @param args   its arguments before the length
     * @param budget the trial length in nanoseconds
     * @return the numbers on its last line of output
     * @throws IOException when it cannot run, fails, or prints no number
     * @throws InterruptedException when interrupted
     */
    static double[] run(final Path binary, final String[] args, final long budget) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        cmd.addAll(List.of(args));
        cmd.add(Long.toString(Math.max(1, budget / 1_000_000)));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60 + budget / 1_000_000_000L * 4, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(binary.getFileName() + " did not finish");
        }
        final List<String> lines = output.lines().filter(l -> !l.isBlank()).toList();
        if (p.exitValue() != 0 || lines.isEmpty()) {
            throw new IOException(binary.getFileName() + " " + String.join(" ", args) + " exited " + p.exitValue()
                + (lines.isEmpty() ? "" : ": " + lines.get(lines.size() - 1)));
        }
        return figures(binary.getFileName() + " " + String.join(" ", args), lines.get(lines.size() - 1));
    }

    /**
     * @param what the program, for the message
     * @param line its last line of output
     * @return the numbers on it, separated by white space
     * @throws IOException when the line holds anything but numbers
     */
    static double[] figures(final String what, final String line) throws IOException {
        final String[] words = line.trim().split("\\s+");
        final double[] figures = new double[words.length];
        for (int i = 0; i < words.length; i++) {
            try {
                figures[i] = Double.parseDouble(words[i]);
            } catch (final NumberFormatException e) {
                throw new IOException(what + " printed no figures: " + line, e);
            }
        }
        return figures;
    }
}
