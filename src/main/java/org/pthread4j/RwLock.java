package org.pthread4j;

import org.pthread4j.futex.Errno;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.Timespec;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

import static org.pthread4j.RwLockLayout.COUNT_MASK;
import static org.pthread4j.RwLockLayout.LOCK;
import static org.pthread4j.RwLockLayout.MAX_COUNT;
import static org.pthread4j.RwLockLayout.PSHARED;
import static org.pthread4j.RwLockLayout.SHARED;
import static org.pthread4j.RwLockLayout.WAITERS;
import static org.pthread4j.RwLockLayout.WAITERS_BIT;
import static org.pthread4j.RwLockLayout.WRITE_LOCKED;

/**
 * musl's {@code pthread_rwlock_t}: a reader-preferring read-write lock on one futex word, in
 * a 56-byte block laid out as musl lays it out on x86_64 ({@link RwLockLayout}).
 *
 * <p>Memory consistency: actions before an {@link #unlock()} of the write lock happen-before
 * every later successful read or write lock; actions before a reader's unlock happen-before a
 * later successful write lock. Results are errno values as musl returns them ({@link Errno}).
 * Timed variants take an absolute deadline; the classic forms use
 * {@link Timespec#CLOCK_REALTIME} as musl does.
 *
 * <h2>Implementation overview</h2>
 *
 * <p>Everything lives in the lock word {@code _rw_lock}. Its low 31 bits count the holders: 0
 * is free, 1 to 0x7ffffffe are that many readers, and 0x7fffffff means one writer. Bit 31 says
 * "someone may be asleep on this word". A second word, {@code _rw_waiters}, counts the threads
 * inside a sleep; it stops the spin of newcomers, and under musl's protocol tells an unlock
 * whether to wake. How a thread sleeps and wakes is the lock's {@link Protocol}, chosen once:
 * musl's wherever the kernel serves the word (process-shared, and private on a kernel
 * backend), the parking protocol for a private word on the parking backend
 * ({@link #sleepProtocol()}).
 *
 * <p>A reader takes the lock by CAS of the word to word+1 whenever the count is not
 * 0x7fffffff, even when writers wait: <em>reader preference</em>. musl chose it (commit
 * 50304f2e) because POSIX requires recursive read locks to work, and writer preference without
 * per-reader bookkeeping would deadlock a reader that re-locks while a writer waits. Writers
 * can starve. A writer takes the lock only by CAS from exactly 0 to 0x7fffffff.
 *
 * <p>A thread that must wait spins through its protocol (musl: 100 pauses while the word is
 * busy and nobody sleeps), then loops: try again; if the word still keeps it out (a writer
 * waits out any holder, a reader a writer), sleep once through the protocol, which counts the
 * thread in {@code _rw_waiters} and sets bit 31 (musl: by CAS into the value seen, then a wait
 * on exactly that value, so an unlock between the look and the sleep makes the wait return at
 * once; parking: set-bit-and-wait in one step of the parking table).
 *
 * <p>One {@link #unlock()} serves both kinds of holder (there is no owner). It reads what the
 * protocol wants read ({@code _rw_waiters} under musl's) <em>before</em> its releasing CAS,
 * because after that CAS another thread may take and destroy the lock; only a futex wake on
 * the address may follow, and a wake is harmless on memory that is gone. When the release
 * frees the lock and someone may sleep, a writer's unlock wakes all sleepers (they are mostly
 * readers, which can all enter, commit b85fec2d) and the last reader's unlock wakes one (only
 * writers sleep behind readers). Under the parking protocol "someone may sleep" is bit 31
 * alone: a thread that took a wake and acquires records the bit while others are counted, and
 * one that leaves without the lock (timeout, interrupt) passes on a wake it took (see {@link Mutex},
 * "the bit rule"); and a writer's unlock wakes one sleeper, a reader that gets in after a
 * sleep passing a wake on to the next (the readers' chain, see {@link ParkingProtocol}).
 *
 * <p>Like musl there is no owner tracking: a second {@code wrlock} by the holder deadlocks, a
 * {@code rdlock} while holding the write lock deadlocks, and an unlock by a thread that holds
 * nothing is not detected, except that an unlock of a lock nobody holds answers EPERM instead
 * of corrupting the word (musl's behaviour there is undefined). {@link #downgrade()} is an
 * addition.
 *
 * <h2>Memory and backends</h2>
 *
 * <p>A private lock ({@code _rw_shared} 0) sleeps on the backend of its {@link RwLockAttr}, or
 * {@link Futexes#defaultPrivate()}, with the private flag; a process-shared one
 * ({@code _rw_shared} 128) on the attributes' backend, which must serve shared words, or
 * {@link Futexes#shared()}, without it, so a lock in a file mapped by several processes (or by
 * a C program linked with musl) works across them.
 *
 * <p>See {@code docs/04-rwlock.md}: the words, the states, the races and the tests that prove them.
 */
