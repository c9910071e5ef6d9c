package org.pthread4j.testing;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM for cross-process tests, started with the same {@code java} binary and class
 * path as the test JVM, running {@code mainClass} (a class with a {@code main} in the test
 * sources). The child's standard output arrives line by line ({@link #expectLine}); its
 * standard input takes commands ({@link #send}). Close kills it.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final Output out;
    private final PrintWriter in;

    private ChildJvm(final Process process) {
        this.process = process;
        this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.out = new Output(process, "child-jvm-reader");
    }

    /** @return the java binary the tests run on */
    public static String javaBinary() {
        final String fromBuild = System.getProperty("pthread4j.test.java");
        if (fromBuild != null && !fromBuild.isBlank()) {
            return fromBuild;
        }
        return ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
    }

    /**
     * Starts a child JVM.
     *
     * @param mainClass the class to run
     * @param args      its arguments
     * @return the running child
     * @throws IOException when it cannot be started
     */
    public static ChildJvm start(final Class<?> mainClass, final String... args) throws IOException {
        return startUnder(List.of(), mainClass, args);
    }

    /**
     * Starts a child JVM with the usual options through a launcher:
     * {@code sh -c 'umask 027 && exec "$@"' sh}, say.
     *
     * @param launcher  the words before the java command
     * @param mainClass the class to run
     * @param args      its arguments
     * @return the running child
     * @throws IOException when it cannot be started
     */
    public static ChildJvm startUnder(final List<String> launcher, final Class<?> mainClass, final String... args)
        throws IOException {
        final List<String> options = List.of("--enable-native-access=ALL-UNNAMED",
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"));
        return start(launcher, options, mainClass, args);
    }

    /**
     * Starts a child JVM with the options given instead of the usual ones: the test chooses the
     * flags, the class path or module path, and the modules to add.
     *
     * @param options   every JVM option, class path included
     * @param mainClass the class to run (found through {@code options})
     * @param args      its arguments
     * @return the running child
     * @throws IOException when it cannot be started
     */
    public static ChildJvm start(final List<String> options, final Class<?> mainClass, final String... args)
        throws IOException {
        return start(List.of(), options, mainClass, args);
    }

    private static ChildJvm start(final List<String> launcher, final List<String> options, final Class<?> mainClass,
                                  final String... args) throws IOException {
        final List<String> cmd = new ArrayList<>(launcher);
        cmd.add(javaBinary());
        cmd.add("-Xshare:auto");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(options);
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        final Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new ChildJvm(p);
    }

    /**
     * Waits for the next line of output.
     *
     * @param timeout how long to wait (generous: liveness, not speed)
     * @return the line
     * @throws AssertionError when the child prints nothing in time or exits
     */
    public String expectLine(final Duration timeout) throws InterruptedException {
        final String line = out.poll(timeout);
        if (line == null) {
            throw new AssertionError("child JVM printed no line within " + timeout + " (alive: " + process.isAlive()
                + "); output so far:\n" + transcript());
        }
        return line;
    }

    /**
     * Waits for a line equal to {@code expected}, skipping others.
     *
     * @param expected the line
     * @param timeout  how long to wait in all
     * @throws AssertionError when it does not come
     */
    public void expect(final String expected, final Duration timeout) throws InterruptedException {
        final long end = System.nanoTime() + timeout.toNanos();
        for (;;) {
            final long left = end - System.nanoTime();
            final String line = out.poll(Duration.ofNanos(Math.max(0, left)));
            if (line == null) {
                throw new AssertionError("child JVM did not print '" + expected + "' within " + timeout
                    + " (alive: " + process.isAlive() + "); output:\n" + transcript());
            }
            if (line.equals(expected)) {
                return;
            }
        }
    }

    /** @param command a line for the child's standard input */
    public void send(final String command) {
        in.println(command);
    }

    /** @return the child's pid */
    public long pid() {
        return process.pid();
    }

    /** @return the process */
    public Process process() {
        return process;
    }

    /** Kills the child with SIGKILL ({@code kill -9}) and waits for it to be gone. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * @param timeout how long to wait
     * @return the exit code
     * @throws AssertionError when the child does not exit in time
     */
    public int waitFor(final Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("child JVM did not exit within " + timeout + "; output:\n" + transcript());
        }
        return process.exitValue();
    }

    /** @return everything the child printed so far */
    public String transcript() {
        return out.transcript();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill9();
        }
    }
}
