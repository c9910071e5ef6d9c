package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

import static org.pthread4j.RwLockLayout.COUNT_MASK;
import static org.pthread4j.RwLockLayout.LOCK;
import static org.pthread4j.RwLockLayout.MAX_COUNT;
import static org.pthread4j.RwLockLayout.PSHARED;
import static org.pthread4j.RwLockLayout.READERS_ASLEEP;
import static org.pthread4j.RwLockLayout.SHARED;
import static org.pthread4j.RwLockLayout.WAITERS;
import static org.pthread4j.RwLockLayout.WAITERS_BIT;
import static org.pthread4j.RwLockLayout.WRITE_LOCKED;

/**
 * musl's {@code pthread_rwlock_t}: a reader-preferring read-write lock on one futex word, in
 * a 56-byte block laid out as musl lays it out on x86_64 ({@link RwLockLayout}).
 *
 * <h2>Implementation overview</h2>
 *
 * <p>Everything lives in the lock word {@code _rw_lock}. Its low 31 bits count the holders: 0
 * is free, 1 to 0x7ffffffe are that many readers, and 0x7fffffff means one writer. Bit 31 says
 * "someone may be asleep on this word". A second word, {@code _rw_waiters}, counts the threads
 * inside a futex wait; it steers spinning, and under musl's wake rule (process-shared rwlocks)
 * tells an unlock whether to wake; private rwlocks wake by bit 31 alone (see "Differences from
 * musl").
 *
 * <p>A reader takes the lock by CAS of the word to word+1 whenever the count is not
 * 0x7fffffff, even when writers wait: <em>reader preference</em>. musl chose it (commit
 * 50304f2e) because POSIX requires recursive read locks to work, and writer preference without
 * per-reader bookkeeping would deadlock a reader that re-locks while a writer waits. Writers
 * can starve. A writer takes the lock only by CAS from exactly 0 to 0x7fffffff.
 *
 * <p>A thread that must wait spins while no one sleeps (musl: 100 times; here with {@code Backoff}:
 * a writer's spin ends without a steal when the holders keep taking the lock back, and the writer
 * then polls uncounted before it sleeps, as a {@link Mutex} locker does; a reader's, which steals
 * from nobody, ends at the first free word as musl's), then counts itself in
 * {@code _rw_waiters}, sets bit 31 by CAS (ignoring failure) and sleeps on the word's exact
 * value, bit included. Readers sleep only while a writer holds the lock. (A private lock's
 * woken thread that finds the lock taken again polls before it sets the bit again, as a
 * {@link Mutex}'s does; untimed locks only.) The race this closes:
 * an unlock that changes the word between the sleeper's read and its sleep makes the futex
 * wait return at once (the value no longer matches), so no wake can be lost.
 *
 * <p>One {@link #unlock()} serves both kinds of holder (there is no owner). It reads
 * {@code _rw_waiters} <em>before</em> its releasing CAS, because after that CAS another thread
 * may take and destroy the lock; only a futex wake on the address may follow, and a wake is
 * harmless on memory that is gone. When the release frees the lock and someone may sleep, a
 * writer's unlock wakes all sleepers (they are mostly readers, which can all enter, commit
 * b85fec2d; a private lock wakes one and lets the readers chain, see below) and the last
 * reader's unlock wakes one (only writers sleep behind readers).
 *
 * <h2>Differences from musl</h2>
 *
 * <p><b>The bit rule</b> (process-private rwlocks, as for {@link Mutex}): an unlock that frees
 * the lock wakes only when bit 31 was set, not whenever {@code _rw_waiters} is nonzero (musl's
 * rule wakes on every such unlock while anyone is counted, also while the woken thread has not
 * run yet: with seed 000's mix of 4 threads, 1 write in 10, on 2 cores, about 2-5 million futex
 * wakes a second of which 6-10 thousand found a sleeper). An acquisition from the waiting path
 * made while others are counted records bit 31 with its CAS (the unlock that woke it took the
 * bit away); a sleeper leaving without the lock (timeout, interrupt) while others are counted
 * wakes one of them. A writer's unlock wakes one sleeper, not all: a sleeping reader is also
 * counted in {@link RwLockLayout#READERS_ASLEEP}, and a reader that gets in after a sleep while
 * another reader sleeps wakes one more, so the readers asleep behind a writer all enter, one
 * wake after another, as {@code ReentrantReadWriteLock}'s readers propagate theirs, while the
 * writers behind it are not woken as a herd only to sleep again (the read-mostly mix of
 * {@code ./pthread4j bench juc}, 4 threads on 2 cores: 0.30-0.54x
 * {@code ReentrantReadWriteLock} through {@code PthreadReadWriteLock} with wake-all, 0.42-0.72x
 * with the chain). Process-shared rwlocks keep musl's rule (a musl process may share the
 * word); {@value #COUNT_WAKES_PROPERTY}{@code =true} gives it to private ones. A sleeper sets bit
 * 31 and sleeps in one step, atomic on the parking backend: under musl's rule a set-and-wait on
 * the value it saw (seed 000); under the bit rule a set-bit-and-wait on any value that keeps it
 * waiting ({@link Futex#setBitWait}), joining the sleepers already queued unless it was woken,
 * as a {@link Mutex} sleeper does. On a backend whose set-bit-and-wait is not atomic (the
 * kernel) a private lock's sleepers wait instead on the wake sequence {@link RwLockLayout#SEQ}:
 * an unlock or downgrade that finds bit 31 takes it out, moves the sequence, then releases and
 * wakes ({@link #sleepOffset()}; see {@link Mutex}, "Sleeping on a word of its own").
 *
 * <p>Like musl there is no owner tracking: a second {@code wrlock} by the holder deadlocks, a
 * {@code rdlock} while holding the write lock deadlocks, and an unlock by a thread that holds
 * nothing is not detected, except that an unlock of a lock nobody holds answers EPERM instead
 * of corrupting the word (musl's behaviour there is undefined).
 *
 * <h2>Memory and backends</h2>
 *
 * <p>A private lock ({@code _rw_shared} 0) sleeps on the backend of its {@link RwLockAttr}, or
 * {@link Futexes#defaultPrivate()}, with the private flag; a process-shared one
 * ({@code _rw_shared} 128) on {@link Futexes#shared()} without it, so a lock in a file mapped by
 * several processes (or by a C program linked with musl) works across them.
 *
 * <p>Memory consistency: actions before an {@link #unlock()} of the write lock happen-before
 * every later successful read or write lock; actions before a reader's unlock happen-before a
 * later successful write lock. Every word access is volatile.
 *
 * <p>Results are errno values as musl returns them ({@link Errno}). Timed variants take an
 * absolute deadline; the classic forms use {@link Timespec#CLOCK_REALTIME} as musl does.
 *
 * <p>See {@code docs/04-rwlock.md}: the words, the states, the races and the tests that prove them.
 */
