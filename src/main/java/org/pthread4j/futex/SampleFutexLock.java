package org.pthread4j.futex;

import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

/**
 * The smallest futex lock: one 32-bit word, 0 unlocked, 1 locked, 2 locked and someone may sleep
 * on it. It is the first lock of {@code docs/01-futex.md} and the benchmark's "seed-000 lock":
 * {@link #lock()} is the {@code futex_wait_lock} of the FUTEX_SET_WAIT proposal (2009, linked
 * from {@code docs/sources.md}), {@link #lockSetWait()} its {@code futex_setwait_lock},
 * {@link #unlock()} its {@code futex_cmpxchg_unlock}. musl uses the same three states for the
 * small internal locks of its condition variable ({@code lock} and {@code unlock} at the top of
 * {@code src/thread/pthread_cond_timedwait.c}).
 *
 * <p>It is a teaching and benchmarking lock, not a library primitive: not reentrant, no owner,
 * no timeout, no interrupt. The word is given by the caller; the lock never allocates.
 *
 * <p>The rule that makes it correct is the futex's: {@code wait(word, 2)} sleeps only if the
 * word still holds 2, checked and queued atomically with respect to every {@code wake} of the
 * word. An unlock that changed the word to 0 before it woke can therefore never miss a thread
 * that saw 2.
 */
public final class SampleFutexLock {
    private final Futex futex;
    private final MemorySegment seg;
    private final long off;
    private final boolean priv;

    /**
     * A lock on the word at {@code off} of {@code seg}, which must hold 0 (unlocked).
     *
     * @param futex the backend to sleep on
     * @param seg   the word's segment
     * @param off   the word's byte offset, a multiple of 4
     * @param priv  whether the word is private to this process
     * @throws IllegalArgumentException for a misaligned or out-of-bounds offset
     * @throws NullPointerException     for a null backend or segment
     */
    public SampleFutexLock(final Futex futex, final MemorySegment seg, final long off, final boolean priv) {
        if (futex == null || seg == null) {
            throw new NullPointerException("futex and seg are required");
        }
        if (off < 0 || (off & 3) != 0 || off + 4 > seg.byteSize()) {
            throw new IllegalArgumentException("offset " + off + " is not an aligned word of a " + seg.byteSize()
                + "-byte segment");
        }
        this.futex = futex;
        this.seg = seg;
        this.off = off;
        this.priv = priv;
    }

    private int cas(final int expect, final int update) {
        return (int) Block.INT.compareAndExchange(seg, off, expect, update);
    }

    private int get() {
        return (int) Block.INT.getVolatile(seg, off);
    }

    /** Takes the lock: a CAS 0 -> 1, or say "someone sleeps" (2) and sleep until the word is 0. */
    public void lock() {
        int status = get();
        if (status == 0) {
            status = cas(0, 1);              // uncontended: done, no futex call
        }
        while (status != 0) {
            if (status == 1) {
                status = cas(1, 2);          // tell the holder that someone will sleep
            }
            if (status != 0) {
                check(futex.wait(seg, off, 2, priv)); // sleeps only if the word is still 2
                status = get();
            }
            if (status == 0) {
                status = cas(0, 2);          // take it as 2: another thread may still sleep
            }
        }
    }

    /**
     * Takes the lock with {@link Futex#setWait}: the backend moves the word from 1 to 2 and
     * sleeps in one step (atomic on the parking backend; a CAS then a wait elsewhere), and a
     * thread that absorbed a wake takes the lock as 2 so that the next sleeper is woken too.
     */
    public void lockSetWait() {
        int status = get();
        if (status == 0) {
            status = cas(0, 1);
        }
        if (status != 0) {
            int desired = 1;
            do {
                final int r = futex.setWait(seg, off, 1, 2, priv, Timespec.CLOCK_MONOTONIC, null, false);
                check(r);
                if (r == 0) {
                    desired = 2; // we absorbed a wakeup: make sure to unblock the next thread
                }
                status = get();
                if (status == 0) {
                    status = cas(0, desired);
                }
            } while (status != 0);
        }
    }

    /** Releases the lock: 1 -> 0 needs nothing more; 2 -> 0 wakes one sleeper. */
    public void unlock() {
        int status = get();
        if (status == 1) {
            status = cas(1, 0);              // nobody said they sleep: no futex call
        }
        if (status == 2) {
            cas(2, 0);                       // change the word first ...
            final int r = futex.wake(seg, off, 1, priv); // ... then wake
            if (r < 0) {
                throw new IllegalStateException("wake returned " + Errno.name(-r));
            }
        }
    }

    /** {@return the word: 0 unlocked, 1 locked, 2 locked and someone may sleep} */
    public int word() {
        return get();
    }

    private static void check(final int r) {
        if (r != 0 && r != Errno.EAGAIN) {
            throw new IllegalStateException("wait returned " + Errno.name(r));
        }
    }
}
