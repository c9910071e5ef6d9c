package org.pthread4j.cli.workload;

import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The C baselines: programs in {@code tools/src/main/c}, compiled with {@code gcc -O2 -pthread}
 * (and, where it is installed, {@code musl-gcc -static}, for musl's own pthreads) into
 * {@code tools/target/bench-c} when the binary is missing or older than its source, and run as
 * subprocesses in the same bench run as the Java figures they are compared with. Each program
 * measures itself for the time it is given (after its own warm-up, so the harness warms a C case
 * up with one short run only) and prints its figures on
 * its last line, one per measure of the group, separated by spaces. Without the compiler the
 * cases are skipped with the reason in the table.
 */
public final class CPrograms {
    /** Name of the backend column for the glibc rows. */
    public static final String BACKEND = Libc.GLIBC.backend;

    private static final Map<String, Object> BUILT = new ConcurrentHashMap<>();

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
     * @param home    the project directory
     * @param program the program's name ({@code tools/src/main/c/NAME.c})
     * @param impl    the row's impl column
     * @param args    arguments before the trial length in milliseconds
     * @return the case, or a skipped case saying why it cannot run here
     */
    public static Case of(final Path home, final String program, final String impl, final String... args) {
        return of(home, Libc.GLIBC, program, impl, args);
    }

    /**
     * A case that runs a C program once per trial.
     *
     * @param home    the project directory
     * @param libc    the C library to build it against
     * @param program the program's name ({@code tools/src/main/c/NAME.c})
     * @param impl    the row's impl column
     * @param args    arguments before the trial length in milliseconds
     * @return the case, or a skipped case saying why it cannot run here
     */
    public static Case of(final Path home, final Libc libc, final String program, final String impl,
                          final String... args) {
        final Object built = build(home, libc, program);
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
     * @param home    the project directory
     * @param program the program's name
     * @param impl    the rows' impl column
     * @param args    arguments before the trial length in milliseconds
     * @return one case per {@link Libc}
     */
    public static List<Case> each(final Path home, final String program, final String impl, final String... args) {
        final List<Case> cases = new ArrayList<>();
        for (final Libc libc : Libc.values()) {
            cases.add(of(home, libc, program, impl, args));
        }
        return cases;
    }

    /**
     * @param home    the project directory
     * @param program the program's name
     * @return the glibc binary's path, or a String saying why there is none
     */
    static Object build(final Path home, final String program) {
        return build(home, Libc.GLIBC, program);
    }

    /**
     * @param home    the project directory
     * @param libc    the C library
     * @param program the program's name
     * @return the binary's path, or a String saying why there is none
     */
    static Object build(final Path home, final Libc libc, final String program) {
        return BUILT.computeIfAbsent(home + "/" + program + libc.suffix, k -> compile(home, libc, program));
    }

    private static synchronized Object compile(final Path home, final Libc libc, final String program) {
        final Path source = home.resolve("tools/src/main/c/" + program + ".c");
        if (!Files.isRegularFile(source)) {
            return "no C source " + source + " (run from the project directory)";
        }
        final Path binary = home.resolve("tools/target/bench-c/" + program + libc.suffix);
        try {
            if (Files.isExecutable(binary)
                && Files.getLastModifiedTime(binary).compareTo(Files.getLastModifiedTime(source)) >= 0) {
                return binary;
            }
            Files.createDirectories(binary.getParent());
            final List<String> cmd = new ArrayList<>(List.of(libc.compiler, "-O2", "-Wall", "-pthread"));
            cmd.addAll(libc.flags);
            cmd.addAll(List.of("-o", binary.toString(), source.toString()));
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
                return libc.compiler + " failed on " + source + ": "
                    + output.lines().findFirst().orElse("exit " + p.exitValue());
            }
            return binary;
        } catch (final IOException e) {
            return "cannot build " + program + ": " + e.getMessage();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while compiling " + program;
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
