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
 * The C baselines: programs in {@code src/bench/c}, compiled with {@code gcc -O2 -pthread}
 * into {@code target/bench-c} when the binary is missing or older than its source, and run
 * as subprocesses in the same bench run as the Java figures they are compared with. Each
 * program measures itself for the time it is given (after its own warm-up) and prints one
 * number on its last line. Without gcc the cases are skipped with the reason in the table.
 */
public final class CPrograms {
    /** Name of the backend column for the C rows. */
    public static final String BACKEND = "C (glibc)";

    private static final Map<String, Object> BUILT = new ConcurrentHashMap<>();

    private CPrograms() {
    }

    /**
     * A case that runs a C program once per trial.
     *
     * @param home    the project directory
     * @param program the program's name ({@code src/bench/c/NAME.c})
     * @param impl    the row's impl column
     * @param args    arguments before the trial length in milliseconds
     * @return the case, or a skipped case saying why it cannot run here
     */
    public static Case of(final Path home, final String program, final String impl, final String... args) {
        final Object built = build(home, program);
        if (built instanceof String reason) {
            return Case.skipped(impl, BACKEND, reason);
        }
        final Path binary = (Path) built;
        return Case.of(impl, BACKEND, () -> Fixture.of(budget -> run(binary, args, budget)));
    }

    /**
     * @param home    the project directory
     * @param program the program's name
     * @return the binary's path, or a String saying why there is none
     */
    static synchronized Object build(final Path home, final String program) {
        return BUILT.computeIfAbsent(home + "/" + program, k -> compile(home, program));
    }

    private static Object compile(final Path home, final String program) {
        final Path source = home.resolve("src/bench/c/" + program + ".c");
        if (!Files.isRegularFile(source)) {
            return "no C source " + source + " (run from the project directory)";
        }
        final Path binary = home.resolve("target/bench-c/" + program);
        try {
            if (Files.isExecutable(binary)
                && Files.getLastModifiedTime(binary).compareTo(Files.getLastModifiedTime(source)) >= 0) {
                return binary;
            }
            Files.createDirectories(binary.getParent());
            final List<String> cmd = List.of("gcc", "-O2", "-Wall", "-pthread", "-o", binary.toString(), source.toString());
            final Process p;
            try {
                p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            } catch (final IOException e) {
                return "gcc not found: C baselines skipped";
            }
            final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "gcc did not finish compiling " + program;
            }
            if (p.exitValue() != 0) {
                return "gcc failed on " + source + ": " + output.lines().findFirst().orElse("exit " + p.exitValue());
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
     * @return the number on its last line of output
     * @throws IOException when it cannot run, fails, or prints no number
     * @throws InterruptedException when interrupted
     */
    static double run(final Path binary, final String[] args, final long budget) throws IOException, InterruptedException {
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
        try {
            return Double.parseDouble(lines.get(lines.size() - 1).trim());
        } catch (final NumberFormatException e) {
            throw new IOException(binary.getFileName() + " printed no figure: " + lines.get(lines.size() - 1), e);
        }
    }
}