public final class RwLock {
    /**
     * The property that gives process-private rwlocks musl's exact wake rule (an unlock that
     * frees the lock wakes when {@code _rw_waiters} is nonzero or bit 31 was set) instead of
     * the bit rule; see "Differences from musl" above.
     */
    public static final String COUNT_WAKES_PROPERTY = "pthread4j.rwlock.countWakes";
    private static final boolean COUNT_WAKES = Boolean.getBoolean(COUNT_WAKES_PROPERTY);

    private static final java.lang.invoke.VarHandle INT = Block.INT;
    private static final long SEQ = RwLockLayout.SEQ;
    private final Block block;
    private final MemorySegment seg;
    private final Futex futex;
    private final boolean priv;
    /** musl's wake rule: process-shared rwlocks always (a musl process may share the word). */
    private final boolean countWakes;
    /**
     * Sleepers wait on {@link RwLockLayout#SEQ}, not on {@code _rw_lock}: the bit rule on a backend
     * whose set-bit-and-wait is not atomic ({@link SeqSleep}).
     */
    private final boolean seqSleep;

    /**
     * {@code pthread_rwlock_init}: zeroes the 56 bytes and records whether the lock is
     * process-shared.
     *
     * @param block at least {@link RwLockLayout#SIZE} bytes, {@link RwLockLayout#ALIGNMENT}-aligned
     * @param attr  the attributes, or null for {@link RwLockAttr#DEFAULT}
     * @throws IllegalArgumentException when the block is too small or misaligned
     */
    public RwLock(final Block block, final RwLockAttr attr) {
        // src/thread/pthread_rwlock_init.c
        RwLockLayout.checkBlock(block);
        final RwLockAttr a = attr != null ? attr : RwLockAttr.DEFAULT;
        this.block = block;
        this.seg = block.segment();
        this.priv = !a.pshared();
        this.countWakes = !priv || COUNT_WAKES;
        this.futex = Backing.futex(a.pshared(), a.futex());
        this.seqSleep = !countWakes && !futex.atomicSetBitWait();
        seg.asSlice(0, RwLockLayout.SIZE).fill((byte) 0);
        block.set(SHARED, a.pshared() ? PSHARED : 0);
    }

