package org.pthread4j.cli.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The progress line on the terminal: which workload, which case, step k of n. It rewrites one
 * line of standard error in place and is silent when the JVM has no console (output piped or
 * redirected, CI), so logs stay clean.
 */
public final class Progress {
    private final PrintStream out;
    private final boolean enabled;
    private final String position;
    private int lastLength;
    private String workload;
    private long startNanos;

    /**
     * @param out     where to draw the line (standard error)
     * @param enabled whether to draw it
     */
    public Progress(final PrintStream out, final boolean enabled) {
        this(out, enabled, null);
    }

    /**
     * @param out      where to draw the line (standard error)
     * @param enabled  whether to draw it
     * @param position the workload's place in the run, e.g. {@code "3/9"}, or {@code null}
     */
    public Progress(final PrintStream out, final boolean enabled, final String position) {
        this.out = out;
        this.enabled = enabled;
        this.position = position;
    }

    /**
     * @param position the workload's place in the run, e.g. {@code "3/9"}, or {@code null}
     * @return a progress line on standard error, enabled when the JVM has an interactive console
     */
    public static Progress forTerminal(final String position) {
        final java.io.Console console = System.console();
        return new Progress(System.err, console != null && console.isTerminal(), position);
    }

    /** @return whether the line is drawn */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Shows a step, with the time the workload's remaining steps should take at the pace of
     * its steps so far.
     *
     * @param workload the workload's name
     * @param step     the step, from 1
     * @param steps    the workload's number of steps
     * @param what     what runs now
     */
    public synchronized void step(final String workload, final int step, final int steps, final String what) {
        if (!enabled) {
            return;
        }
        String line = line(workload, step, steps, what, System.nanoTime());
        if (line.length() > 118) {
            line = line.substring(0, 115) + "...";
        }
        final StringBuilder sb = new StringBuilder("\r").append(line);
        for (int i = line.length(); i < lastLength; i++) {
            sb.append(' ');
        }
        lastLength = line.length();
        out.print(sb);
        out.flush();
    }

    /**
     * @param name  the workload
     * @param step  the step, from 1
     * @param steps its number of steps
     * @param what  what runs now
     * @param now   the time, {@link System#nanoTime()}
     * @return the text of the line: the workload (and its place in the run), the step, the
     *         time left once a step is done, and what runs
     */
    public String line(final String name, final int step, final int steps, final String what, final long now) {
        if (!name.equals(workload) || step == 1) {
            workload = name;
            startNanos = now;
        }
        final StringBuilder sb = new StringBuilder("bench ").append(name);
        if (position != null) {
            sb.append(" (workload ").append(position).append(')');
        }
        sb.append(": step ").append(step).append('/').append(steps);
        if (step > 1) {
            final long left = (now - startNanos) / (step - 1) * (steps - step + 1) / 1_000_000_000L;
            sb.append(String.format(Locale.ROOT, ", ETA %d:%02d", left / 60, left % 60));
        }
        return sb.append("  ").append(what).toString();
    }

    /** Removes the line, so the next output starts on a clean line. */
    public synchronized void clear() {
        if (!enabled || lastLength == 0) {
            return;
        }
        out.print("\r" + " ".repeat(lastLength) + "\r");
        out.flush();
        lastLength = 0;
    }
}
