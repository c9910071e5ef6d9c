package org.pthread4j.cli.workload;

import java.util.concurrent.locks.Lock;

/**
 * Seed 000's loop on a {@link Lock}: lock, unlock, count, until told to stop. Each lock runs it
 * through its own {@link Isolated} copy.
 */
final class JucLockLoop implements Stress.Body {
    private final Lock lock;

    JucLockLoop(final Lock lock) {
        this.lock = lock;
    }

    @Override
    public long run(final int index, final Stress.Stop stop) {
        long n = 0;
        while (!stop.stopped()) {
            lock.lock();
            lock.unlock();
            n++;
        }
        return n;
    }
}
