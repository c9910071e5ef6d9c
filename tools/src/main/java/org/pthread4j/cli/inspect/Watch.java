package org.pthread4j.cli.inspect;

import org.pthread4j.ipc.SyncFileInspector;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code inspect --watch}: looks at the files again and again. On a terminal every frame
 * replaces the previous one in place (the report, then what changed since the last frame); on
 * anything else the first report is printed once, then one time-stamped line per change, so a
 * log reads as a history.
 */
public final class Watch {
    private static final String HOME_AND_CLEAR = "\033[H\033[2J";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private final List<Path> files;
    private final long periodMillis;
    private final ProcScan scan;
    private final boolean deadlocks;
    private final PrintWriter out;
    private final boolean terminal;

    /**
     * @param files        the files
     * @param periodMillis time between frames
     * @param scan         how sleepers are found
     * @param deadlocks    whether each frame looks for deadlocks
     * @param out          where frames go
     * @param terminal     whether {@code out} is a terminal (frames in place) or not (change lines)
     */
    public Watch(final List<Path> files, final long periodMillis, final ProcScan scan, final boolean deadlocks,
                 final PrintWriter out, final boolean terminal) {
        this.files = List.copyOf(files);
        this.periodMillis = periodMillis;
        this.scan = scan;
        this.deadlocks = deadlocks;
        this.out = out;
        this.terminal = terminal;
    }

    /**
     * Shows frames until interrupted, or until {@code frames} have been shown.
     *
     * @param frames how many frames, 0 for no limit
     */
    public void run(final long frames) {
        Map<String, String> last = null;
        for (long n = 0; frames == 0 || n < frames; n++) {
            if (n > 0) {
                try {
                    Thread.sleep(periodMillis);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            final List<Inspection> looks = new ArrayList<>();
            final StringBuilder report = new StringBuilder();
            final Map<String, String> state = new LinkedHashMap<>();
            for (final Path f : files) {
                try {
                    final Inspection in = Inspection.of(f, scan);
                    looks.add(in);
                    report.append(Render.text(in));
                    state.putAll(state(in));
                } catch (final Inspection.Failure e) {
                    report.append(e.getMessage()).append('\n');
                    state.put(f.toAbsolutePath().toString(), e.getMessage());
                }
            }
            final String cycles = deadlocks ? Render.deadlocks(Deadlocks.find(looks)) : "";
            if (deadlocks) {
                state.put("deadlocks", cycles.strip());
            }
            final List<String> changes = last == null ? List.of() : changes(last, state);
            final String now = LocalTime.now().format(TIME);
            if (terminal) {
                out.print(HOME_AND_CLEAR);
                out.println("pthread4j inspect --watch: every " + periodMillis + " ms, " + now + " (Ctrl-C ends)");
                out.print(report);
                out.print(cycles);
                out.println(last == null ? "" : changes.isEmpty() ? "nothing changed since the last frame"
                    : "changed since the last frame:");
                for (final String c : changes) {
                    out.println("  " + c);
                }
            } else if (last == null) {
                out.print(report);
                out.print(cycles);
            } else {
                for (final String c : changes) {
                    out.println(now + " " + c);
                }
            }
            out.flush();
            last = state;
        }
    }

    /** The state a frame compares: one line per slot, per sleeper and per header fact that moves. */
    static Map<String, String> state(final Inspection in) {
        final Map<String, String> s = new LinkedHashMap<>();
        final String file = in.report().path().getFileName().toString();
        s.put(file + ": slots", in.report().slots().size() + " used");
        s.put(file + ": being created", in.report().pending() == null ? "nothing"
            : "slot " + in.report().pending().index() + " by pid " + in.report().pending().pid());
        for (final SyncFileInspector.SlotReport r : in.report().slots()) {
            s.put(file + ": " + r.info().name(), r.summary());
            final List<String> asleep = new ArrayList<>();
            for (final ProcScan.Sleeper t : in.sleepersOf(r.info().name())) {
                asleep.add(t.who());
            }
            s.put(file + ": " + r.info().name() + " asleep", asleep.isEmpty() ? "nobody" : String.join("; ", asleep));
        }
        return s;
    }

    /** One line per key whose value changed, appeared or went. */
    static List<String> changes(final Map<String, String> before, final Map<String, String> after) {
        final List<String> lines = new ArrayList<>();
        for (final Map.Entry<String, String> e : after.entrySet()) {
            final String old = before.get(e.getKey());
            if (old == null) {
                lines.add(e.getKey() + ": new: " + e.getValue());
            } else if (!Objects.equals(old, e.getValue())) {
                lines.add(e.getKey() + ": " + old + " -> " + e.getValue());
            }
        }
        for (final String k : before.keySet()) {
            if (!after.containsKey(k)) {
                lines.add(k + ": gone");
            }
        }
        return lines;
    }
}
