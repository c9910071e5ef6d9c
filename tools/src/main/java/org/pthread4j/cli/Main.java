package org.pthread4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Entry point of {@code ./pthread4j}: {@code bench} runs the benchmarks, {@code demo trace}
 * prints the futex operations of small scenarios, {@code demo ipc} shows two JVMs sharing a
 * file, {@code inspect FILE} prints a sync file's primitives, {@code help} prints the usage. An unknown
 * command or a bad option prints a message and the usage on standard error and exits with
 * status 2.
 */
@Command(name = "pthread4j",
    description = "musl libc's thread synchronization on off-heap words and real futexes.",
    subcommands = {BenchCommand.class, DemoCommand.class, Main.Inspect.class, CommandLine.HelpCommand.class},
    synopsisSubcommandLabel = "COMMAND")
public final class Main implements Callable<Integer> {
    /** {@code inspect FILE [--json]}: hands its arguments to {@link InspectCommand#run(String[])}. */
    @Command(name = "inspect", header = "Prints a sync file's header and the state of every primitive in it, taking no lock.",
        description = {"Usage: inspect FILE [--json]. A corrupt file is refused with the message open() gives."})
    static final class Inspect implements Callable<Integer> {
        @CommandLine.Unmatched
        private List<String> args = new ArrayList<>();

        Inspect() {
        }

        @Override
        public Integer call() {
            return InspectCommand.run(args.toArray(String[]::new));
        }
    }

    /** Exit status for a command-line error. */
    public static final int USAGE = 2;

    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the command; picocli instantiates it. */
    public Main() {
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }

    /**
     * Runs a command line.
     *
     * @param args the arguments
     * @param out  standard output
     * @param err  standard error
     * @return the exit status: 0 done, 1 a benchmark case failed, 2 a command-line error
     */
    public static int run(final String[] args, final PrintWriter out, final PrintWriter err) {
        final CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        final var bench = cl.getSubcommands().get("bench").getCommandSpec().usageMessage();
        final List<String> footer = new ArrayList<>(List.of("", "Workloads:"));
        footer.addAll(BenchCommand.workloadList().lines().toList());
        footer.addAll(List.of(bench.footer()));
        bench.footer(footer.toArray(String[]::new));
        cl.setParameterExceptionHandler(Main::badCommandLine);
        final int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    /**
     * Prints a bad command line's message, the synopsis of the command it was meant for and a
     * pointer to its help, and answers {@link #USAGE}.
     */
    private static int badCommandLine(final ParameterException e, final String[] args) {
        final CommandLine cl = e.getCommandLine();
        final PrintWriter err = cl.getErr();
        String msg = e.getMessage();
        if (e instanceof UnmatchedArgumentException u && cl.getParent() == null && !u.getUnmatched().isEmpty()
            && !u.getUnmatched().get(0).startsWith("-")) {
            msg = "unknown command '" + u.getUnmatched().get(0) + "'";
        }
        err.println("pthread4j: " + msg);
        err.print(cl.getHelp().synopsis(0));
        if (cl.getParent() == null) {
            err.print(cl.getHelp().commandList());
        }
        err.println("Try './pthread4j " + (cl.getParent() == null ? "" : cl.getCommandName() + " ") + "--help' for more.");
        err.flush();
        return USAGE;
    }

    /** @param args the command line */
    public static void main(final String[] args) {
        final PrintWriter out = new PrintWriter(System.out, true);
        final PrintWriter err = new PrintWriter(System.err, true);
        System.exit(run(args, out, err));
    }
}
