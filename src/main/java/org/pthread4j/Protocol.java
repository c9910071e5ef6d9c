package org.pthread4j;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Timespec;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

/**
 * How the threads of one lock sleep and wake: the part of the slow paths of {@link Mutex} and
 * {@link RwLock} (and of a private {@link Cond}'s waits) that depends on who serves the lock's
 * futex word. One object per lock, bound to its lock word and its waiter count, chosen once by
 * {@link #of} when the lock is made; the lock's own code (trylock, the sleeping loop, unlock)
 * is written once, as musl's, and calls it at the five points where a sleep or a wake happens.
 *
 * <h2>Implementation overview</h2>
 *
 * <p>Two protocols exist:
 * <ul>
 * <li>{@link MuslProtocol}, musl's, for every word the kernel serves: process-shared and robust
 *     words, and private words on the kernel backends (and on any backend whose
 *     set-bit-and-wait is not one atomic step). A C process linked with musl may share such a
 *     word, so nothing but musl's steps may touch it: spin 100 times while nobody sleeps;
 *     count in, CAS bit 31 into the value seen, wait on exactly that value, count out; an
 *     unlock wakes when the count it read before releasing was nonzero or the word it
 *     released had bit 31.</li>
 * <li>{@link ParkingProtocol}, for private words on the parking backend, where the JVM's own
 *     futex table can set bit 31 and queue the sleeper in one step and let a newcomer join the
 *     sleepers already queued ({@link Futex#setBitWait}). It wakes by bit 31 alone (the bit
 *     rule), so that an unlock costs one atomic while the woken thread is on its way, and it
 *     spins for a time rather than a count.</li>
 * <li>{@link FairProtocol}, for a lock made fair, private or process-shared, on every backend: a
 *     ticket lock on three more words of the lock, FIFO, that does not run the sleeping loop
 *     below (its lock calls {@link FairProtocol#acquire} and its unlock
 *     {@link FairProtocol#release}).</li>
 * </ul>
 * The first two keep the one invariant a lock's correctness rests on: a thread sleeps only on a word
 * whose next release wakes a sleeper. Under musl's protocol the sleeper makes sure of it
 * itself (bit 31 is in the exact value it waits on, and its count makes every unlock wake);
 * under the bit rule it is a chain: every thread that takes a wake either acquires, and then
 * records bit 31 with its acquisition while others are counted ({@link #mark}), or sleeps again
 * with the bit, or, leaving without the lock, passes a wake on ({@link #leave}).
 *
 * <p>The call points, in the order a lock's slow path meets them: {@link #spin} before the
 * sleeping loop; {@link #mark} with every acquisition attempt of the loop; {@link #sleep} for
 * one sleep, which passes a wake it owes on ({@link #passWake}) when it gives up (timeout, interrupt, bad
 * deadline); and, in unlock, {@link #waiters} read before the releasing atomic and {@link #wake}
 * after it, of {@link #wakeCount} sleepers.
 */
abstract sealed class Protocol permits MuslProtocol, ParkingProtocol, FairProtocol {
    /** Bit 31 of a lock word: a thread may sleep on it ({@code FUTEX_WAITERS}). */
    static final int WAITERS_BIT = Integer.MIN_VALUE;

    /** The backend the word sleeps on. */
    final Futex futex;
    /** musl's {@code priv}: whether futex calls on the word carry the private flag. */
    final boolean priv;
    /** The lock's segment. */
    final MemorySegment seg;
    /** The lock word's offset. */
    final long word;
    /** The waiter count's offset. */
    final long waiters;

    Protocol(final Futex futex, final boolean priv, final MemorySegment seg, final long word, final long waiters) {
        this.futex = futex;
        this.priv = priv;
        this.seg = seg;
        this.word = word;
        this.waiters = waiters;
    }

