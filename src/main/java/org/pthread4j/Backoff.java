package org.pthread4j;

import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

/**
 * The bounded spin before a sleep, shared by the mutex, the rwlock, the semaphore and a requeued
 * condvar waiter's relock: the caller's word is tested, and while it stays busy and nobody
 * sleeps the spinner pauses 1, 2, 4 ... {@link Thread#onSpinWait()}s between
 * tests, the step doubling up to {@link #MAX_STEP}, at most {@link #PAUSES} pauses in all. Then
 * the caller sleeps.
 *
 * <p>musl spins 100 times with one pause between tests ({@code a_spin} in
 * {@code pthread_mutex_timedlock.c}, {@code pthread_rwlock_timedrdlock.c}, {@code sem_timedwait.c}).
 * Testing the word at every pause keeps pulling its cache line from the holder's CPU, and the
 * holder's next lock or unlock waits for it to come back: in seed 000's stress at 2 threads each
 * {@code lock; unlock} loop then loses the lock after a few rounds. Testing less often as the
 * wait grows (test-and-test-and-set with exponential backoff, as in Anderson's 1990 spin-lock
 * study) leaves the holder running on a line of its own. The bound stays short: with
 * {@code onSpinWait} at about 21 ns on the reference machine, the longest gap between tests is
 * about 1.3 µs and the whole spin about 21 µs, under the 30-40 µs a sleep and a cross-CPU wake
 * cost there.
 */
final class Backoff {
    /** Property {@value}: {@link #PAUSES}. */
    static final String PAUSES_PROPERTY = "pthread4j.spin.pauses";
    /** Property {@value}: {@link #MAX_STEP}. */
    static final String MAX_STEP_PROPERTY = "pthread4j.spin.maxStep";

    /** The most {@link Thread#onSpinWait()} calls one spin makes before the caller sleeps (0: no spin). */
    static final int PAUSES = Math.max(0, Integer.getInteger(PAUSES_PROPERTY, 1000));

    /** The most pauses between two tests of the word (1: musl's spin, a test after every pause). */
    static final int MAX_STEP = Math.max(1, Integer.getInteger(MAX_STEP_PROPERTY, 64));

    private Backoff() {
    }

    /**
     * Spins while the word at {@code off} is nonzero and nobody sleeps.
     *
     * @param seg        the primitive's segment
     * @param off        the word to see 0 in
     * @param waitersOff the waiter count that stops the spin when nonzero, or -1 for none
     */
    static void whileNonzero(final MemorySegment seg, final long off, final long waitersOff) {
        for (int left = PAUSES, step = 1; left > 0 && get(seg, off) != 0 && !asleep(seg, waitersOff);
             left -= step, step = pause(step)) {
        }
    }

    /**
     * Spins while {@code word & mask} is below {@code n} and nobody sleeps.
     *
     * @param seg        the primitive's segment
     * @param off        the word
     * @param mask       the bits that hold the count
     * @param n          the count to wait for
     * @param waitersOff the waiter count that stops the spin when nonzero
     */
    static void whileBelow(final MemorySegment seg, final long off, final int mask, final int n, final long waitersOff) {
        for (int left = PAUSES, step = 1; left > 0 && (get(seg, off) & mask) < n && !asleep(seg, waitersOff);
             left -= step, step = pause(step)) {
        }
    }

    /**
     * Pauses {@code step} times.
     *
     * @param step the pauses to make, at least 1
     * @return the next step: twice this one, at most {@link #MAX_STEP}
     */
    static int pause(final int step) {
        for (int i = 0; i < step; i++) {
            Thread.onSpinWait();
        }
        return step < MAX_STEP ? Math.min(step << 1, MAX_STEP) : step;
    }

    private static boolean asleep(final MemorySegment seg, final long waitersOff) {
        return waitersOff >= 0 && get(seg, waitersOff) != 0;
    }

    private static int get(final MemorySegment seg, final long off) {
        return (int) Block.INT.getVolatile(seg, off);
    }
}