    /**
     * {@code pthread_rwlock_init} with default attributes: private, default backend.
     *
     * @param block the block
     */
    public RwLock(final Block block) {
        this(block, null);
    }

    private RwLock(final Block block, final Futex futex, final boolean priv) {
        this.block = block;
        this.seg = block.segment();
        this.futex = futex;
        this.priv = priv;
        this.countWakes = !priv || COUNT_WAKES;
        this.seqSleep = !countWakes && !futex.atomicSetBitWait();
    }

    /**
     * Views a lock that was initialized elsewhere (by another process, or by a C program
     * linked with musl) without changing it. A private lock gets
     * {@link Futexes#defaultPrivate()}: attach a private lock only with the backend its other
     * users sleep on ({@link #attach(Block, Futex)}).
     *
     * @param block the block holding the lock
     * @return the view
     * @throws IllegalArgumentException when the block is too small, misaligned, or does not
     *                                  hold a consistent {@code pthread_rwlock_t} ({@code _rw_shared}
     *                                  other than 0 or 128, a negative waiter count, a lock word of
     *                                  0x80000000, a nonzero byte from 16 on, or, in a process-shared
     *                                  lock, nonzero bytes 12-15, the wake sequence only a private
     *                                  lock uses)
     */
    public static RwLock attach(final Block block) {
        return attach(block, null);
    }

    /**
     * Views an initialized lock, with the backend to use if it is private.
     *
     * @param block        the block holding the lock
     * @param privateFutex backend for a private lock, or null for the default
     * @return the view
     * @throws IllegalArgumentException when the block does not hold a consistent lock
     */
    public static RwLock attach(final Block block, final Futex privateFutex) {
        RwLockLayout.checkInitialized(block);
        final boolean pshared = block.get(SHARED) == PSHARED;
        return new RwLock(block, Backing.futex(pshared, privateFutex), !pshared);
    }

    /** {@return the block this lock lives in} */
    public Block block() {
        return block;
    }

    /**
     * {@return the offset in the block of the word its sleepers wait on: {@link RwLockLayout#SEQ}
     *     for a process-private lock on a backend without an atomic set-bit-and-wait
     *     ({@link SeqSleep}), else {@link RwLockLayout#LOCK}}
     */
    public long sleepOffset() {
        return seqSleep ? SEQ : LOCK;
    }

    /** {@return the futex backend this lock sleeps on} */
    public Futex futex() {
        return futex;
    }

    /** {@return whether the lock is process-shared ({@code _rw_shared} is 128)} */
    public boolean isPshared() {
        return !priv;
    }

    // ------------------------------------------------------------------------------------------
    // Readers: pthread_rwlock_tryrdlock.c, pthread_rwlock_timedrdlock.c, pthread_rwlock_rdlock.c

    /**
     * {@code pthread_rwlock_tryrdlock}: takes a read lock if no writer holds the lock.
     *
     * <p>Memory effects: on success, as a read lock (see the class description).
     *
     * @return 0; EBUSY when write-locked; EAGAIN when the reader count is at its limit
     */
    public int tryRdLock() {
        return tryRdLock(0);
    }