public final class RwLock {
    private static final java.lang.invoke.VarHandle INT = Block.INT;
    private final Block block;
    private final MemorySegment seg;
    private final Futex futex;
    private final boolean priv;
    /** How its threads sleep and wake. */
    private final Protocol protocol;

    /**
     * {@code pthread_rwlock_init}: zeroes the 56 bytes and records whether the lock is
     * process-shared.
     *
     * @param block at least {@link RwLockLayout#SIZE} bytes, {@link RwLockLayout#ALIGNMENT}-aligned
     * @param attr  the attributes, or null for {@link RwLockAttr#DEFAULT}
     * @throws IllegalArgumentException when the block is too small or misaligned, or a
     *                                  process-shared lock is given a backend that cannot serve
     *                                  shared words
     */
    public RwLock(final Block block, final RwLockAttr attr) {
        this(block, attr, Tuning.DEFAULT);
    }

    /** {@link #RwLock(Block, RwLockAttr)} with other bounds for the parking protocol (tests). */
    RwLock(final Block block, final RwLockAttr attr, final Tuning tuning) {
        // src/thread/pthread_rwlock_init.c
        RwLockLayout.checkBlock(block);
        final RwLockAttr a = attr != null ? attr : RwLockAttr.DEFAULT;
        this.block = block;
        this.seg = block.segment();
        this.priv = !a.pshared();
        this.futex = Backing.futex(a.pshared(), a.futex(), "process-shared rwlock");
        this.protocol = Protocol.of(futex, priv, seg, LOCK, WAITERS, tuning);
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
        this.protocol = Protocol.of(futex, priv, seg, LOCK, WAITERS, Tuning.DEFAULT);
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
     *                                  0x80000000, or a nonzero byte from 12 on)
     */
    public static RwLock attach(final Block block) {
        return attach(block, null);
    }

    /**
     * Views an initialized lock with a chosen backend: the one every other view of a private
     * lock uses; for a process-shared lock one that serves shared words.
     *
     * @param block the block holding the lock
     * @param futex the backend, or null for the default ({@link Futexes#defaultPrivate()} for a
     *              private lock, {@link Futexes#shared()} for a shared one)
     * @return the view
     * @throws IllegalArgumentException when the block does not hold a consistent lock, or a
     *                                  process-shared lock is given a backend that cannot serve
     *                                  shared words
     */
    public static RwLock attach(final Block block, final Futex futex) {
        RwLockLayout.checkInitialized(block);
        final boolean pshared = block.get(SHARED) == PSHARED;
        return new RwLock(block, Backing.futex(pshared, futex, "process-shared rwlock"), !pshared);
    }

    /** {@return the block this lock lives in} */
    public Block block() {
        return block;
    }

    /** {@return the futex backend this lock sleeps on} */
    public Futex futex() {
        return futex;
    }

