package org.pthread4j.futex;


import java.lang.foreign.MemorySegment;

/**
 * The futex operations every primitive sleeps and wakes through, on a 32-bit word given as
 * (segment, byte offset). The primitive says whether the word is private to this process
 * ({@code priv}); a backend never guesses it from the address (musl's rule,
 * {@code docs/sources.md}, "musl: the futex calls and the private flag").
 *
 * <p>Results: waits return {@code 0} (woken, perhaps spuriously: callers re-check their word),
 * {@link org.pthread4j.futex.Errno#EAGAIN} (the word did not hold {@code val}),
 * {@link org.pthread4j.futex.Errno#ETIMEDOUT}, {@link org.pthread4j.futex.Errno#EINTR} (interruptible waits
 * only; the thread's interrupt status is kept) or {@link org.pthread4j.futex.Errno#EINVAL} (a bad
 * deadline or clock, or a word this backend cannot serve). Wakes and requeues return how many
 * waiters they woke or moved, or a negated errno.
 *
 * <p>The one guarantee everything rests on: a wait compares the word with {@code val} and
 * enqueues the caller atomically with respect to every wake and requeue of that word, so a
 * waker that changes the word and then wakes can never miss a waiter that saw the old value.
 *
 * <p>A wake or requeue never reads the word: it may be issued on memory that was closed a
 * moment ago (an unlock followed by a destroy) and is then harmless.
 *
 * <p>See {@code docs/01-futex.md}: the words, the states, the races and the tests that prove them.
 */
public interface Futex {
    /**
     * Sleeps while the word holds {@code val}: untimed and not interruptible (an interrupt is
     * remembered and left set when this returns).
     *
     * @param seg  the segment holding the word
     * @param off  the word's byte offset, a multiple of 4
     * @param val  the value the caller saw
     * @param priv whether the word is process-private
     * @return 0 or EAGAIN
     */
    default int wait(final MemorySegment seg, final long off, final int val, final boolean priv) {
        return timedWait(seg, off, val, priv, Timespec.CLOCK_MONOTONIC, null, false);
    }

    /**
     * Sleeps while the word holds {@code val}, until woken, the deadline, or (if
     * {@code interruptible}) an interrupt.
     *
     * @param seg           the segment holding the word
     * @param off           the word's byte offset
     * @param val           the value the caller saw
     * @param priv          whether the word is process-private
     * @param clock         {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}
     * @param deadline      absolute deadline on {@code clock}, or {@code null} for none
     * @param interruptible whether {@link Thread#interrupt()} ends the wait with EINTR
     * @return 0, EAGAIN, ETIMEDOUT, EINTR or EINVAL
     */
    int timedWait(MemorySegment seg, long off, int val, boolean priv, int clock, Timespec deadline,
                  boolean interruptible);

    /**
     * Wakes up to {@code n} waiters of the word.
     *
     * @param seg  the segment holding the word
     * @param off  the word's byte offset
     * @param n    how many; negative means all
     * @param priv whether the word is process-private
     * @return how many were woken, or a negated errno
     */
    int wake(MemorySegment seg, long off, int n, boolean priv);

    /**
     * Wakes up to {@code nWake} waiters of the first word and moves up to {@code nRequeue} of
     * the rest, still asleep, to wait on the second word ({@code FUTEX_REQUEUE}).
     *
     * @param seg      segment of the word waited on
     * @param off      its offset
     * @param nWake    how many to wake
     * @param nRequeue how many to move
     * @param seg2     segment of the target word
     * @param off2     its offset
     * @param priv     whether both words are process-private
     * @return woken plus moved, or a negated errno
     */
    int requeue(MemorySegment seg, long off, int nWake, int nRequeue, MemorySegment seg2, long off2, boolean priv);

    /**
     * {@link #requeue} that first checks, atomically with the move, that the first word still
     * holds {@code val} ({@code FUTEX_CMP_REQUEUE}).
     *
     * @param seg      segment of the word waited on
     * @param off      its offset
     * @param nWake    how many to wake
     * @param nRequeue how many to move
     * @param seg2     segment of the target word
     * @param off2     its offset
     * @param val      the value the first word must hold
     * @param priv     whether both words are process-private
     * @return woken plus moved, {@code -EAGAIN} when the word changed, or a negated errno
     */
    int cmpRequeue(MemorySegment seg, long off, int nWake, int nRequeue, MemorySegment seg2, long off2, int val,
                   boolean priv);