    /**
     * musl's tryrdlock; {@code mark} ({@link RwLockLayout#WAITERS_BIT} or 0) is or-ed into the
     * new word: the bit rule's record of sleepers by an acquisition from the sleeping loop.
     */
    private int tryRdLock(final int mark) {
        // src/thread/pthread_rwlock_tryrdlock.c
        // musl's loop, with each CAS's witness as the next value to try (a free word first).
        int val = 0;
        for (;;) {
            final int cnt = val & COUNT_MASK;
            if (cnt == WRITE_LOCKED) {
                return Errno.EBUSY;
            }
            if (cnt == MAX_COUNT) {
                return Errno.EAGAIN;
            }
            final int w = (int) INT.compareAndExchange(seg, (long) LOCK, val, (val + 1) | mark);
            if (w == val) {
                return 0;
            }
            val = w;
        }
    }

    /**
     * Under the bit rule (process-private rwlocks): {@link RwLockLayout#WAITERS_BIT} while others
     * are counted in {@code _rw_waiters}, so that an acquisition made after a sleep records bit
     * 31 for them (the unlock that woke this thread took it away); else 0. A thread that has not
     * slept took no wake and records nothing.
     */
    private int mark() {
        return !countWakes && block.get(WAITERS) != 0 ? WAITERS_BIT : 0;
    }

    /**
     * Under the bit rule: a sleeper leaving without the lock (timeout, interrupt) may have taken
     * the wake that carried bit 31 to the others; it passes one on.
     */
    private int leave(final int r) {
        passWake();
        return r;
    }

    /**
     * Under the bit rule, while others are counted in {@code _rw_waiters}: wakes one sleeper (on
     * the wake sequence for a {@link #seqSleep} lock). For a sleeper leaving without the lock, and
     * for a reader that got in after a sleep (the readers' chain, see {@link #unlock()}).
     */
    private void passWake() {
        if (!countWakes && block.get(WAITERS) != 0) {
            SeqSleep.passWake(futex, seg, LOCK, SEQ, seqSleep, priv);
        }
    }

    /**
     * {@code pthread_rwlock_rdlock}: takes a read lock, sleeping while a writer holds the lock.
     * Not interruptible (an interrupt is kept for the caller).
     *
     * @return 0, or EAGAIN when the reader count is at its limit
     */
    public int rdLock() {
        return timedRdLock(Timespec.CLOCK_REALTIME, null, false);
    }

    /**
     * {@code pthread_rwlock_timedrdlock}: {@link #rdLock()} until a deadline on
     * {@link Timespec#CLOCK_REALTIME}.
     *
     * @param at the absolute deadline, or null for none
     * @return 0, EAGAIN, ETIMEDOUT, or EINVAL for a deadline with nsec outside [0, 1e9)
     *     (checked only if the call would sleep)
     */
    public int timedRdLock(final Timespec at) {
        return timedRdLock(Timespec.CLOCK_REALTIME, at, false);
    }

    /**
     * Takes a read lock, sleeping while a writer holds it, until the deadline on {@code clock}
     * or, if {@code interruptible}, an interrupt (the interrupt status is left set). Like musl's
     * rwlock functions this is no cancellation point: a lock that can be taken at once is taken
     * even when an interrupt is pending.
     *
     * @param clock         {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}
     * @param at            the absolute deadline, or null for none
     * @param interruptible whether {@link Thread#interrupt()} ends the wait with EINTR
     * @return 0, EAGAIN, ETIMEDOUT, EINTR, or EINVAL (bad deadline or clock, checked only if
     *     the call would sleep)
     */
    public int timedRdLock(final int clock, final Timespec at, final boolean interruptible) {
        // src/thread/pthread_rwlock_timedrdlock.c (rdlock.c calls it without a deadline)
        int r = tryRdLock();
        if (r != Errno.EBUSY) {
            return r;
        }
        // musl spins 100 times while the word is busy and nobody sleeps; a reader takes the first
        // free word (it shares the lock and steals it from nobody).
        Backoff.whileNonzero(seg, LOCK, WAITERS, 0);
        boolean slept = false;
        while ((r = tryRdLock(slept ? mark() : 0)) == Errno.EBUSY) {
            final int val = block.get(LOCK);
            if (val == 0 || (val & COUNT_MASK) != WRITE_LOCKED) {
                continue;
            }
            r = sleep(val, true, slept, clock, at, interruptible);
            if (r == Errno.EAGAIN) {
                continue;
            }
            if (r != 0) {
                return leave(r);
            }
            slept = true;
            // Bit rule, untimed: a woken reader that finds a writer in again polls first (Mutex).
            if (!countWakes && at == null && Mutex.POLLS > 0
                && (r = SeqSleep.poll(futex, seg, LOCK, SEQ, seqSleep, WAITERS, priv, COUNT_MASK, WRITE_LOCKED,
                    interruptible, () -> tryRdLock(mark()))) != Errno.EBUSY) {
                if (r != 0) {
                    return r;
                }
                break;
            }
        }
        if (slept && r == 0 && !countWakes && block.get(READERS_ASLEEP) != 0) {
            // The readers' chain (bit rule): a writer's unlock woke one sleeper; a reader that got
            // in while other readers sleep passes a wake on, so the readers asleep behind the
            // writer enter in turn, each woken by the one before, as ReentrantReadWriteLock's
            // readers propagate their wake. (A writer asleep behind readers needs no wake yet.)
            passWake();
        }
        return r;
    }

