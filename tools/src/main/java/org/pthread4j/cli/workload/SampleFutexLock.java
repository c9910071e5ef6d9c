package org.pthread4j.cli.workload;

import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Memory;

/**
 * The benchmark's "seed-000 lock": {@link org.pthread4j.futex.SampleFutexLock} (the 0/1/2 lock
 * of {@code docs/01-futex.md}) on a word of its own, taken with a plain wait or with set-wait.
 */
final class SampleFutexLock implements StressLock {
    private final boolean setWait;
    private final Memory memory;
    private final org.pthread4j.futex.SampleFutexLock lock;

    SampleFutexLock(final Futex futex, final boolean setWait, final boolean priv) {
        this.setWait = setWait;
        this.memory = Memory.allocate(64);
        this.lock = new org.pthread4j.futex.SampleFutexLock(futex, memory.segment(), 0L, priv);
    }

    @Override
    public void lockUnlock() {
        if (setWait) {
            lock.lockSetWait();
        } else {
            lock.lock();
        }
        lock.unlock();
    }

    @Override
    public void close() {
        memory.close();
    }
}
