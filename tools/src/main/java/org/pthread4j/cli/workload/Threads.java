package org.pthread4j.cli.workload;

/** Joining helper threads when a fixture closes. */
final class Threads {
    private Threads() {
    }

    /**
     * Waits for a thread to end, keeping the caller's interrupt status.
     *
     * @param t      the thread
     * @param millis how long to wait at most
     */
    static void join(final Thread t, final long millis) {
        boolean interrupted = false;
        final long end = System.nanoTime() + millis * 1_000_000L;
        while (t.isAlive() && System.nanoTime() - end < 0) {
            try {
                t.join(Math.max(1, (end - System.nanoTime()) / 1_000_000L));
            } catch (final InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
