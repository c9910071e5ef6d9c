package org.pthread4j;

import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

/**
 * The spins before a sleep shared by several primitives: musl's, a fixed count of pauses with a
 * look at the word after each ({@code a_spin}); the semaphore's, which looks after 1, 2, 4 ... up
 * to {@link Tuning#MAX_STEP} pauses and ends after a time (the parking protocol's spin, which also
 * watches for relocks, is {@link ParkingProtocol}'s own); and a condvar waiter's, on its own word. Looking less
 * often as the wait grows (test-and-test-and-set with exponential backoff) leaves the word's
 * cache line with the CPU of the thread that holds the lock; the time bound keeps the spin the
 * same length whatever a pause costs on the machine.
 *
 * <p>Every spin runs only while nobody sleeps on the word (its waiter count is 0): a newcomer
 * does not spin past threads already queued, as in musl.
 */
final class Spin {
    private Spin() {
    }

    /**
     * musl's spin: {@code while (spins-- && *word && !*waiters) a_spin();}.
     *
     * @param seg     the primitive's segment
     * @param word    the lock word
     * @param waiters the waiter count
     */
    static void musl(final MemorySegment seg, final long word, final long waiters) {
        for (int spins = Tuning.MUSL_SPINS; spins > 0 && get(seg, word) != 0 && get(seg, waiters) == 0; spins--) {
            Thread.onSpinWait();
        }
    }

    /**
     * The semaphore's bounded spin: while {@code word & mask} is below {@code n} and the waiter
     * count 0, for at most {@code nanos}.
     *
     * @param seg     the primitive's segment
     * @param word    the word
     * @param mask    the bits that hold the count
     * @param n       the count to wait for
     * @param waiters the waiter count
     * @param nanos   the bound
     */
    static void whileBelow(final MemorySegment seg, final long word, final int mask, final int n, final long waiters,
                           final long nanos) {
        final long start = System.nanoTime();
        for (int step = 1; (get(seg, word) & mask) < n && get(seg, waiters) == 0 && System.nanoTime() - start < nanos;
             step = pause(step)) {
        }
    }

    /**
     * Spins while a word of the caller's own holds {@code val}, for at most {@code nanos},
     * looking after every pause: nobody else reads the word, so looking costs nobody a cache
     * line, and the caller sees a change at once.
     *
     * @param seg   the segment
     * @param off   the word
     * @param val   the value to wait out
     * @param nanos the bound
     */
    static void whileEqual(final MemorySegment seg, final long off, final int val, final long nanos) {
        final long start = System.nanoTime();
        for (int spins = 1; get(seg, off) == val; spins++) {
            if ((spins & 7) == 0 && System.nanoTime() - start >= nanos) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Pauses {@code step} times.
     *
     * @param step the pauses to make, at least 1
     * @return the next step: twice this one, at most {@link Tuning#MAX_STEP}
     */
    private static int pause(final int step) {
        for (int i = 0; i < step; i++) {
            Thread.onSpinWait();
        }
        return Math.min(step << 1, Tuning.MAX_STEP);
    }

    private static int get(final MemorySegment seg, final long off) {
        return (int) Block.INT.getVolatile(seg, off);
    }
}
