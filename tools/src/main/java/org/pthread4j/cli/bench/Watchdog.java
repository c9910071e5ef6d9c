package org.pthread4j.cli.bench;

import java.io.PrintWriter;
import java.util.Map;

/**
 * Ends the process when a benchmark step hangs (a lost wakeup in an implementation under
 * test would otherwise hang the run forever): it prints what was running and every thread's
 * stack, then halts with exit status 3.
 */
final class Watchdog implements AutoCloseable {
    /** Exit status after a hang. */
    static final int HUNG = 3;

    private final PrintWriter err;
    private final Thread thread;
    private volatile String what;
    private volatile long deadline;
    private volatile boolean closed;

    Watchdog(final PrintWriter err) {
        this.err = err;
        this.thread = Thread.ofPlatform().daemon().name("bench-watchdog").unstarted(this::watch);
        thread.start();
    }

    /** Starts watching a step that must end within {@code timeoutNanos}. */
    void arm(final String step, final long timeoutNanos) {
        this.what = step;
        this.deadline = System.nanoTime() + timeoutNanos;
    }

    /** Stops watching. */
    void disarm() {
        this.what = null;
    }

    private void watch() {
        while (!closed) {
            try {
                Thread.sleep(500);
            } catch (final InterruptedException e) {
                return;
            }
            final String step = what;
            if (step != null && System.nanoTime() - deadline > 0 && step.equals(what)) {
                err.println();
                err.println("bench: " + step + " did not finish in time; it is probably stuck. Threads:");
                for (final Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                    err.println("  " + e.getKey().getName() + " " + e.getKey().getState());
                    final StackTraceElement[] st = e.getValue();
                    for (int i = 0; i < Math.min(st.length, 12); i++) {
                        err.println("      at " + st[i]);
                    }
                }
                err.flush();
                Runtime.getRuntime().halt(HUNG);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