    // ------------------------------------------------------------------------------------------
    // Writers: pthread_rwlock_trywrlock.c, pthread_rwlock_timedwrlock.c, pthread_rwlock_wrlock.c

    /**
     * {@code pthread_rwlock_trywrlock}: takes the write lock if nobody holds the lock.
     *
     * <p>Memory effects: on success, as a write lock (see the class description).
     *
     * @return 0, or EBUSY when readers or a writer hold it
     */
    public int tryWrLock() {
        return tryWrLock(0);
    }

    private int tryWrLock(final int mark) {
        // src/thread/pthread_rwlock_trywrlock.c
        return (int) INT.compareAndExchange(seg, (long) LOCK, 0, WRITE_LOCKED | mark) != 0 ? Errno.EBUSY : 0;
    }

    /**
     * {@code pthread_rwlock_wrlock}: takes the write lock, sleeping while anyone holds the
     * lock. Not interruptible. A second {@code wrlock} by the holder deadlocks, as in musl.
     *
     * @return 0
     */
    public int wrLock() {
        return timedWrLock(Timespec.CLOCK_REALTIME, null, false);
    }

    /**
     * {@code pthread_rwlock_timedwrlock}: {@link #wrLock()} until a deadline on
     * {@link Timespec#CLOCK_REALTIME}.
     *
     * @param at the absolute deadline, or null for none
     * @return 0, ETIMEDOUT, or EINVAL (bad deadline, checked only if the call would sleep)
     */
    public int timedWrLock(final Timespec at) {
        return timedWrLock(Timespec.CLOCK_REALTIME, at, false);
    }

    /**
     * Takes the write lock, sleeping while anyone holds it, until the deadline on
     * {@code clock} or, if {@code interruptible}, an interrupt (the interrupt status is left
     * set). A lock that can be taken at once is taken even when an interrupt is pending.
     *
     * @param clock         {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}
     * @param at            the absolute deadline, or null for none
     * @param interruptible whether {@link Thread#interrupt()} ends the wait with EINTR
     * @return 0, ETIMEDOUT, EINTR, or EINVAL (bad deadline or clock, checked only if the call
     *     would sleep)
     */
    public int timedWrLock(final int clock, final Timespec at, final boolean interruptible) {
        // src/thread/pthread_rwlock_timedwrlock.c (wrlock.c calls it without a deadline)
        int r = tryWrLock();
        if (r != Errno.EBUSY) {
            return r;
        }
        // musl spins 100 times while the word is busy and nobody sleeps; here the Mutex's spin,
        // which ends when the holders keep taking the lock back, and the poll that follows it.
        if (Backoff.whileNonzero(seg, LOCK, WAITERS, Backoff.RELOCKS) && at == null && Mutex.POLLS > 0
            && (r = Backoff.pollUncounted(this, interruptible, this::tryWrLock)) != Errno.EBUSY) {
            return r;
        }
        boolean slept = false;
        while ((r = tryWrLock(slept ? mark() : 0)) == Errno.EBUSY) {
            final int val = block.get(LOCK);
            if (val == 0) {
                continue;
            }
            r = sleep(val, false, slept, clock, at, interruptible);
            if (r == Errno.EAGAIN) {
                continue;
            }
            if (r != 0) {
                return leave(r);
            }
            slept = true;
            // Bit rule, untimed: a woken writer that finds the lock held again polls first (Mutex).
            if (!countWakes && at == null && Mutex.POLLS > 0
                && (r = SeqSleep.poll(futex, seg, LOCK, SEQ, seqSleep, WAITERS, priv, COUNT_MASK, 1,
                    interruptible, () -> tryWrLock(mark()))) != Errno.EBUSY) {
                return r;
            }
        }
        return r;
    }

