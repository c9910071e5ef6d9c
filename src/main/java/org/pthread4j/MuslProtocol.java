package org.pthread4j;

import org.pthread4j.futex.Errno;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Timespec;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

/**
 * musl's sleep and wake, for every lock word the kernel serves (see {@link Protocol}). Each
 * method is the lines of musl's C it stands for, quoted in its comment; the lock's slow path
 * around them is musl's too ({@code pthread_mutex_timedlock.c},
 * {@code pthread_rwlock_timedrdlock.c}, {@code pthread_rwlock_timedwrlock.c}, and the unlocks).
 *
 * <h2>Implementation overview</h2>
 *
 * <p>The words, the values written to them and the futex calls are musl's, whatever the
 * {@link Tuning}: a sleeper counts itself in the waiter count, sets bit 31 by CAS into the value
 * it saw and waits on exactly that value, then counts itself out; an unlock wakes when the count
 * it read before releasing was nonzero or the word it released had bit 31. A C process linked
 * with musl that shares the word meets nothing else.
 *
 * <p><b>The departure: how long a JVM thread looks before and between its sleeps.</b> With
 * {@link Tuning#muslSpinNanos()} 0 ({@link Tuning#MUSL_EXACT}) the thread spins as musl does, 100
 * pauses while nobody is counted, and sleeps again at once after a wake that did not let it in.
 * That costs what musl's C costs: as soon as one thread sleeps, it is counted, and every unlock
 * of the running holder makes a {@code FUTEX_WAKE} system call until the woken thread has run
 * and counted itself out; seed 000's stress on such a word ran at 0.1-0.25x
 * {@code ReentrantLock}. With the default bound the thread instead, before its first sleep and
 * again after every wake:
 * <ul>
 * <li>looks at the word, reading only, for up to {@link Tuning#muslSpinNanos()} of
 *     {@link System#nanoTime()}, <em>whether or not others are counted</em> (musl stops as soon
 *     as anyone sleeps; a thread that looks is not counted, so the holder's unlocks stay one
 *     atomic and no system call while it looks);</li>
 * <li>looks less and less often: at once, after 64 ns, then twice as long each time, up to
 *     {@link Tuning#MUSL_LOOK_NANOS} between two looks, pausing ({@link Thread#onSpinWait()})
 *     in between, because every look pulls the word's cache line away from the holder's CPU
 *     (on this machine looking every 64 pauses held two threads to 0.9x {@code ReentrantLock},
 *     every 2 µs or more gave 1.5-1.9x);</li>
 * <li>after {@link Tuning#MUSL_YIELD_NANOS} gives its CPU away ({@link Thread#yield()}) once
 *     between two looks, so that with more threads than CPUs the lookers do not take the CPU
 *     from the holder they wait for;</li>
 * <li>ends when the word no longer keeps it out; a locker or a writer ({@code yields}, and a
 *     woken locker or writer) only when the word is still free at
 *     {@link ParkingProtocol#LOOKS} more looks {@link ParkingProtocol#SETTLE} pauses apart, so
 *     that it does not take the lock in the gap between a running holder's unlock and its next
 *     lock (the lock's line would then move between the CPUs on every round); readers and a
 *     condvar waiter relocking take the first free word.</li>
 * </ul>
 * When the bound passes, the thread sleeps as musl's does. The figures are in
 * {@code docs/measurements.md} (2026-12-03). A condvar's waiter spins on its own word in the same
 * spirit ({@link Cond}: its node's barrier for a private condvar, {@code _c_seq}, reading only,
 * for a process-shared one), also only when {@link Tuning#muslSpinNanos()} is not 0.
 */
final class MuslProtocol extends Protocol {
    /** Half the first gap between two looks, in nanoseconds. */
    private static final long FIRST_GAP = 32;

    /** The bound of a look, or 0 for musl's exact spin. */
    private final long spinNanos;

    MuslProtocol(final Futex futex, final boolean priv, final MemorySegment seg, final long word, final long waiters,
                 final Tuning tuning) {
        super(futex, priv, seg, word, waiters);
        this.spinNanos = tuning.muslSpinNanos();
    }

