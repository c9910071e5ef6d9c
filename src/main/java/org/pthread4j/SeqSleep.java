package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

/**
 * Sleeping on a wake sequence: how the process-private {@link Mutex} and {@link RwLock} sleep
 * where the backend's {@link Futex#setBitWait set-bit-and-wait} is not atomic (the kernel,
 * whose wait compares one exact value).
 *
 * <p>The lock word changes at every lock and unlock of the running threads, so a kernel wait on
 * it is turned away almost every time: measured with seed 000's stress, 4 threads on 2 cores,
 * the linux backend: about 340,000 such waits a second, of which about 1,000 slept, and an
 * unlock's wake syscall for each one. Here sleepers wait instead on a word of the lock's own
 * that changes only when a wake is due:
 * <ul>
 * <li><b>Sleeper:</b> read the sequence; set bit 31 into the lock word while it is busy (if it
 *     is not busy, retry the lock); wait while the sequence still holds what was read.</li>
 * <li><b>Unlock</b> that finds bit 31, still holding the lock: take the bit out of the word
 *     ({@link #claim}: a CAS to the same value without it), <em>then</em> move the sequence,
 *     then release with a CAS, which fails if a sleeper set the bit again meanwhile (the unlock
 *     then claims and moves once more); then wake. Every step that touches the lock comes
 *     before the release, as POSIX's destroy-after-unlock requires.</li>
 * </ul>
 * No wake is lost. A sleeper read the sequence before it set the bit or saw it set, hence
 * before the claim that takes that bit out, hence before the move that follows the claim.
 * Either the move comes first, and the sleeper's wait returns at once, or the sleeper is asleep
 * in the kernel before the move, hence before the wake. The order of claim and move matters: a
 * move before the claim would leave the bit visible after the move, and a sleeper that then
 * read the moved sequence and saw the bit could sleep on a sequence no unlock moves again (a
 * two-thread handoff stress lost a wakeup that way within a second,
 * {@code MutexSeqSleepTest.twoThreadsHandingAMutexBackAndForthNeverLoseAWakeup}). A wait that
 * returns because the sequence moved counts as a wake taken: the caller re-arms the bit by the
 * bit rule (see {@link Mutex}). musl has no such word; process-shared locks keep musl's
 * protocol, and their sequence word stays zero.
 */
final class SeqSleep {
    private SeqSleep() {
    }

    /**
     * One sleep: read the sequence at {@code seq}, set {@code bit} 31 into the word at
     * {@code lock} while that word, bit aside, is at least {@code busy} (unsigned), and wait while
     * the sequence is unchanged.
     *
     * @return 0 after a wake or a move of the sequence (a wake taken: re-arm), EAGAIN when the word
     *     was not busy (retry; nothing taken), or the wait's ETIMEDOUT, EINTR, EINVAL
     */
    static int await(final Futex futex, final MemorySegment seg, final long lock, final long seq, final int busy,
                     final boolean priv, final int clock, final Timespec at, final boolean interruptible) {
        final int s = (int) Block.INT.getVolatile(seg, seq);
        int w = (int) Block.INT.getVolatile(seg, lock);
        for (;;) {
            if (Integer.compareUnsigned(w & Integer.MAX_VALUE, busy) < 0) {
                return Errno.EAGAIN;
            }
            if (w < 0) {
                break;
            }
            final int x = (int) Block.INT.compareAndExchange(seg, lock, w, w | Integer.MIN_VALUE);
            if (x == w) {
                break;
            }
            w = x;
        }
        final int e = futex.timedWait(seg, seq, s, priv, clock, at, interruptible);
        return e == Errno.EAGAIN ? 0 : e;
    }

    /**
     * The holder's first step of a release that clears bit 31: takes the bit out of the word at
     * {@code lock} (CAS from {@code w}, which has it, to {@code w} without it) and, if that
     * succeeded, moves the sequence.
     *
     * @return the CAS witness: {@code w} when claimed and moved, else the word found (retry)
     */
    static int claim(final MemorySegment seg, final long lock, final long seq, final int w) {
        final int x = (int) Block.INT.compareAndExchange(seg, lock, w, w & Integer.MAX_VALUE);
        if (x == w) {
            move(seg, seq);
        }
        return x;
    }

    /** Moves the sequence. */
    static void move(final MemorySegment seg, final long seq) {
        Block.INT.getAndAdd(seg, seq, 1);
    }

    /**
     * The one wake a sleeper passes on under the bit rule (leaving without the lock, or a reader
     * that got in while other readers sleep), on the word the sleepers wait on: the lock word at
     * {@code lock}, or, when {@code onSeq}, the sequence at {@code seq}, moved first so that a
     * thread on its way to sleep does not miss it. The caller is inside a lock call, so the lock
     * cannot have been destroyed.
     */
    static void passWake(final Futex futex, final MemorySegment seg, final long lock, final long seq,
                         final boolean onSeq, final boolean priv) {
        if (onSeq) {
            move(seg, seq);
            futex.wake(seg, seq, 1, priv);
        } else {
            futex.wake(seg, lock, 1, priv);
        }
    }

    /**
     * A woken thread that lost the race (bit rule, untimed waits), polling before it re-arms bit
     * 31: up to {@link Mutex#POLLS} timed waits of {@link Mutex#POLL_NANOS} on its sleep word,
     * without the bit, while {@code (lock word & mask) >= busy} (unsigned), each followed by an
     * attempt that records the bit for any other sleeper. See "A woken thread that loses the
     * race polls" in {@link Mutex}. Serves the mutex and the rwlock.
     *
     * @param onSeq      whether the sleepers wait on {@code seq} (the kernel backends)
     * @param waitersOff the waiter count, read to pass the wake on when interrupted
     * @param attempt    the caller's try, recording the bit while others are counted
     * @return the attempt's result that ended the polls, EBUSY when they ran out, or EINTR (the
     *     wake this thread took passed on)
     */
    static int poll(final Futex futex, final MemorySegment seg, final long lock, final long seq, final boolean onSeq,
                    final long waitersOff, final boolean priv, final int mask, final int busy,
                    final boolean interruptible, final java.util.function.IntSupplier attempt) {
        final long off = onSeq ? seq : lock;
        for (int k = 0; k < Mutex.POLLS; k++) {
            final int val = (int) Block.INT.getVolatile(seg, off);
            if (Integer.compareUnsigned((int) Block.INT.getVolatile(seg, lock) & mask, busy) >= 0) {
                final Timespec at = Timespec.ofNanos(Timespec.nowNanos(Timespec.CLOCK_MONOTONIC) + Mutex.POLL_NANOS);
                if (futex.timedWait(seg, off, val, priv, Timespec.CLOCK_MONOTONIC, at, interruptible) == Errno.EINTR) {
                    if ((int) Block.INT.getVolatile(seg, waitersOff) != 0) {
                        passWake(futex, seg, lock, seq, onSeq, priv);
                    }
                    return Errno.EINTR;
                }
            }
            final int r = attempt.getAsInt();
            if (r != Errno.EBUSY) {
                return r;
            }
        }
        return Errno.EBUSY;
    }
}
