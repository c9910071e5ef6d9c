package org.pthread4j.cli.workload;

import java.util.concurrent.locks.Lock;

/** {@link Sections} on a {@link Lock}; each measured lock has its own {@link Isolated} copy. */
final class LockSections implements Sections {
    private final Lock lock;
    private long word = 1;

    LockSections(final Lock lock) {
        this.lock = lock;
    }

    @Override
    public long timedSection() {
        final long t0 = System.nanoTime();
        lock.lock();
        try {
            final long t1 = System.nanoTime();
            word = Sections.steps(word, INSIDE);
            return t1 - t0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long holdThenRelease(final Runnable whileHeld) {
        lock.lock();
        try {
            whileHeld.run();
            return System.nanoTime();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long acquireAndStamp() {
        lock.lock();
        try {
            return System.nanoTime();
        } finally {
            lock.unlock();
        }
    }
}