    /**
     * Set-and-wait (seed 000's {@code FUTEX_SET_WAIT}): if the word holds {@code val}, set it to
     * {@code val2} and sleep, atomically with respect to wakers; if it already holds
     * {@code val2}, sleep. A backend without the atomic operation composes it from a CAS and a
     * wait (the window the seed closes is then open, but the result is still correct).
     *
     * @param seg           the segment holding the word
     * @param off           the word's offset
     * @param val           the value to replace
     * @param val2          the value to set and sleep on
     * @param priv          whether the word is process-private
     * @param clock         clock of the deadline
     * @param deadline      absolute deadline, or {@code null}
     * @param interruptible whether an interrupt ends the wait
     * @return 0, EAGAIN (the word held neither value), ETIMEDOUT, EINTR or EINVAL
     */
    default int setWait(final MemorySegment seg, final long off, final int val, final int val2, final boolean priv,
                        final int clock, final Timespec deadline, final boolean interruptible) {
        final int seen = (int) org.pthread4j.memory.Block.INT.compareAndExchange(seg, off, val, val2);
        if (seen != val && seen != val2) {
            return org.pthread4j.futex.Errno.EAGAIN;
        }
        return timedWait(seg, off, val2, priv, clock, deadline, interruptible);
    }

    /**
     * Set-bit-and-wait: seed 000's {@code FUTEX_SET_WAIT} for a lock word that changes while
     * it stays busy. If the word, {@code bit} aside, is at least {@code busy} (unsigned), set
     * {@code bit} in it (whatever its other bits hold by then) and sleep, atomically with
     * respect to wakers; otherwise return EAGAIN at once. The sleep is not turned away because
     * the holder changed or the word moved between two busy values.
     *
     * <p>With {@code join}, a caller that finds other threads already asleep on the word sleeps
     * behind them whatever the word holds, and leaves it untouched: the lock's protocol must
     * then guarantee that while any sleeper is counted, one of them is woken after another
     * (the parking protocol's wake chain: a woken thread records the bit when it acquires while
     * others are counted, or sleeps again). Only a thread that has not taken a wake may join.
     *
     * <p>A backend without the atomic operation (the kernel) composes it from a read, a CAS
     * and a wait on the value set, which returns EAGAIN when the word moves before the sleep,
     * and ignores {@code join}: it cannot see who sleeps. Such a backend says so through
     * {@link #atomicSetBitWait()}, and the locks then run musl's protocol on it and do not call
     * this.
     *
     * @param seg           the segment holding the word
     * @param off           the word's offset
     * @param bit           the waiters bit to set
     * @param busy          the least value, {@code bit} aside, that keeps the caller waiting
     * @param join          whether to sleep behind threads already asleep on the word
     * @param priv          whether the word is process-private
     * @param clock         clock of the deadline
     * @param deadline      absolute deadline, or {@code null}
     * @param interruptible whether an interrupt ends the wait
     * @return 0, EAGAIN (the word was not busy, or moved before the sleep), ETIMEDOUT, EINTR or EINVAL
     */
    default int setBitWait(final MemorySegment seg, final long off, final int bit, final int busy, final boolean join,
                           final boolean priv, final int clock, final Timespec deadline, final boolean interruptible) {
        final int seen = (int) org.pthread4j.memory.Block.INT.getVolatile(seg, off);
        if (Integer.compareUnsigned(seen & ~bit, busy) < 0) {
            return org.pthread4j.futex.Errno.EAGAIN;
        }
        return setWait(seg, off, seen, seen | bit, priv, clock, deadline, interruptible);
    }

    /**
     * Whether {@link #setBitWait} is one atomic step here: the check, the setting of the bit and
     * the sleep cannot be separated by a change of the word, and {@code join} is honoured. A
     * private lock runs the parking protocol, which sleeps by {@link #setBitWait}, only where this
     * is true, and musl's protocol elsewhere (see {@link org.pthread4j.SleepProtocol}).
     *
     * @return true for the parking backend; false (the default) for backends that compose the
     *     call from a read, a CAS and an exact-value wait
     */
    default boolean atomicSetBitWait() {
        return false;
    }

    /**
     * Swap (seed 003's {@code FUTEX_SWAP}): wake one waiter of the second word and sleep on the
     * first while it holds {@code val}, in one call. A backend without the operation issues a
     * wake and then a wait.
     *
     * @param seg      the word to sleep on
     * @param off      its offset
     * @param val      the value to sleep on
     * @param wakeSeg  the word whose waiter to wake
     * @param wakeOff  its offset
     * @param priv     whether both words are process-private
     * @return the wait's result (0, EAGAIN, EINVAL)
     */
    default int swap(final MemorySegment seg, final long off, final int val, final MemorySegment wakeSeg,
                     final long wakeOff, final boolean priv) {
        final int r = wake(wakeSeg, wakeOff, 1, priv);
        if (r < 0) {
            return -r;
        }
        return wait(seg, off, val, priv);
    }

    /** {@return whether this backend serves shared (cross-process) words} */
    boolean supportsShared();

    /** {@return a short name for tables and messages ({@code "linux"}, {@code "parking"})} */
    String name();
}
