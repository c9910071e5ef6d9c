package org.pthread4j.cli.workload;

/**
 * Seed 000's loop on a {@link StressLock}: take and release, count, until told to stop. Each
 * lock runs it through its own {@link Isolated} copy.
 */
final class LockLoop implements Stress.Body {
    private final StressLock lock;

    LockLoop(final StressLock lock) {
        this.lock = lock;
    }

    @Override
    public long run(final int index, final Stress.Stop stop) {
        long n = 0;
        while (!stop.stopped()) {
            lock.lockUnlock();
            n++;
        }
        return n;
    }
}
