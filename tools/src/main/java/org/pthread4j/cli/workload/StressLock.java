package org.pthread4j.cli.workload;

/**
 * A lock as the lock stress sees it: one call takes and releases it. Implementations wrap a
 * {@code ReentrantLock}, a monitor, seed 000's futex lock, and (as they arrive) the library's
 * mutexes.
 */
public interface StressLock extends AutoCloseable {
    /** Takes the lock and releases it at once (an empty critical section, as in seed 000). */
    void lockUnlock();

    /** Frees the lock's memory; by default nothing. */
    @Override
    default void close() {
    }

    /**
     * How to make a lock of one kind for one run.
     */
    @FunctionalInterface
    interface Maker {
        /**
         * @return a new, unlocked lock
         * @throws Exception when it cannot be made here
         */
        StressLock make() throws Exception;
    }
}
