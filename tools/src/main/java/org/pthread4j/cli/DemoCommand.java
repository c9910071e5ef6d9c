package org.pthread4j.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code ./pthread4j demo COMMAND}: small runnable lessons. {@code demo trace} is
 * {@link DemoTraceCommand}.
 */
@Command(name = "demo", header = "Runs small scenarios that show how the primitives work.",
    synopsisSubcommandLabel = "COMMAND", subcommands = {DemoCommand.Trace.class, DemoCommand.Ipc.class})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    /** Creates the command; picocli instantiates it. */
    public DemoCommand() {
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return Main.USAGE;
    }

    /** {@code demo trace}: hands its arguments to {@link DemoTraceCommand#run(String[], PrintWriter, PrintWriter)}. */
    @Command(name = "trace", header = "Prints the futex operations of a small scenario per primitive.",
        description = {"Runs a scenario per primitive (mutex, cond, rwlock, sem; all when none is named) with the",
            "futex trace on, and prints each step: what the threads did, the words afterwards, and every",
            "futex operation the step issued. The chapters in docs/ explain what you see."},
        footer = {"", "Exit status: 0 done, 1 a scenario failed, 2 bad command line."})
    static final class Trace implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        private boolean help;

        @Option(names = "--futex", paramLabel = "BACKEND",
            description = "parking, linux or linux-noprivate (default: the default private backend).")
        private String futex;

        @Parameters(paramLabel = "SCENARIO", arity = "0..*", description = "mutex, cond, rwlock or sem.")
        private List<String> scenarios = new ArrayList<>();

        Trace() {
        }

        @Override
        public Integer call() {
            final List<String> all = new ArrayList<>();
            if (futex != null) {
                all.add("--futex");
                all.add(futex);
            }
            all.addAll(scenarios);
            return DemoTraceCommand.run(all.toArray(String[]::new), spec.commandLine().getOut(),
                spec.commandLine().getErr());
        }
    }

    /** {@code demo ipc}: hands its arguments to {@link DemoIpcCommand#run(String[])}. */
    @Command(name = "ipc", header = "Two JVMs ping-pong through a shared mutex and condvar, then one is killed mid-hold.",
        description = {"Starts a second JVM that shares a file with this one, prints round trips per second through",
            "a process-shared mutex and condition variable, then kills the peer while it holds a robust",
            "mutex and shows this JVM recovering through EOWNERDEAD."})
    static final class Ipc implements Callable<Integer> {
        @picocli.CommandLine.Unmatched
        private List<String> args = new ArrayList<>();

        Ipc() {
        }

        @Override
        public Integer call() {
            return DemoIpcCommand.run(args.toArray(String[]::new));
        }
    }
}
