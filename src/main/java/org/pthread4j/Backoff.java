package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

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
 *
 * <p><b>A holder that relocks at once.</b> A word seen free is looked at again {@link #LOOKS}
 * times, {@link #SETTLE} pauses apart (about 80 ns in all), before the spin ends: a lock released
 * for good stays free, one released by a thread that takes it back a few nanoseconds later (seed 000's
 * loop, or any holder with a short stretch between its unlock and its next lock) is busy again.
 * Taking the lock in that gap steals it from a running thread that wants it back at once; that
 * thread then spins and steals it back, and the two CPUs pass the lock's line between them on
 * every round. After {@link #RELOCKS} such relocks the spin ends, and the caller sleeps (or, for a
 * mutex, polls first; see {@link Mutex}): with that poll, seed 000's stress at 4 threads on 2 cores
 * went from 0.35-0.74x {@code ReentrantLock} to 1.01-1.02x on the parking backend, and from
 * 0.33-0.46x to 1.02-1.04x on the kernel ones. A caller in a handoff passes 0 relocks and takes
 * the first free word as musl's spin does: a condvar waiter's relock, and an rwlock reader.
 * {@value #RELOCKS_PROPERTY}{@code =0} ends every spin at the first free word.
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

    /** Property {@value}: {@link #RELOCKS}. */
    static final String RELOCKS_PROPERTY = "pthread4j.spin.relocks";

    /**
     * How many relocks (a word seen free, then busy again at one of the {@link #LOOKS}) end the
     * spin; 0: none is looked for, the spin ends at the first free word. Default 2.
     */
    static final int RELOCKS = Math.max(0, Integer.getInteger(RELOCKS_PROPERTY, 2));

    /** The looks at a word seen free that must all find it free before the spin ends on it. */
    static final int LOOKS = 2;

    /** Pauses before each of those looks. */
    static final int SETTLE = 4;

    /** The longest sleep of {@link #pollUncounted}, as a multiple of {@link Mutex#POLL_NANOS}. */
    static final int POLL_GROWTH = 8;

    private Backoff() {
    }

    /**
     * Spins while the word at {@code off} is nonzero and nobody sleeps, until it stays 0 or its
     * holder has relocked {@code relocks} times.
     *
     * @param seg        the primitive's segment
     * @param off        the word to see 0 in
     * @param waitersOff the waiter count that stops the spin when nonzero, or -1 for none
     * @param relocks    how many relocks end the spin ({@link #RELOCKS}), or 0 to end it at the
     *                   first free word (a reader, who shares the lock with other readers and
     *                   steals it from nobody)
     * @return true when the spin ended on relocks (the holder takes the lock back at once), false
     *     when it ended on a free word, a sleeper, or its budget
     */
    static boolean whileNonzero(final MemorySegment seg, final long off, final long waitersOff, final int relocks) {
        int seen = 0;
        for (int left = PAUSES, step = 1; left > 0 && !asleep(seg, waitersOff); left -= step, step = pause(step)) {
            if (get(seg, off) == 0) {
                if (relocks == 0 || staysFree(seg, off)) {
                    return false;
                }
                if (++seen == relocks) {
                    return true;
                }
                left -= LOOKS * SETTLE;
            }
        }
        return false;
    }

    /** Whether a word seen free is still free at {@link #LOOKS} more looks, {@link #SETTLE} pauses apart. */
    private static boolean staysFree(final MemorySegment seg, final long off) {
        for (int i = 0; i < LOOKS; i++) {
            pause(SETTLE);
            if (get(seg, off) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The poll of a locker whose spin ended on relocks, before its first sleep: up to
     * {@link Mutex#POLLS} plain sleeps, the first of {@link Mutex#POLL_NANOS} and each twice the
     * one before up to {@link #POLL_GROWTH} times that (50, 100, 200, 400, 400 ... µs by
     * default: a lock that stays busy is looked at less often, and the wait added to one that
     * comes free stays under the wait so far), each followed by the caller's attempt, which
     * records nothing (no bit 31). The poller is neither counted in the waiter
     * count nor on any futex queue and sets no bit, so the holder's unlocks owe it no wake (under
     * musl's rule an unlock wakes while anyone is counted) and it takes no wake meant for a
     * sleeper, a musl C process's among them: to the protocol it is a thread that has not yet
     * reached the sleeping loop, as one still spinning in musl's {@code a_spin}, and having taken
     * no wake it owes none. Serves the mutex and the rwlock's writers.
     *
     * @param blocker       what the parked thread waits for, as thread dumps show it (the lock)
     * @param interruptible whether an interrupt ends the poll
     * @param attempt       the caller's try: 0 or another result that ends the poll, or EBUSY
     * @return the attempt's result that ended the polls, EBUSY when they ran out, or EINTR
     *     (interruptible, interrupted)
     */
    static int pollUncounted(final Object blocker, final boolean interruptible, final IntSupplier attempt) {
        final long longest = POLL_GROWTH * Mutex.POLL_NANOS;
        long nanos = Mutex.POLL_NANOS;
        for (int k = 0; k < Mutex.POLLS; k++) {
            LockSupport.parkNanos(blocker, nanos);
            nanos = Math.min(nanos << 1, longest);
            if (interruptible && Thread.currentThread().isInterrupted()) {
                return Errno.EINTR;
            }
            final int r = attempt.getAsInt();
            if (r != Errno.EBUSY) {
                return r;
            }
        }
        return Errno.EBUSY;
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
