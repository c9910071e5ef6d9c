package org.pthread4j.cli;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code ./pthread4j demo COMMAND}: small runnable lessons, {@code demo trace}
 * ({@link DemoTraceCommand}) and {@code demo ipc} ({@link DemoIpcCommand}).
 */
@Command(name = "demo", header = "Runs small scenarios that show how the primitives work.",
    mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisSubcommandLabel = "COMMAND", subcommands = {DemoCommand.Trace.class, DemoCommand.Ipc.class})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    /** Creates the command; picocli instantiates it. */
    public DemoCommand() {
    }

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "missing COMMAND (trace or ipc)");
    }

    /** {@code demo trace}: runs {@link DemoTraceCommand}'s scenarios. */
    @Command(name = "trace", header = "Prints the futex operations of a small scenario per primitive.",
        mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = {"Runs a scenario per primitive (mutex, cond, rwlock, sem; all when none is named) with the",
            "futex trace on, and prints each step: what the threads did, the words afterwards, and every",
            "futex operation the step issued, in the order they happened. --musl runs musl's protocol on",
            "the kernel backend. The chapters in docs/ explain what you see."},
        footer = {"", "Exit status: 0 done, 1 a scenario failed, 2 bad command line."})
    static final class Trace implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = "--futex", paramLabel = "BACKEND",
            description = "parking, linux or linux-noprivate (default: the default private backend).")
        private String futex;

        @Option(names = "--musl",
            description = "musl's protocol: the kernel backend (linux), where every lock runs musl's steps and futex calls.")
        private boolean musl;

        @Parameters(paramLabel = "SCENARIO", arity = "0..*", description = "mutex, cond, rwlock or sem.")
        private List<String> scenarios = new ArrayList<>();

        Trace() {
        }

        @Override
        public Integer call() {
            final List<String> names = new ArrayList<>();
            for (final String s : scenarios) {
                final String name = s.toLowerCase(Locale.ROOT);
                if (!DemoTraceCommand.SCENARIOS.contains(name)) {
                    throw new ParameterException(spec.commandLine(), "unknown scenario '" + s + "' (known: "
                        + String.join(", ", DemoTraceCommand.SCENARIOS) + ")");
                }
                names.add(name);
            }
            if (musl && futex != null && !futex.equals("linux")) {
                throw new ParameterException(spec.commandLine(), "--musl runs the linux backend; it cannot be combined with --futex "
                    + futex);
            }
            final Futex backend;
            try {
                backend = musl ? Futexes.linux() : futex == null ? Futexes.defaultPrivate() : Futexes.byName(futex);
            } catch (final IllegalArgumentException | UnsupportedOperationException e) {
                throw new ParameterException(spec.commandLine(), "--futex " + futex + ": " + e.getMessage());
            }
            return DemoTraceCommand.run(names.isEmpty() ? DemoTraceCommand.SCENARIOS : names, backend, musl,
                spec.commandLine().getOut(), spec.commandLine().getErr());
        }
    }

    /** {@code demo ipc}: runs {@link DemoIpcCommand}. */
    @Command(name = "ipc", sortOptions = false, mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        header = "Two JVMs ping-pong through a shared mutex and condvar, then one is killed mid-hold.",
        description = {"Starts a second JVM that shares a sync file with this one, prints round trips per second",
            "through a process-shared mutex and condition variable, then kills the peer while it holds a",
            "robust mutex and shows this JVM recovering through EOWNERDEAD."},
        footer = {"", "Exit status: 0 done, 1 the demo failed, 2 bad command line."})
    static final class Ipc implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        private double seconds = DemoIpcCommand.DEFAULT_SECONDS;

        @Option(names = "--seconds", order = 1, paramLabel = "S",
            description = "How long the ping-pong runs, more than 0 and at most 3600 (default: 3).")
        void setSeconds(final double s) {
            if (!(s > 0 && s <= DemoIpcCommand.MAX_SECONDS)) {
                throw new ParameterException(spec.commandLine(), "--seconds must be more than 0 and at most "
                    + (int) DemoIpcCommand.MAX_SECONDS + ": " + s);
            }
            this.seconds = s;
        }

        @Option(names = "--file", order = 2, paramLabel = "PATH",
            description = "The sync file: a new path (created, and removed at the end) or an existing sync file "
                + "(used, and left in place). Anything else is refused and left untouched. Default: a new file in "
                + "/dev/shm.")
        private Path file;

        /** The second JVM's mode: play the peer on this file. */
        @Option(names = "--peer", hidden = true, paramLabel = "PATH")
        private Path peer;

        Ipc() {
        }

        @Override
        public Integer call() {
            if (peer != null) {
                return DemoIpcCommand.peer(peer);
            }
            return DemoIpcCommand.run(file, seconds, spec.commandLine().getOut(), spec.commandLine().getErr());
        }
    }
}