    /** {@return how its threads sleep and wake (see the class overview)} */
    public SleepProtocol sleepProtocol() {
        return protocol.kind();
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

    /** musl's tryrdlock; {@code mark} (the protocol's, see {@link Protocol#mark}) is or-ed into the new word. */
    private int tryRdLock(final int mark) {
        // src/thread/pthread_rwlock_tryrdlock.c, with each CAS's witness as the next value to try.
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
        int turns = protocol.spin(WRITE_LOCKED, false) ? 1 : 0;
        while ((r = tryRdLock(protocol.mark(turns))) == Errno.EBUSY) {
            final int val = block.get(LOCK);
            if (val == 0 || (val & COUNT_MASK) != WRITE_LOCKED) {
                continue;
            }
            r = protocol.sleep(val, WRITE_LOCKED, turns, clock, at, interruptible);
            if (r == 0) {
                turns++;
            } else if (r != Errno.EAGAIN) {
                return r;
            }
        }
        if (r == 0 && turns > 0) {
            // The readers' chain of the parking protocol: the wake that let this reader in goes on.
            protocol.passWake();
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
        int turns = protocol.spin(1, true) ? 1 : 0;
        while ((r = tryWrLock(protocol.mark(turns))) == Errno.EBUSY) {
            final int val = block.get(LOCK);
            if (val == 0) {
                continue;
            }
            r = protocol.sleep(val, 1, turns, clock, at, interruptible);
            if (r == 0) {
                turns++;
            } else if (r != Errno.EAGAIN) {
                return r;
            }
        }
        return r;
    }

    // ------------------------------------------------------------------------------------------
    // pthread_rwlock_unlock.c

    /**
     * {@code pthread_rwlock_unlock}: releases a read lock or the write lock, whichever the
     * caller holds. When the lock becomes free and sleepers may exist, a writer's unlock wakes
     * all of them (under the parking protocol one, which passes the wake on if it is a reader)
     * and the last reader's unlock wakes one.
     *
     * <p>Memory effects: actions before this call happen-before the next successful lock that
     * this release makes possible.
     *
     * @return 0; EPERM when nobody holds the lock (musl leaves this undefined and corrupts the
     *     word; this port refuses it and leaves the word unchanged)
     */
    public int unlock() {
        // src/thread/pthread_rwlock_unlock.c
        int val;
        int cnt;
        int waiters;
        int next;
        do {
            val = (int) INT.getVolatile(seg, (long) LOCK);
            cnt = val & COUNT_MASK;
            if (cnt == 0) {
                return Errno.EPERM;
            }
            waiters = protocol.waiters();
            next = (cnt == WRITE_LOCKED || cnt == 1) ? 0 : val - 1;
        } while ((int) INT.compareAndExchange(seg, (long) LOCK, val, next) != val);
        if (next == 0 && (waiters != 0 || val < 0)) {
            protocol.wake(protocol.wakeCount(cnt));
        }
        return 0;
    }

    /**
     * Turns the write lock the caller holds into one read lock, with no moment in between at
     * which another writer could take the lock. POSIX and musl have no such operation; this is
     * {@link #unlock()} of a writer with the releasing CAS storing a reader count of 1 instead of
     * 0: it reads what the protocol wants read first, and wakes every sleeper when someone may
     * sleep, as a writer's unlock does (readers can now all enter; writers go back to sleep).
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
        do {
            val = block.get(LOCK);
            if ((val & COUNT_MASK) != WRITE_LOCKED) {
                return Errno.EPERM;
            }
            waiters = protocol.waiters();
        } while (block.cas(LOCK, val, 1) != val);
        if (waiters != 0 || val < 0) {
            protocol.wake(-1);
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
        return "RwLock[" + state + (w < 0 ? ", waiters bit" : "") + ", waiters=" + block.get(WAITERS)
            + (priv ? ", private" : ", pshared") + ", " + protocol + "]";
    }
}
