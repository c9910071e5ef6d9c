package org.pthread4j.cli.workload;

import org.pthread4j.futex.Errno;
import org.pthread4j.futex.Timespec;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;

/**
 * Seed 000's sample lock on one futex word: 0 unlocked, 1 locked, 2 locked with possible
 * waiters. {@code futex_wait_lock} sleeps with a plain wait after moving the word to 2 with a
 * CAS; {@code futex_setwait_lock} lets the futex layer move 1 to 2 and sleep in one step
 * (atomic on the parking backend; a CAS then a wait elsewhere), and after a wakeup takes the
 * lock as 2 so the next waiter is woken too. The unlock is the seed's cmpxchg unlock. This is
 * the seed's test lock, not the library's Mutex.
 */
final class SampleFutexLock implements StressLock {
    private final Futex futex;
    private final boolean setWait;
    private final boolean priv;
    private final Memory memory;
    private final MemorySegment seg;

    SampleFutexLock(final Futex futex, final boolean setWait, final boolean priv) {
        this.futex = futex;
        this.setWait = setWait;
        this.priv = priv;
        this.memory = Memory.allocate(64);
        this.seg = memory.segment();
    }

    private int cas(final int expect, final int update) {
        return (int) Block.INT.compareAndExchange(seg, 0L, expect, update);
    }

    private int get() {
        return (int) Block.INT.getVolatile(seg, 0L);
    }

    /** The seed's {@code futex_wait_lock}. */
    private void waitLock() {
        int status = get();
        if (status == 0) {
            status = cas(0, 1);
        }
        while (status != 0) {
            if (status == 1) {
                status = cas(1, 2);
            }
            if (status != 0) {
                check(futex.wait(seg, 0L, 2, priv));
                status = get();
            }
            if (status == 0) {
                status = cas(0, 2);
            }
        }
    }

    /** The seed's {@code futex_setwait_lock}. */
    private void setWaitLock() {
        int status = get();
        if (status == 0) {
            status = cas(0, 1);
        }
        if (status != 0) {
            int desired = 1;
            do {
                final int r = futex.setWait(seg, 0L, 1, 2, priv, Timespec.CLOCK_MONOTONIC, null, false);
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

    /** The seed's {@code futex_cmpxchg_unlock}. */
    private void unlock() {
        int status = get();
        if (status == 1) {
            status = cas(1, 0);
        }
        if (status == 2) {
            cas(2, 0);
            final int r = futex.wake(seg, 0L, 1, priv);
            if (r < 0) {
                throw new IllegalStateException("wake returned " + Errno.name(-r));
            }
        }
    }

    private static void check(final int r) {
        if (r != 0 && r != Errno.EAGAIN) {
            throw new IllegalStateException("wait returned " + Errno.name(r));
        }
    }

    @Override
    public void lockUnlock() {
        if (setWait) {
            setWaitLock();
        } else {
            waitLock();
        }
        unlock();
    }

    @Override
    public void close() {
        memory.close();
    }
}