    /**
     * The protocol of a lock word: the parking protocol for a private word on a backend whose
     * set-bit-and-wait is atomic ({@link Futex#atomicSetBitWait()}: the parking backend), else
     * musl's.
     *
     * @param futex   the backend the word sleeps on
     * @param priv    whether the word is process-private (and not robust)
     * @param seg     the lock's segment
     * @param word    the lock word's offset
     * @param waiters the waiter count's offset
     * @param tuning  the parking protocol's bounds
     * @return the protocol
     */
    static Protocol of(final Futex futex, final boolean priv, final MemorySegment seg, final long word,
                       final long waiters, final Tuning tuning) {
        return parks(futex, priv) ? new ParkingProtocol(futex, seg, word, waiters, tuning)
            : new MuslProtocol(futex, priv, seg, word, waiters, tuning);
    }

    /**
     * {@return whether a private word on this backend runs the parking protocol}
     *
     * @param futex the backend
     * @param priv  whether the word is process-private
     */
    static boolean parks(final Futex futex, final boolean priv) {
        return priv && futex.atomicSetBitWait();
    }

    /** {@return which protocol this is} */
    abstract SleepProtocol kind();

    /**
     * The spin between a lock's first failed attempt and its sleeping loop.
     *
     * @param busy   the least value of the word, bit 31 aside, that keeps the caller out (1: any
     *               holder; a reader is kept out only by a writer)
     * @param yields whether the caller gives way to a holder that takes the lock back at once (a
     *               locker or a writer); false for a caller that takes the first free word (a
     *               reader, who shares the lock, and a condvar waiter relocking, who meets a
     *               signaler about to release)
     * @return whether the caller lost its turn to a running holder that took the lock back (the
     *     parking protocol's spin; musl's never says so): the sleeping loop then starts as after
     *     a sleep
     */
    abstract boolean spin(int busy, boolean yields);

    /**
     * The bit an acquisition of the sleeping loop records with its CAS.
     *
     * @param turns how many turns the caller lost in this lock call: sleeps it came back from
     *              (it may have taken a wake), and a spin that saw the holder take the lock back
     * @return {@link #WAITERS_BIT} or 0
     */
    abstract int mark(int turns);

    /**
     * One sleep of a thread that saw the lock word hold {@code seen}, busy for it: counts the
     * thread in the waiter count for the length of the sleep.
     *
     * @param seen          the word as the caller saw it
     * @param busy          the least value of the word, bit 31 aside, that keeps the caller
     *                      waiting (1: any holder; a reader waits out only a writer)
     * @param turns         how many turns the caller lost in this lock call (see {@link #mark})
     * @param clock         the deadline's clock
     * @param at            the absolute deadline, or {@code null}
     * @param interruptible whether an interrupt ends the sleep
     * @return 0 (woken, perhaps spuriously, or the end of a bounded sleep: retry, having lost a
     *     turn), EAGAIN (did not sleep: retry), or ETIMEDOUT, EINTR, EINVAL (give up; under the
     *     parking protocol the thread has passed on a wake it owed, {@link #passWake}: one it took
     *     on an earlier turn and did not hand on by sleeping again with bit 31)
     */
    abstract int sleep(int seen, int busy, int turns, int clock, Timespec at, boolean interruptible);

    /**
     * Passes a wake on: a thread that gives up (timeout, interrupt, bad deadline) after it took a
     * wake it has not handed on; and an rwlock reader that got in after a lost turn (the readers'
     * chain). Nothing under musl's protocol.
     */
    abstract void passWake();

    /**
     * {@return how many sleepers an unlock that frees the lock wakes, given musl's {@code cnt}
     *     (0x7fffffff, all, after a writer; 1 after the last reader)}
     *
     * @param cnt musl's count
     */
    abstract int wakeCount(int cnt);

    /**
     * {@return the waiter count an unlock reads before its releasing atomic: it wakes when this
     *     is nonzero or the word it released had bit 31}
     */
    abstract int waiters();

    /**
     * The wake of an unlock, after the releasing atomic: touches nothing of the lock's memory.
     *
     * @param n how many to wake; negative for all
     */
    final void wake(final int n) {
        futex.wake(seg, word, n, priv);
    }

    /** Adds {@code d} to the waiter count. */
    final void count(final int d) {
        Block.INT.getAndAdd(seg, waiters, d);
    }

    /** {@return the waiter count} */
    final int counted() {
        return (int) Block.INT.getVolatile(seg, waiters);
    }

    @Override
    public String toString() {
        return kind() + " on " + futex.name();
    }
}