    /**
     * One sleep of a reader or writer that saw {@code val}: count in, set bit 31, sleep on the
     * word with the bit, count out. Under the bit rule the sleep is a set-bit-and-wait on any
     * value that keeps the caller waiting (a writer waits out any holder, a reader a writer), a
     * reader is also counted in {@link RwLockLayout#READERS_ASLEEP}, and a
     * thread that has not slept joins the sleepers already queued, as a {@link Mutex} sleeper
     * does (see {@code Mutex.lockSlow}); a woken one re-arms the bit instead.
     *
     * @return 0 (woken or spurious: retry, having slept), EAGAIN (did not sleep: the word changed
     *     or was not busy; retry), else ETIMEDOUT/EINVAL/EINTR
     */
    private int sleep(final int val, final boolean reader, final boolean slept, final int clock, final Timespec at,
                      final boolean interruptible) {
        // A writer waits out any holder, a reader a writer.
        final int busy = reader ? WRITE_LOCKED : 1;
        // Under the bit rule a reader is also counted in READERS_ASLEEP, inside its _rw_waiters count.
        final boolean countReader = reader && !countWakes;
        block.getAndAdd(WAITERS, 1);
        if (countReader) {
            block.getAndAdd(READERS_ASLEEP, 1);
        }
        final int r;
        try {
            // musl: a_cas(val -> val | bit), then wait on that; one set-and-wait here (seed 000),
            // atomic on the parking backend (see Mutex.lockSlow).
            r = countWakes ? futex.setWait(seg, LOCK, val, val | WAITERS_BIT, priv, clock, at, interruptible)
                : seqSleep ? SeqSleep.await(futex, seg, LOCK, SEQ, busy, priv, clock, at, interruptible)
                : futex.setBitWait(seg, LOCK, WAITERS_BIT, busy, !slept, priv, clock, at, interruptible);
        } finally {
            if (countReader) {
                block.getAndAdd(READERS_ASLEEP, -1);
            }
            block.getAndAdd(WAITERS, -1);
        }
        return r;
    }

    // ------------------------------------------------------------------------------------------
    // pthread_rwlock_unlock.c

    /**
     * {@code pthread_rwlock_unlock}: releases a read lock or the write lock, whichever the
     * caller holds. When the lock becomes free and sleepers may exist, a writer's unlock wakes
     * all of them (musl's rule) or one (the bit rule: the readers woken pass the wake on) and the
     * last reader's unlock wakes one.
     *
     * <p>Memory effects: actions before this call happen-before the next successful lock that
     * this release makes possible.
     *
     * @return 0; EPERM when nobody holds the lock (musl leaves this undefined and corrupts the
     *     word; this port refuses it and leaves the word unchanged)
     */
    public int unlock() {
        // src/thread/pthread_rwlock_unlock.c
        int val = (int) INT.getVolatile(seg, (long) LOCK);
        int cnt;
        int waiters;
        int next;
        boolean moved = false;
        for (;;) {
            cnt = val & COUNT_MASK;
            if (cnt == 0) {
                return Errno.EPERM;
            }
            waiters = countWakes ? block.get(WAITERS) : 0;
            next = (cnt == WRITE_LOCKED || cnt == 1) ? 0 : val - 1;
            if (seqSleep && next == 0 && val < 0) {
                // The release would clear bit 31: take the bit out, then move the wake sequence,
                // while still holding (SeqSleep).
                final int w = SeqSleep.claim(seg, LOCK, SEQ, val);
                if (w != val) {
                    val = w;
                    continue;
                }
                val &= COUNT_MASK;
                moved = true;
            }
            final int w = (int) INT.compareAndExchange(seg, (long) LOCK, val, next);
            if (w == val) {
                break;
            }
            val = w;
        }
        // musl wakes as many as this holder frees the lock for: everyone behind a writer, one
        // writer behind the last reader. The bit rule wakes one either way; the woken thread
        // re-arms bit 31 for the rest, and a woken reader passes a wake on (timedrdlock), so
        // the readers behind a writer still all get in, one wake after another.
        if (moved) {
            // Also when a reader came in after the claim and this unlock ended up not the last:
            // the bit was taken out, so a sleeper is woken, and re-arms it.
            futex.wake(seg, SEQ, 1, priv);
        } else if (next == 0 && (waiters != 0 || val < 0)) {
            futex.wake(seg, LOCK, countWakes ? cnt : 1, priv);
        }
        return 0;
    }