    @Override
    SleepProtocol kind() {
        return SleepProtocol.MUSL;
    }

    /**
     * {@code int spins = 100; while (spins-- && m->_m_lock && !m->_m_waiters) a_spin();} with
     * {@link Tuning#MUSL_EXACT}; else the look of the class overview.
     */
    @Override
    boolean spin(final int busy, final boolean yields) {
        if (spinNanos == 0) {
            Spin.musl(seg, word, waiters);
        } else {
            look(busy, yields);
        }
        return false;
    }

    /**
     * Looks at the word, reading only, for up to {@link #spinNanos} while it keeps the caller
     * out (class overview).
     *
     * @param busy   the least value of the word, bit 31 aside, that keeps the caller out
     * @param yields whether a free word must stay free a moment before the look ends on it
     */
    private void look(final int busy, final boolean yields) {
        final long start = System.nanoTime();
        long gap = FIRST_GAP;
        long next = start;
        for (long now = start; now - start < spinNanos; now = System.nanoTime()) {
            if (now - next >= 0) {
                if (!keepsOut(busy) && (!yields || staysFree(busy))) {
                    return;
                }
                gap = Math.min(gap << 1, Tuning.MUSL_LOOK_NANOS);
                next = now + gap;
                if (now - start >= Tuning.MUSL_YIELD_NANOS) {
                    Thread.yield();
                    continue;
                }
            }
            Thread.onSpinWait();
        }
    }

    /** Whether the word, bit 31 aside, is at least {@code busy}: it keeps the caller out. */
    private boolean keepsOut(final int busy) {
        return Integer.compareUnsigned((int) Block.INT.getVolatile(seg, word) & Integer.MAX_VALUE, busy) >= 0;
    }

    /** Whether a word seen free is still free at {@link ParkingProtocol#LOOKS} more looks. */
    private boolean staysFree(final int busy) {
        for (int i = 0; i < ParkingProtocol.LOOKS; i++) {
            for (int p = 0; p < ParkingProtocol.SETTLE; p++) {
                Thread.onSpinWait();
            }
            if (keepsOut(busy)) {
                return false;
            }
        }
        return true;
    }

    /** musl's trylock records nothing. */
    @Override
    int mark(final int turns) {
        return 0;
    }

    /**
     * <pre>
     * a_inc(&amp;m-&gt;_m_waiters);
     * t = r | 0x80000000;
     * a_cas(&amp;m-&gt;_m_lock, r, t);
     * r = __timedwait(&amp;m-&gt;_m_lock, t, CLOCK_REALTIME, at, priv);
     * a_dec(&amp;m-&gt;_m_waiters);
     * </pre>
     * {@code __timedwait} answers 0 for a wait the word turned away; the futex layer's EAGAIN
     * is that 0 here. musl retries after EINTR, a signal; the futex layer answers EINTR only for
     * an interrupt of an interruptible wait, which ends the lock. Then, unless the tuning is
     * {@link Tuning#MUSL_EXACT}, the thread, no longer counted, looks at the word before it
     * tries again (class overview): a locker or a writer as one that gives way to a relocking
     * holder.
     */
    @Override
    int sleep(final int seen, final int busy, final int turns, final int clock, final Timespec at,
              final boolean interruptible) {
        count(1);
        final int t = seen | WAITERS_BIT;
        Block.INT.compareAndExchange(seg, word, seen, t);
        final int r = futex.timedWait(seg, word, t, priv, clock, at, interruptible);
        count(-1);
        if (spinNanos != 0 && (r == 0 || r == Errno.EAGAIN)
            && !(interruptible && Thread.currentThread().isInterrupted())) {
            look(busy, busy == 1);
        }
        return r == Errno.EAGAIN ? 0 : r;
    }

    /** musl's loop just returns. */
    @Override
    void passWake() {
    }

    /** {@code __wake(&rw->_rw_lock, cnt, priv)}. */
    @Override
    int wakeCount(final int cnt) {
        return cnt;
    }

    /** {@code int waiters = m->_m_waiters;}, read before the releasing atomic. */
    @Override
    int waiters() {
        return counted();
    }
}
