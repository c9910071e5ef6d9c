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
 */
final class MuslProtocol extends Protocol {
    MuslProtocol(final Futex futex, final boolean priv, final MemorySegment seg, final long word, final long waiters) {
        super(futex, priv, seg, word, waiters);
    }

    @Override
    SleepProtocol kind() {
        return SleepProtocol.MUSL;
    }

    /** {@code int spins = 100; while (spins-- && m->_m_lock && !m->_m_waiters) a_spin();} */
    @Override
    boolean spin(final int busy, final boolean yields) {
        Spin.musl(seg, word, waiters);
        return false;
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
     * an interrupt of an interruptible wait, which ends the lock.
     */
    @Override
    int sleep(final int seen, final int busy, final int turns, final int clock, final Timespec at,
              final boolean interruptible) {
        count(1);
        final int t = seen | WAITERS_BIT;
        Block.INT.compareAndExchange(seg, word, seen, t);
        final int r = futex.timedWait(seg, word, t, priv, clock, at, interruptible);
        count(-1);
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