    /**
     * Turns the write lock the caller holds into one read lock, with no moment in between at
     * which another writer could take the lock. POSIX and musl have no such operation; this is
     * {@link #unlock()} of a writer with the releasing CAS storing a reader count of 1 instead of
     * 0: it reads {@code _rw_waiters} first, and wakes every sleeper when someone may sleep, as a
     * writer's unlock does (readers can now all enter; writers go back to sleep).
     *
     * <p>Like {@link #unlock()} it cannot tell who holds the lock: only the writer may call it.
     *
     * <p>Memory effects: those of an unlock of the write lock followed by a read lock.
     *
     * @return 0; EPERM when the lock is not write-locked (the word is left unchanged)
     */
    public int downgrade() {
        int val;
        int waiters;
        boolean moved = false;
        for (;;) {
            val = block.get(LOCK);
            if ((val & COUNT_MASK) != WRITE_LOCKED) {
                return Errno.EPERM;
            }
            waiters = countWakes ? block.get(WAITERS) : 0;
            if (seqSleep && val < 0) {
                // As unlock: take bit 31 out, then move the wake sequence, while still holding.
                if (SeqSleep.claim(seg, LOCK, SEQ, val) != val) {
                    continue;
                }
                val &= COUNT_MASK;
                moved = true;
            }
            if (block.cas(LOCK, val, 1) == val) {
                break;
            }
        }
        if (moved) {
            futex.wake(seg, SEQ, -1, priv);
        } else if (waiters != 0 || val < 0) {
            futex.wake(seg, LOCK, -1, priv);
        }
        return 0;
    }

    /**
     * {@code pthread_rwlock_destroy}: nothing to do, as in musl.
     *
     * @return 0
     */
    public int destroy() {
        return 0;
    }

    // ------------------------------------------------------------------------------------------
    // Introspection (reads only; a snapshot that may be stale at once)

    /** {@return the raw lock word {@code _rw_lock}} */
    public int word() {
        return block.get(LOCK);
    }

    /** {@return how many readers hold the lock, 0 when free or write-locked} */
    public int readerCount() {
        final int cnt = block.get(LOCK) & COUNT_MASK;
        return cnt == WRITE_LOCKED ? 0 : cnt;
    }

    /** {@return whether a writer holds the lock} */
    public boolean isWriteLocked() {
        return (block.get(LOCK) & COUNT_MASK) == WRITE_LOCKED;
    }

    /** {@return how many threads are inside a futex wait on the lock ({@code _rw_waiters})} */
    public int waiterCount() {
        return block.get(WAITERS);
    }

    /** {@return whether bit 31 of the lock word says sleepers may exist} */
    public boolean hasWaitersBit() {
        return block.get(LOCK) < 0;
    }

    @Override
    public String toString() {
        final int w = block.get(LOCK);
        final int cnt = w & COUNT_MASK;
        final String state = cnt == 0 ? "free" : cnt == WRITE_LOCKED ? "write-locked" : cnt + " readers";
        final int readers = block.get(READERS_ASLEEP);
        return "RwLock[" + state + (w < 0 ? ", waiters bit" : "") + ", waiters=" + block.get(WAITERS)
            + (readers != 0 ? " (" + readers + " readers)" : "")
            + (priv ? ", private on " + futex.name() : ", pshared") + "]";
    }
}
