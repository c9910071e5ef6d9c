package org.pthread4j.cli.bench;

import java.io.PrintStream;

/**
 * The progress line on the terminal: which workload, which case, step k of n. It rewrites one
 * line of standard error in place and is silent when the JVM has no console (output piped or
 * redirected, CI), so logs stay clean.
 */
public final class Progress {
    private final PrintStream out;
    private final boolean enabled;
    private int lastLength;

    /**
     * @param out     where to draw the line (standard error)
     * @param enabled whether to draw it
     */
    public Progress(final PrintStream out, final boolean enabled) {
        this.out = out;
        this.enabled = enabled;
    }

    /** @return a progress line on standard error, enabled when the JVM has an interactive console */
    public static Progress forTerminal() {
        final java.io.Console console = System.console();
        return new Progress(System.err, console != null && console.isTerminal());
    }

    /** @return whether the line is drawn */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Shows a step.
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
        String line = "bench " + workload + ": step " + step + "/" + steps + "  " + what;
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
