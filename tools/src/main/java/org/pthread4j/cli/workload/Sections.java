package org.pthread4j.cli.workload;

/**
 * A lock as {@code bench latency} uses it: three kinds of critical section, so that a lock with
 * no separate lock and unlock calls ({@code synchronized}) is measured by the same code as the
 * others. The work inside a section is {@link #INSIDE} steps of {@link #steps} on a word the lock
 * guards.
 */
interface Sections {
    /** Steps of the multiply-add chain inside every critical section of the contention phase. */
    int INSIDE = 30;
    /** Steps a contending thread runs on its own word between two acquisitions. */
    int OUTSIDE = 60;

    /**
     * Reads the clock, takes the lock, reads the clock again, runs {@link #INSIDE} steps on the
     * guarded word and releases.
     *
     * @return how long the acquisition took, in nanoseconds
     */
    long timedSection();

    /**
     * Takes the lock, runs {@code whileHeld}, reads the clock and releases.
     *
     * @param whileHeld what to do while holding it
     * @return {@link System#nanoTime()} just before the release
     */
    long holdThenRelease(Runnable whileHeld);

    /**
     * Takes the lock, reads the clock and releases.
     *
     * @return {@link System#nanoTime()} just after the acquisition
     */
    long acquireAndStamp();

    /**
     * A dependent chain of 64-bit multiply-adds (Knuth's MMIX LCG): work the JIT cannot skip
     * that takes the same time on every call.
     *
     * @param x the value
     * @param n how many steps
     * @return the value after {@code n} steps
     */
    static long steps(final long x, final int n) {
        long v = x;
        for (int i = 0; i < n; i++) {
            v = v * 6364136223846793005L + 1442695040888963407L;
        }
        return v;
    }
}
