package org.pthread4j.cli;

import org.pthread4j.cli.bench.Environment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Entry point of {@code ./pthread4j}: {@code bench} runs the benchmarks, {@code demo trace}
 * prints the futex operations of small scenarios, {@code demo ipc} shows two JVMs sharing a
 * file, {@code inspect FILE} prints a sync file's primitives, {@code help} prints the usage.
 * Every command parses its command line with picocli: {@code --help} works everywhere, and a bad
 * command line prints what was wrong, the command's synopsis and a pointer to its help on
 * standard error, and exits with status {@link #USAGE}.
 */
@Command(name = "pthread4j", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "musl libc's thread synchronization on off-heap words and real futexes.",
    subcommands = {BenchCommand.class, DemoCommand.class, InspectCommand.class, CommandLine.HelpCommand.class},
    synopsisSubcommandLabel = "COMMAND",
    footer = {"", "In a checkout, './pthread4j test' runs the test suite (./mvnw -B verify).",
        "Exit status: 0 done, 1 failed, 2 bad command line; each command's --help tells its own."})
public final class Main implements Callable<Integer> {
    /** Exit status for a command-line error. */
    public static final int USAGE = 2;

    /** {@code --version}: the tools' version and commit, the JDK, the kernel and the futex backends. */
    public static final class Version implements CommandLine.IVersionProvider {
        /** Creates the provider; picocli instantiates it. */
        public Version() {
        }

        @Override
        public String[] getVersion() {
            final Environment e = Environment.current();
            return new String[] {"pthread4j " + e.version() + ", commit " + e.commit(), "JDK " + e.jdk(),
                "kernel " + e.kernel() + ", " + e.cores() + " CPUs (" + e.cpu() + ")", "futex backends: " + e.futex()};
        }
    }

    @Spec
    private CommandSpec spec;

    /** Creates the command; picocli instantiates it. */
    public Main() {
    }

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "missing COMMAND");
    }

    /**
     * Runs a command line.
     *
     * @param args the arguments
     * @param out  standard output
     * @param err  standard error
     * @return the exit status: 0 done, 1 failed, 2 a command-line error, or a command's own
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
        if (e instanceof UnmatchedArgumentException u && !cl.getSubcommands().isEmpty() && !u.getUnmatched().isEmpty()
            && !u.getUnmatched().get(0).startsWith("-")) {
            msg = "unknown command '" + u.getUnmatched().get(0) + "'";
        }
        err.println(qualifiedName(cl) + ": " + msg);
        err.print(cl.getHelp().synopsis(0));
        if (!cl.getSubcommands().isEmpty()) {
            err.print(cl.getHelp().commandList());
        }
        err.println("Try '" + qualifiedName(cl).replace("pthread4j", "./pthread4j") + " --help' for more.");
        err.flush();
        return USAGE;
    }

    private static String qualifiedName(final CommandLine cl) {
        return cl.getParent() == null ? cl.getCommandName() : qualifiedName(cl.getParent()) + " " + cl.getCommandName();
    }

    /** @param args the command line */
    public static void main(final String[] args) {
        final PrintWriter out = new PrintWriter(System.out, true);
        final PrintWriter err = new PrintWriter(System.err, true);
        System.exit(run(args, out, err));
    }
}
