package org.pthread4j.cli;

import org.pthread4j.cli.inspect.Deadlocks;
import org.pthread4j.cli.inspect.Inspection;
import org.pthread4j.cli.inspect.ProcScan;
import org.pthread4j.cli.inspect.Render;
import org.pthread4j.cli.inspect.Watch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code ./pthread4j inspect FILE...}: prints each sync file's owner, group and mode, its header,
 * the state of every slot (read without taking any lock, nothing written), and the threads of
 * any process asleep on a slot's words; {@code --deadlocks} looks for cycles of threads that hold
 * a mutex and wait for another; {@code --watch} shows it live.
 */
@Command(name = "inspect", sortOptions = false, mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    header = "Prints sync files' primitives and who is asleep on them, taking no lock.",
    description = {
        "Prints each sync file's owner, group and mode (and a warning when users other than its owner may write it), "
            + "its header, and every slot: a mutex's owner and whether that thread still lives, waiters, a rwlock's "
            + "readers, semaphore values. Under each slot it lists the threads (pid, tid, names) asleep on its words, "
            + "found in /proc without any help from the processes, and it says which processes it could not look into "
            + "and why (their syscall files need ptrace access).",
        "",
        "FILE is a path, or a bare name looked up in /dev/shm when no such file exists in the working directory. Only "
            + "regular files are opened, never blocking (a FIFO is refused); a file that is not a valid sync file is "
            + "refused with the message SyncFile.open gives."},
    footer = {"", "Exit status: 0 done, 1 a file could not be inspected, 2 bad command line, 3 a deadlock was found "
        + "(--deadlocks)."})
public final class InspectCommand implements Callable<Integer> {
    /** Exit status when {@code --deadlocks} found a cycle. */
    public static final int DEADLOCK = 3;
    /** Shortest and longest --watch period. */
    static final long MIN_WATCH_MILLIS = 10;
    static final long MAX_WATCH_MILLIS = 3_600_000;
    /** How long --deadlocks waits before it looks a second time. */
    private static final long SECOND_LOOK_MILLIS = 200;

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Sync files: paths, or names in /dev/shm.")
    private List<String> files = new ArrayList<>();

    @Option(names = "--json", order = 1, description = "One JSON object per file, on one line each (and one more for "
        + "--deadlocks).")
    private boolean json;

    @Option(names = "--deadlocks", order = 2, description = "Report every cycle of threads, across processes, each "
        + "holding a mutex (its word records the owner) and asleep waiting for the next one's; exit 3 when there is one.")
    private boolean deadlocks;

    private long watch;

    @Option(names = "--watch", order = 3, arity = "0..1", paramLabel = "MS", fallbackValue = "1000",
        description = "Look again every MS milliseconds (default 1000) until Ctrl-C: on a terminal the view is "
            + "redrawn in place and ends with what changed since the last frame; otherwise a line per change.")
    void setWatch(final long ms) {
        if (ms < MIN_WATCH_MILLIS || ms > MAX_WATCH_MILLIS) {
            throw new ParameterException(spec.commandLine(), "--watch must be between " + MIN_WATCH_MILLIS + " and "
                + MAX_WATCH_MILLIS + " ms: " + ms);
        }
        this.watch = ms;
    }

    /** For tests: stop --watch after this many frames (0: never). */
    @Option(names = "--frames", hidden = true)
    private long frames;

    private ProcScan scan = new ProcScan();

    /** Creates the command; picocli instantiates it. */
    public InspectCommand() {
    }

    @Override
    public Integer call() throws InterruptedException {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final List<Path> paths = new ArrayList<>();
        for (final String f : files) {
            paths.add(Inspection.resolve(f));
        }
        if (watch > 0) {
            if (json) {
                throw new ParameterException(spec.commandLine(), "--json and --watch do not go together");
            }
            final java.io.Console console = System.console();
            new Watch(paths, watch, scan, deadlocks, out, console != null && console.isTerminal()).run(frames);
            return 0;
        }
        List<Inspection> looks = inspect(paths, out, err, true);
        int status = looks.size() == paths.size() ? 0 : 1;
        if (deadlocks) {
            List<List<Deadlocks.Step>> cycles = Deadlocks.find(looks);
            if (!cycles.isEmpty()) {
                // A deadlock stays; a cycle seen across words read at different instants may not.
                Thread.sleep(SECOND_LOOK_MILLIS);
                looks = inspect(paths, out, err, false);
                final List<List<Deadlocks.Step>> again = Deadlocks.find(looks);
                cycles = cycles.stream().filter(c -> again.stream().anyMatch(a -> a.toString().equals(c.toString())))
                    .toList();
            }
            out.print(json ? Render.deadlocksJson(cycles) + "\n" : (looks.isEmpty() ? "" : "\n") + Render.deadlocks(cycles));
            if (!cycles.isEmpty()) {
                status = DEADLOCK;
            }
        }
        out.flush();
        err.flush();
        return status;
    }

    private List<Inspection> inspect(final List<Path> paths, final PrintWriter out, final PrintWriter err,
                                     final boolean print) {
        final List<Inspection> looks = new ArrayList<>();
        for (final Path p : paths) {
            try {
                final Inspection in = Inspection.of(p, scan);
                looks.add(in);
                if (print) {
                    out.print(json ? Render.json(in) + "\n" : (looks.size() > 1 ? "\n" : "") + Render.text(in));
                }
            } catch (final Inspection.Failure e) {
                if (print) {
                    err.println("pthread4j inspect: " + e.getMessage());
                }
            }
        }
        return looks;
    }

    /**
     * For tests: the /proc scan to use.
     *
     * @param scan the scan
     * @return this
     */
    InspectCommand scan(final ProcScan scan) {
        this.scan = scan;
        return this;
    }
}
