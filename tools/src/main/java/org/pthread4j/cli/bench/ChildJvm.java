package org.pthread4j.cli.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One workload in a JVM of its own. The JIT keeps one profile per method for the whole JVM: a
 * workload that ran the library's lock paths with other kinds, backends or memory leaves
 * profiles (branch frequencies, receiver types, inlining decisions) that a later workload's
 * figures would inherit, and {@code java.util.concurrent}, measured beside them, would not. So
 * {@code bench} with several workloads starts, for each, this JVM's command again (its options,
 * class path and system properties) with {@code bench WORKLOAD --rows-to FILE}, and reads the
 * rows back.
 */
public final class ChildJvm {
    /** The exit status of a JVM the watchdog stopped because a case hung. */
    public static final int HUNG = Watchdog.HUNG;
    /** Options without which the library cannot run in a child. */
    private static final List<String> REQUIRED = List.of("--enable-native-access=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED");

    /**
     * What a child returned.
     *
     * @param exitCode its exit status
     * @param rows     the rows it wrote (empty if it wrote none)
     */
    public record Result(int exitCode, List<Row> rows) {
    }

    private ChildJvm() {
    }

    /**
     * Runs {@code bench workload options... --rows-to FILE} in a new JVM started like this one;
     * its standard error (the progress line, warnings) goes to this JVM's.
     *
     * @param workload the workload's name
     * @param options  the bench options to repeat
     * @return the child's exit status and rows
     * @throws IOException when the child cannot be started or its rows cannot be read
     */
    public static Result run(final String workload, final List<String> options) throws IOException {
        final Path file = Files.createTempFile("pthread4j-bench-" + workload + "-", ".rows");
        try {
            final List<String> args = new ArrayList<>(List.of("bench", workload));
            args.addAll(options);
            args.add("--rows-to");
            args.add(file.toString());
            final List<String> cmd = command("org.pthread4j.cli.Main", args);
            final Process p = new ProcessBuilder(cmd)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
            final int code;
            try {
                code = p.waitFor();
            } catch (final InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while workload " + workload + " ran", e);
            }
            return new Result(code, Files.size(file) == 0 ? List.of() : readRows(file));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * The command line of a JVM started like this one: the same {@code java} binary, the same
     * JVM options (a debugger agent left out, so that two JVMs do not fight over its port; the
     * flags the library needs added when missing), the same class path, then {@code mainClass}
     * and its arguments. Every child JVM of the tools is started with it.
     *
     * @param mainClass the class to run
     * @param args      its arguments
     * @return the command
     */
    public static List<String> command(final String mainClass, final List<String> args) {
        final List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvmOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()));
        for (final String required : REQUIRED) {
            final String name = required.substring(0, required.indexOf('='));
            final String value = required.substring(name.length() + 1);
            if (!cmd.contains(required) && !(cmd.contains(name) && cmd.contains(value))) {
                cmd.add(required);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /**
     * @param inputArguments a JVM's options, as {@code RuntimeMXBean.getInputArguments()} gives them
     * @return those a child JVM repeats: all but a debugger agent
     */
    public static List<String> jvmOptions(final List<String> inputArguments) {
        final List<String> options = new ArrayList<>();
        for (final String o : inputArguments) {
            if (!o.startsWith("-agentlib:jdwp") && !o.startsWith("-Xrunjdwp")) {
                options.add(o);
            }
        }
        return options;
    }

    /**
     * Writes rows for {@link #run} to read.
     *
     * @param file the file named by {@code --rows-to}
     * @param rows the rows
     */
    public static void writeRows(final Path file, final List<Row> rows) {
        try (OutputStream os = Files.newOutputStream(file); ObjectOutputStream out = new ObjectOutputStream(os)) {
            out.writeObject(new ArrayList<>(rows));
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads the rows {@link #writeRows} wrote, refusing every other class.
     *
     * @param file the file
     * @return the rows
     * @throws IOException when the file cannot be read or holds anything but rows
     */
    public static List<Row> readRows(final Path file) throws IOException {
        try (InputStream is = Files.newInputStream(file); ObjectInputStream in = new ObjectInputStream(is)) {
            in.setObjectInputFilter(info -> {
                final Class<?> c = info.serialClass();
                // Only what writeRows writes: the list (its Object[]), rows, their stats and samples.
                return c == null || c == ArrayList.class || c == Object[].class || c == Row.class
                    || c == Stats.class || c == double[].class
                    ? java.io.ObjectInputFilter.Status.ALLOWED : java.io.ObjectInputFilter.Status.REJECTED;
            });
            final List<Row> rows = new ArrayList<>();
            for (final Object o : (List<?>) in.readObject()) {
                rows.add((Row) o);
            }
            return rows;
        } catch (final IOException | ClassNotFoundException | ClassCastException e) {
            // A child that died while writing leaves a truncated file: say which and why.
            throw new IOException("unreadable rows in " + file + ": " + e, e);
        }
    }
}
