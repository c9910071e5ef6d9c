package org.pthread4j;

import org.pthread4j.futex.Errno;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.Timespec;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * musl's {@code pthread_mutex_t} on a 40-byte block of off-heap memory ({@link MutexLayout}):
 * NORMAL, RECURSIVE and ERRORCHECK mutexes, process-private or process-shared, stalled or
 * robust. Every method returns an errno as musl does; the uncontended paths make no futex
 * call and allocate nothing.
 *
 * <p>Memory consistency: actions of a thread before {@code unlock} happen-before the actions
 * of a thread after a later successful {@code lock}, {@code trylock} or {@code timedlock}
 * (result 0 or EOWNERDEAD) of the same mutex, in this process or, through shared memory, in
 * another.
 *
 * <h2>Implementation overview</h2>
 *
 * <p>The mutex is two words and a few helpers. {@code _m_lock} is the lock and the futex.
 * A NORMAL mutex (no owner tracking) holds {@code 0} when free and {@code EBUSY} (16) when
 * locked, so {@code trylock} can return its CAS witness masked with 16. Every other mutex is
 * <em>owner-tracked</em> and its word has the kernel's robust-futex shape: bits 0-29 the
 * owner's thread id, bit 30 {@code OWNER_DIED}, bit 31 {@code WAITERS}:
 *
 * <pre>
 *   0                       free
 *   tid                     held by tid (bit 31 added when someone may sleep)
 *   0x40000000              owner died holding it; robust: the next locker gets EOWNERDEAD,
 *                           not robust: locked for ever
 *   tid | 0x40000000        held by tid after EOWNERDEAD, inconsistent until consistent()
 *   0x7fffffff              unlocked while inconsistent: ENOTRECOVERABLE for ever
 * </pre>
 *
 * <p>{@code _m_waiters} counts the threads in the sleeping phase of a lock. The code is musl's
 * ({@code pthread_mutex_timedlock.c}, {@code pthread_mutex_trylock.c},
 * {@code pthread_mutex_unlock.c}); how a thread sleeps and wakes is the mutex's
 * {@link Protocol}, chosen once when the mutex is made: musl's own wherever the kernel serves
 * the word (process-shared, robust, and private on a kernel backend), the parking protocol for
 * a private word on the parking backend.
 * <ul>
 * <li><b>Lock</b>: one CAS (0 to 16, or 0 to tid); on failure {@code trylock}, the protocol's
 *     spin (musl: 100 pauses while the word is busy and nobody sleeps), then a loop: trylock;
 *     read the word; if it is held, sleep once through the protocol; retry. A sleep that ends
 *     in ETIMEDOUT, EINTR or EINVAL ends the lock.</li>
 * <li><b>Unlock</b>: read the waiter count the protocol wants read (musl's rule:
 *     {@code _m_waiters}; the parking protocol's: none), swap the word to 0, and wake one
 *     sleeper if that count was nonzero or the swapped-out value had bit 31.</li>
 * </ul>
 *
 * <p>The races this closes ({@code docs/sources.md}, "musl: the mutex"):
 * <ul>
 * <li><b>Lost wake-up.</b> Under musl's protocol a sleeper counts itself in
 *     {@code _m_waiters}, CASes bit 31 into the exact value it saw and waits on that value,
 *     which the futex compares and sleeps on atomically with respect to wakes: an unlock that
 *     lands between its look and its sleep changes the word, and the wait returns at once. The
 *     count carries "someone sleeps" across a new owner's plain CAS from 0, which drops bit 31:
 *     unlock wakes whenever the count, read before the swap, is nonzero; a sleeper that arrives
 *     after that read either set bit 31 before the swap (the swap returns it) or fails its CAS
 *     after it (its wait returns at once).</li>
 * <li><b>The bit rule</b> (the parking protocol). An unlock wakes only when bit 31 was set,
 *     so an unlock costs one atomic even while sleepers are counted. The sleeper sets bit 31
 *     and queues itself in one step under the parking table's lock, so an unlock that sees the
 *     bit always finds it. What keeps the bit true while sleepers remain is a chain: a thread
 *     that took a wake either acquires and records bit 31 with its CAS while others are
 *     counted, or sleeps again with the bit, or, leaving without the lock, wakes another
 *     sleeper; a condvar waiter requeued onto the word relocks as one that took a wake
 *     ({@link #relock(boolean)}). A plain locker's CAS from 0 drops the bit only while a woken
 *     thread is on its way to put it back; and so a thread that has not taken a wake may join
 *     the sleepers already queued, whatever the word holds.</li>
 * <li><b>Destroy after unlock.</b> Unlock reads everything it needs before its releasing swap
 *     and afterwards touches nothing but the futex wake, which never reads the memory; so
 *     another thread may lock, unlock, destroy and free the mutex the moment the release lands
 *     (POSIX allows exactly that).</li>
 * </ul>
 * Every word access is volatile (musl treats each atomic as a full barrier), so the swap of
 * an unlock cannot pass its own earlier read of {@code _m_waiters}.
 *
 * <h2>Owners and threads</h2>
 *
 * <p>The owner id is {@link ThreadIds#current()}: the kernel tid for a platform thread, an id
 * from 2^29 up (never a kernel tid) for a virtual thread. NORMAL, RECURSIVE and ERRORCHECK
 * process-private mutexes work on virtual threads; with the parking backend (the default) a
 * blocked virtual thread unmounts and frees its carrier, with the kernel backend it pins the
 * carrier while it sleeps. Robust mutexes, and owner-tracked process-shared mutexes, need the
 * kernel tid as owner (it is what the kernel compares when a thread dies, and a virtual id
 * means nothing in another process): their {@code lock}, {@code trylock} and
 * {@code timedlock} throw {@link UnsupportedOperationException} on a virtual thread.
 * A process-shared NORMAL mutex works on a virtual thread, pinning the carrier while asleep.
 *
 * <h2>Robustness: the kernel robust list</h2>
 *
 * <p>A robust mutex (and, as in musl, every owner-tracked process-shared mutex) is linked,
 * while held, into its owner thread's kernel robust list ({@code set_robust_list(2)}), through
 * {@code _m_next}/{@code _m_prev} exactly as musl's trylock and unlock link it, with
 * {@code list_op_pending} set around the lock's CAS and the unlock's swap. Each platform
 * thread registers its own list head (24 bytes of native memory that is never freed) the first
 * time it locks such a mutex. When the thread's native thread exits (a Java platform thread
 * ends) or its process dies, even by {@code kill -9}, the kernel walks the list: in every
 * word still naming the thread it clears the owner, sets {@code OWNER_DIED} (keeping bit 31),
 * and if bit 31 was set wakes one sleeper with a <em>shared</em> futex wake. The next
 * {@code lock}, or the sleeper woken, then acquires with {@link Errno#EOWNERDEAD}; it calls
 * {@link #consistent()} and {@link #unlock()} to return the mutex to normal, or unlocks
 * without it, making the mutex {@link Errno#ENOTRECOVERABLE} for everyone.
 *
 * <p>Because that kernel wake is shared, a robust mutex always sleeps in the kernel with
 * shared futex operations ({@code priv} false), even when process-private; and a lock
 * records bit 31 on acquiring whenever {@code _m_waiters} is nonzero, so the kernel knows to
 * wake. musl did exactly this in 2014 (commit bc09d58c forced robust mutexes to be
 * process-shared) until it walked the list itself in {@code pthread_exit} (b092f1c5), which a
 * Java thread cannot do: the JVM offers no hook that runs when a thread ends.
 *
 * <p>Limits of this mechanism:
 * <ul>
 * <li>The kernel keeps one list head per thread, and glibc registered its own for every JVM
 *     thread. This list takes the kernel's head only while it holds a mutex and gives glibc's
 *     back when it empties ({@code RobustList}), so a glibc robust mutex that native code holds
 *     on the thread is recovered unless the thread holds one of these at its death too. Each
 *     switch is a {@code set_robust_list} call: a lock and unlock that leave the thread's list
 *     empty cost two (see {@code docs/07-robust-and-shared.md}).</li>
 * <li>The mark happens when the native thread exits, a moment after {@link Thread#join()}
 *     returns: a {@code trylock} right after the join may still answer EBUSY; a {@code lock}
 *     sleeps until the kernel marks the word and wakes it.</li>
 * <li>The kernel marks at most 2048 mutexes of a thread ({@code ROBUST_LIST_LIMIT}), so a thread
 *     that holds 2048 gets EAGAIN from a lock of another instead of a lock the kernel would
 *     not recover (musl and glibc take it and lose its recovery in silence).</li>
 * <li>A robust mutex must be locked and unlocked through the same mapping of its memory; one
 *     locked through another mapping is unlinked lazily. Closing memory that holds a locked
 *     robust mutex is an error, as freeing a locked mutex is in C.</li>
 * <li>Owner-tracked process-private mutexes that are not robust are not on the list: if the
 *     owner dies they stay locked for ever, as in musl ({@code lock} blocks, {@code timedlock}
 *     answers ETIMEDOUT, {@code trylock} EBUSY). Their word keeps the dead owner's id; should
 *     Linux give that tid to a new thread, that thread would be taken for the owner (musl
 *     prevents this by walking the list at thread exit; this library cannot). A NORMAL mutex
 *     has no owner and simply stays locked.</li>
 * </ul>
 *
 * <h2>Backends and protocols</h2>
 *
 * <p>A process-private, non-robust mutex sleeps on {@link MutexAttr#futex()} or
 * {@link Futexes#defaultPrivate()} with the private flag; a process-shared or robust one on
 * {@link Futexes#shared()} (or the attributes' backend, which must serve shared words)
 * without it. All views of one private mutex must use the same backend, or a waker and a
 * sleeper do not meet. A fair mutex runs the fair protocol; any other private mutex on the
 * parking backend runs the parking protocol; every other mutex runs musl's
 * ({@link #sleepProtocol()}).
 *
 * <h2>Fair mutexes</h2>
 *
 * <p>A mutex made with {@link MutexAttr.Builder#fair} ({@link MutexLayout#FAIR} in
 * {@code _m_type}, not a musl bit) is a ticket lock ({@link FairProtocol},
 * {@link SleepProtocol#FAIR}), private or process-shared, on every backend: the lock goes to the
 * threads in the order they asked for it; {@link #tryLock()} takes it only when it is free and
 * nobody is queued; a waiter that times out or is interrupted gives its ticket up without
 * stalling the queue. The owner is recorded in {@code _m_lock} as for any mutex, the queue length
 * in {@code _m_waiters}; the tickets live in words musl leaves unused and over the robust-list
 * fields ({@link MutexLayout}), so a fair mutex cannot be robust, is never on a robust list, and
 * no C program may share it. A condvar never requeues its waiters onto a fair mutex's word: it
 * wakes them, and each relocks through the queue. See {@code docs/09-fair.md}.
 *
 * <h2>Differences from musl</h2>
 * <ul>
 * <li>Priority inheritance (type bit 8) is not supported; {@link #attach} refuses it.</li>
 * <li>Fair mutexes (above) are this library's.</li>
 * <li>A private mutex on the parking backend wakes by the bit rule, sleeps by
 *     set-bit-and-wait, and spins for a time rather than 100 pauses (the parking protocol,
 *     above). A C process cannot share such a word, so no musl code ever sees it.</li>
 * <li>An unlock that makes a robust mutex unrecoverable wakes every sleeper (musl wakes one,
 *     which leaves the others asleep for ever); each then returns ENOTRECOVERABLE.</li>
 * <li>{@link #timedLock(int, Timespec, boolean)} takes a clock and can be interruptible.</li>
 * </ul>
 *
 * <p>See {@code docs/02-mutex.md}: the words, the states, the races and the tests that prove them.
 */
public final class Mutex {
    private static final VarHandle INT = Block.INT;
    private static final long TYPE = MutexLayout.TYPE;
    private static final long LOCK = MutexLayout.LOCK;
    private static final long WAITERS = MutexLayout.WAITERS;
    private static final long COUNT = MutexLayout.COUNT;
    private static final int OWNER_MASK = MutexLayout.OWNER_MASK;
    private static final int OWNER_DIED = MutexLayout.OWNER_DIED;
    private static final int WAITERS_BIT = MutexLayout.WAITERS_BIT;
    private static final int EBUSY = Errno.EBUSY;

    /** What {@link #state()} reports. */
    public enum State {
        /** Not held. */
        FREE,
        /** Held (by {@link #ownerId()} when owner-tracked). */
        LOCKED,
        /**
         * The owner died holding it: either not yet claimed (robust: the next locker gets
         * EOWNERDEAD; not robust: locked for ever), or claimed with EOWNERDEAD and not yet
         * made consistent.
         */
        OWNER_DIED,
        /** Unlocked while inconsistent: every lock answers ENOTRECOVERABLE. */
        UNRECOVERABLE
    }

    private final Block block;
    private final MemorySegment seg;
    /** {@code _m_type}, cached: musl writes it only at init. */
    private final int type;
    private final int kind;
    /** Anything but a plain NORMAL mutex: {@code (type & 15) != 0}. */
    private final boolean tracked;
    private final boolean robust;
    /** On the owner's kernel robust list while held: robust, or owner-tracked and process-shared. */
    private final boolean linked;
    /** musl's {@code priv}: futex calls on {@code _m_lock} carry the private flag. */
    private final boolean priv;
    private final Futex futex;
    /** How its threads sleep and wake. */
    private final Protocol protocol;
    /** The protocol of a fair mutex ({@link MutexLayout#FAIR}), else {@code null}. */
    private final FairProtocol fair;
    private final MutexAttr attr;

    /**
     * Initializes a mutex in {@code block}, like {@code pthread_mutex_init}
     * ({@code pthread_mutex_init.c}): zeroes its 40 bytes and stores the type word. Initializing
     * a mutex that some thread uses is an error, as in C.
     *
     * @param block the block: at least {@link MutexLayout#SIZE} bytes, 8-byte aligned
     * @param attr  the attributes ({@link MutexAttr#DEFAULT} for a NORMAL private mutex)
     * @throws IllegalArgumentException when the block is too small or misaligned, or a
     *                                  process-shared or robust mutex is given a backend that
     *                                  cannot serve shared words
     */
    public Mutex(final Block block, final MutexAttr attr) {
        this(block, attr, Tuning.DEFAULT);
    }

    /** {@link #Mutex(Block, MutexAttr)} with other bounds for the parking protocol (tests). */
    Mutex(final Block block, final MutexAttr attr, final Tuning tuning) {
        this(block, Objects.requireNonNull(attr, "attr"), attr.bits(), attr.futex(), true, tuning);
    }

    private Mutex(final Block block, final MutexAttr attr, final int type, final Futex requested, final boolean init,
                  final Tuning tuning) {
        MutexLayout.checkBlock(Objects.requireNonNull(block, "block"));
        MutexLayout.checkType(type);
        this.block = block;
        this.seg = block.segment();
        this.type = type;
        this.kind = type & MutexLayout.KIND_MASK;
        this.tracked = (type & MutexLayout.OWNER_TRACKED_MASK) != 0;
        this.robust = (type & MutexLayout.ROBUST) != 0;
        final boolean isFair = (type & MutexLayout.FAIR) != 0;
        final boolean shared = robust || (type & MutexLayout.PSHARED) != 0;
        // A fair mutex is never on a robust list: a dead owner's ticket stalls its queue whatever the kernel marks.
        this.linked = robust || (!isFair && tracked && (type & MutexLayout.PSHARED) != 0);
        this.priv = !shared;
        if (shared) {
            if (requested != null && !requested.supportsShared()) {
                throw new IllegalArgumentException("backend " + requested.name()
                    + " cannot serve the shared futex operations of a " + (robust ? "robust" : "process-shared")
                    + " mutex");
            }
            this.futex = requested != null ? requested : Futexes.shared();
        } else {
            this.futex = requested != null ? requested : Futexes.defaultPrivate();
        }
        this.fair = isFair ? new FairProtocol(futex, priv, seg, LOCK, WAITERS, MutexLayout.TICKET,
            MutexLayout.SERVING, MutexLayout.SKIP, tuning) : null;
        this.protocol = isFair ? fair : Protocol.of(futex, priv, seg, LOCK, WAITERS, tuning);
        this.attr = attr != null ? attr : MutexAttr.ofBits(type, requested);
        if (init) {
            seg.asSlice(0, MutexLayout.SIZE).fill((byte) 0);
            INT.setVolatile(seg, TYPE, type);
        }
    }

    /**
     * A view of a mutex initialized elsewhere (by another process through a mapped file, or
     * by another view): reads and validates {@code _m_type} and the words that must agree with
     * it, changes nothing. An all-zero block is a valid NORMAL private mutex (musl's
     * {@code PTHREAD_MUTEX_INITIALIZER}). A private mutex gets
     * {@link Futexes#defaultPrivate()}; see {@link #attach(Block, Futex)}.
     *
     * @param block the block holding the mutex
     * @return the view
     * @throws IllegalArgumentException when the block is too small, misaligned, or does not
     *                                  hold a mutex: an unknown type word, a NORMAL lock word
     *                                  other than 0 / EBUSY (with or without bit 31), a
     *                                  negative waiter or recursion count
     */
    public static Mutex attach(final Block block) {
        return attach(block, null);
    }

    /**
     * {@link #attach(Block)} with a chosen backend (which must be the one every other view of a
     * private mutex uses, and serve shared words for a shared or robust one).
     *
     * @param block the block holding the mutex
     * @param futex the backend, or {@code null} for the default
     * @return the view
     * @throws IllegalArgumentException as {@link #attach(Block)}, or for a backend that cannot
     *                                  serve a shared or robust mutex
     */
    public static Mutex attach(final Block block, final Futex futex) {
        MutexLayout.checkBlock(Objects.requireNonNull(block, "block"));
        final int type = block.get(TYPE);
        MutexLayout.checkType(type);
        final int lock = block.get(LOCK);
        if ((type & MutexLayout.OWNER_TRACKED_MASK) == 0 && (lock & ~WAITERS_BIT) != 0 && (lock & ~WAITERS_BIT) != EBUSY) {
            throw new IllegalArgumentException("not a mutex: a NORMAL mutex's lock word is 0 or EBUSY, "
                + block + " holds 0x" + Integer.toHexString(lock));
        }
        if (block.get(WAITERS) < 0 || block.get(COUNT) < 0) {
            throw new IllegalArgumentException("not a mutex: negative waiter count " + block.get(WAITERS)
                + " or recursion count " + block.get(COUNT) + " in " + block);
        }
        return new Mutex(block, null, type, futex, false, Tuning.DEFAULT);
    }

    // ---------------------------------------------------------------------------------------
    // lock, trylock, timedlock: pthread_mutex_lock.c, pthread_mutex_trylock.c,
    // pthread_mutex_timedlock.c

    /**
     * Locks, sleeping as long as needed ({@code pthread_mutex_lock.c}). Not interruptible: an
     * interrupt is kept and left set.
     *
     * <p>Memory effects: a result of 0 or EOWNERDEAD has the effects of acquiring the lock.
     *
     * @return 0; EOWNERDEAD (robust: acquired, the previous owner died; call
     *     {@link #consistent()}); ENOTRECOVERABLE (robust, unrecoverable; not acquired);
     *     EDEADLK (ERRORCHECK relock by the owner); EAGAIN (RECURSIVE count would pass
     *     {@code Integer.MAX_VALUE}; or a robust or owner-tracked process-shared mutex, and the
     *     calling thread already holds 2048 such, the most the kernel marks when a thread dies:
     *     not acquired, and without sleeping). A NORMAL mutex relocked by its owner deadlocks, as
     *     POSIX specifies.
     * @throws UnsupportedOperationException on a virtual thread, for a robust or owner-tracked
     *                                       process-shared mutex
     */
    public int lock() {
        if (tryLockFree() == 0) {
            return 0;
        }
        if (fair != null) {
            return fairLock(Timespec.CLOCK_REALTIME, null, false);
        }
        return lockSlow(Timespec.CLOCK_REALTIME, null, false, 0, true);
    }

    /**
     * The first step of {@link #lock()} alone: one CAS that takes a free word, and nothing else
     * (not a relock by the owner, not a mutex on the kernel robust list, whose acquisition links
     * the list: both answer EBUSY with nothing done). For a caller that does something of its own
     * before the rest of a lock: the {@code java.util.concurrent} adapter tries this, then
     * {@link #tryLock()}, and times only the {@link #lock()} that follows when both failed.
     *
     * <p>Memory effects: a result of 0 has the effects of acquiring the lock.
     *
     * @return 0 (acquired) or EBUSY (nothing done)
     */
    public int tryLockFree() {
        if (fair != null) {
            return fair.tryAcquire() ? owned(tracked ? self().tid : 0) : EBUSY;
        }
        if (!tracked) {
            return (int) INT.compareAndExchange(seg, LOCK, 0, EBUSY) == 0 ? 0 : EBUSY;
        }
        // The first step of musl's trylock_owner when the word is 0: a plain CAS to tid.
        return !linked && (int) INT.compareAndExchange(seg, LOCK, 0, self().tid) == 0 ? 0 : EBUSY;
    }

    /**
     * {@link #lock()} that gives up when the thread is interrupted, on entry or while asleep.
     * The interrupt status is left set.
     *
     * @return as {@link #lock()}, or EINTR (not acquired)
     * @throws UnsupportedOperationException as {@link #lock()}
     */
    public int lockInterruptibly() {
        return timedLock(Timespec.CLOCK_REALTIME, null, true);
    }

    /**
     * Locks if that needs no waiting ({@code pthread_mutex_trylock.c}).
     *
     * <p>Memory effects: a result of 0 or EOWNERDEAD has the effects of acquiring the lock.
     *
     * @return 0; EBUSY (held by another thread, or by the caller for NORMAL/ERRORCHECK, or a
     *     non-robust mutex whose owner died); EOWNERDEAD; ENOTRECOVERABLE; EAGAIN (RECURSIVE
     *     count overflow, or 2048 robust mutexes held, as {@link #lock()})
     * @throws UnsupportedOperationException as {@link #lock()}
     */
    public int tryLock() {
        if (fair != null) {
            final int tid = tracked ? self().tid : 0;
            final int r = fairRelock(tid);
            return r != EBUSY ? r == Errno.EDEADLK ? EBUSY : r : fair.tryAcquire() ? owned(tid) : EBUSY;
        }
        if (!tracked) {
            return (int) INT.compareAndExchange(seg, LOCK, 0, EBUSY) & EBUSY;
        }
        final Self self = self();
        return trylockOwner(self.tid, linked ? self.robust() : null, 0);
    }

    /**
     * Locks, sleeping until {@code abs} on CLOCK_REALTIME at the latest
     * ({@code pthread_mutex_timedlock.c}). The deadline is only looked at if the call has to
     * sleep: a free mutex is acquired even with an invalid one.
     *
     * @param abs the absolute deadline on CLOCK_REALTIME, or {@code null} for none
     * @return as {@link #lock()}, or ETIMEDOUT (not acquired), or EINVAL (the call had to sleep
     *     and {@code abs.nsec()} is outside {@code [0, 1e9)})
     * @throws UnsupportedOperationException as {@link #lock()}
     */
    public int timedLock(final Timespec abs) {
        return timedLock(Timespec.CLOCK_REALTIME, abs, false);
    }

    /**
     * Locks with a deadline on a chosen clock, optionally interruptible.
     *
     * @param clock         {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}
     * @param abs           the absolute deadline on {@code clock}, or {@code null} for none
     * @param interruptible whether an interrupt (already set on entry, or arriving while asleep)
     *                      ends the call with EINTR
     * @return as {@link #timedLock(Timespec)}, or EINTR (not acquired), or EINVAL for an unknown
     *     clock when the call had to sleep
     * @throws UnsupportedOperationException as {@link #lock()}
     */
    public int timedLock(final int clock, final Timespec abs, final boolean interruptible) {
        if (interruptible && Thread.currentThread().isInterrupted()) {
            return Errno.EINTR;
        }
        if (fair != null) {
            return fairLock(clock, abs, interruptible);
        }
        if (!tracked && (int) INT.compareAndExchange(seg, LOCK, 0, EBUSY) == 0) {
            return 0;
        }
        return lockSlow(clock, abs, interruptible, 0, true);
    }

    // ---------------------------------------------------------------------------------------
    // the fair mutex: FairProtocol

    /**
     * A fair lock: the owner's relock as the kind says, else a ticket, served at once or after
     * a wait in the queue ({@link FairProtocol#acquire}); the served thread records itself as
     * the owner.
     */
    private int fairLock(final int clock, final Timespec at, final boolean interruptible) {
        final int tid = tracked ? self().tid : 0;
        final int r = fairRelock(tid);
        if (r != EBUSY) {
            return r;
        }
        if (fair.tryAcquire()) {
            return owned(tid);
        }
        final int e = fair.acquire(clock, at, interruptible);
        return e == 0 ? owned(tid) : e;
    }

    /**
     * The owner's own relock of a fair mutex: 0 (RECURSIVE: counted), EAGAIN (count overflow),
     * EDEADLK (ERRORCHECK), or EBUSY when the caller is not the owner (or the mutex is NORMAL,
     * which records no owner).
     */
    private int fairRelock(final int tid) {
        if (!tracked || ((int) INT.getVolatile(seg, LOCK) & OWNER_MASK) != tid) {
            return EBUSY;
        }
        if (kind == MutexLayout.RECURSIVE) {
            final int count = (int) INT.get(seg, COUNT);
            if (Integer.compareUnsigned(count, Integer.MAX_VALUE) >= 0) {
                return Errno.EAGAIN;
            }
            INT.set(seg, COUNT, count + 1);
            return 0;
        }
        return Errno.EDEADLK;
    }

    /** The served thread records itself as the owner (a NORMAL mutex: EBUSY, as musl's lock word); {@return 0} */
    private int owned(final int tid) {
        INT.setVolatile(seg, LOCK, tracked ? tid : EBUSY);
        return 0;
    }

    /**
     * The unlock of a fair mutex: the owner check and the recursion count, then the owner word
     * cleared and the ticket handed on ({@link FairProtocol#release}), after which nothing of the
     * mutex but the futex is touched.
     */
    private int fairUnlock() {
        final int old = (int) INT.getVolatile(seg, LOCK);
        if (tracked) {
            if ((old & OWNER_MASK) != self().tid) {
                return Errno.EPERM;
            }
            if (kind == MutexLayout.RECURSIVE) {
                final int count = (int) INT.get(seg, COUNT);
                if (count != 0) {
                    INT.set(seg, COUNT, count - 1);
                    return 0;
                }
            }
        } else if (old != EBUSY) {
            return Errno.EPERM; // a NORMAL fair mutex that is not locked: its queue must not move
        }
        final int s = fair.serving();
        INT.setVolatile(seg, LOCK, 0);
        fair.release(s);
        return 0;
    }

    /**
     * The body of musl's {@code __pthread_mutex_timedlock} after its fast path, with the
     * protocol's sleep where musl counts itself in, sets bit 31 and waits.
     *
     * @param turns  the turns the caller lost on this mutex already ({@link Protocol#mark}): 1
     *               for a condvar waiter requeued onto it and woken by an unlock, else 0
     * @param yields whether the spin gives way to a holder that relocks ({@link Protocol#spin}):
     *               false for a condvar waiter's relock
     */
    private int lockSlow(final int clock, final Timespec at, final boolean interruptible, int turns,
                         final boolean yields) {
        final Self me = tracked ? self() : null;
        final RobustList self = linked ? me.robust() : null;
        final int tid = tracked ? me.tid : 0;
        int r = tryLock(tid, self, protocol.mark(turns));
        if (r != EBUSY) {
            return r;
        }
        if (protocol.spin(1, yields)) {
            turns++;
        }
        while ((r = tryLock(tid, self, protocol.mark(turns))) == EBUSY) {
            r = (int) INT.getVolatile(seg, LOCK);
            final int own = r & OWNER_MASK;
            if (own == 0 && (r == 0 || robust)) {
                continue;
            }
            if (kind == MutexLayout.ERRORCHECK && own == tid) {
                return Errno.EDEADLK;
            }
            r = protocol.sleep(r, 1, turns, clock, at, interruptible);
            if (r == 0) {
                turns++;
            } else if (r != Errno.EAGAIN) {
                return r;
            }
        }
        return r;
    }

    /** musl's {@code __pthread_mutex_trylock}; {@code mark} is or-ed into the acquiring CAS. */
    private int tryLock(final int tid, final RobustList self, final int mark) {
        if (!tracked) {
            return (int) INT.compareAndExchange(seg, LOCK, 0, EBUSY | mark) & EBUSY;
        }
        return trylockOwner(tid, self, mark);
    }

    /**
     * musl's {@code __pthread_mutex_trylock_owner}, without the priority-inheritance parts.
     *
     * @param mark {@link MutexLayout#WAITERS_BIT} to record bit 31 with the acquisition (the bit
     *             rule), else 0
     */
    private int trylockOwner(final int tid, final RobustList self, final int mark) {
        final int old = (int) INT.getVolatile(seg, LOCK);
        final int own = old & OWNER_MASK;
        if (own == tid && kind == MutexLayout.RECURSIVE) {
            final int count = (int) INT.get(seg, COUNT);
            if (Integer.compareUnsigned(count, Integer.MAX_VALUE) >= 0) {
                return Errno.EAGAIN;
            }
            INT.set(seg, COUNT, count + 1);
            return 0;
        }
        if (own == OWNER_MASK) {
            return Errno.ENOTRECOVERABLE;
        }
        if (self != null && own != tid && self.isFull()) {
            return Errno.EAGAIN; // the kernel would not mark it at this thread's death (RobustList.LIMIT)
        }
        if (own != 0 || (old != 0 && !robust)) {
            return EBUSY;
        }
        if (self == null) {
            return (int) INT.compareAndExchange(seg, LOCK, old, tid | mark) == old ? 0 : EBUSY;
        }
        // Linked: the kernel must see bit 31 to wake a sleeper when this owner dies.
        int next = tid | (old & OWNER_DIED);
        if ((int) INT.getVolatile(seg, WAITERS) != 0) {
            next |= WAITERS_BIT;
        }
        final long node = seg.address() + MutexLayout.NEXT;
        self.pending(node);
        if ((int) INT.compareAndExchange(seg, LOCK, old, next) != old) {
            self.pending(0);
            return EBUSY;
        }
        self.link(seg);
        if (old != 0) {
            INT.set(seg, COUNT, 0);
            return Errno.EOWNERDEAD;
        }
        return 0;
    }

    // ---------------------------------------------------------------------------------------
    // unlock: pthread_mutex_unlock.c

    /**
     * Unlocks ({@code pthread_mutex_unlock.c}). Reads everything it needs before the releasing
     * swap and afterwards only wakes the futex, so the mutex may be destroyed and its memory
     * freed by another thread as soon as it is acquired again.
     *
     * <p>Memory effects: actions before it happen-before a later acquisition of the mutex.
     *
     * @return 0; EPERM (owner-tracked kinds: the caller is not the owner, or it is not
     *     locked). A NORMAL mutex is not checked: any thread may unlock it. A robust mutex
     *     unlocked after EOWNERDEAD without {@link #consistent()} becomes unrecoverable.
     */
    public int unlock() {
        if (fair != null) {
            return fairUnlock();
        }
        final int waiters = protocol.waiters();
        if (tracked) {
            if (!linked && waiters == 0) {
                // Nobody counted and the word exactly our tid (no bit 31) with no recursion
                // pending: the swap would return tid and wake nobody, so one CAS releases. The
                // count is read first: it is ours if the CAS succeeds, and the CAS fails for a
                // thread that does not own the mutex.
                final int tid = self().tid;
                if ((kind != MutexLayout.RECURSIVE || (int) INT.get(seg, COUNT) == 0)
                    && (int) INT.compareAndExchange(seg, LOCK, tid, 0) == tid) {
                    return 0;
                }
            }
            return unlockOwner(waiters);
        }
        final int cont = (int) INT.getAndSet(seg, LOCK, 0);
        if (waiters != 0 || cont < 0) {
            protocol.wake(1);
        }
        return 0;
    }

    /** The owner-tracked part of musl's {@code __pthread_mutex_unlock}. */
    private int unlockOwner(final int waiters) {
        final int old = (int) INT.getVolatile(seg, LOCK);
        final Self self = self();
        if ((old & OWNER_MASK) != self.tid) {
            return Errno.EPERM;
        }
        if (kind == MutexLayout.RECURSIVE) {
            final int count = (int) INT.get(seg, COUNT);
            if (count != 0) {
                INT.set(seg, COUNT, count - 1);
                return 0;
            }
        }
        final int next = robust && (old & OWNER_DIED) != 0 ? MutexLayout.UNRECOVERABLE : 0;
        final RobustList list = linked ? self.robustOrNull() : null;
        if (list != null) {
            return unlockLinked(list, waiters, next);
        }
        final int cont = (int) INT.getAndSet(seg, LOCK, next);
        if (waiters != 0 || cont < 0) {
            protocol.wake(1);
        }
        return 0;
    }

    private int unlockLinked(final RobustList self, final int waiters, final int next) {
        self.pending(seg.address() + MutexLayout.NEXT);
        final boolean found = self.unlink(seg);
        final int cont = (int) INT.getAndSet(seg, LOCK, next);
        if (waiters != 0 || cont < 0) {
            protocol.wake(next == MutexLayout.UNRECOVERABLE ? -1 : 1);
        }
        // Unlike musl, list_op_pending is cleared only after the wake: a thread killed between
        // the releasing swap and the wake then still names this mutex, and the kernel's exit
        // walk, finding the word 0, issues the wake the dead thread owed (Linux's
        // handle_futex_death pending-op case). Clearing it first left a sleeper asleep for
        // ever in that window. The pending slot is our own memory, not the mutex's.
        self.pending(0);
        if (!found) {
            self.purge();
        }
        return 0;
    }

    // ---------------------------------------------------------------------------------------
    // what a condvar wait does to its mutex: pthread_cond_timedwait.c

    /**
     * musl's check at the start of a condvar wait:
     * {@code (m->_m_type&15) && (m->_m_lock&INT_MAX) != self->tid} fails the wait with EPERM.
     *
     * @return whether the calling thread may wait with this mutex
     */
    boolean waitPermitted() {
        return !tracked || ((int) INT.getVolatile(seg, LOCK) & Integer.MAX_VALUE) == self().tid;
    }

    /**
     * musl's {@code relock:} in {@code pthread_cond_timedwait.c}, a plain
     * {@code pthread_mutex_lock}, with two facts the parking protocol needs: the waiter meets a
     * signaler about to release (a handoff), so its spin takes the first free word instead of
     * giving way to a holder that relocks; and a waiter requeued onto this mutex's word, which an
     * unlock woke, took the wake that carried bit 31, so its acquisition records the bit while
     * others are counted (it skips the fast path, whose CAS records nothing). Under musl's
     * protocol this is {@link #lock()}.
     *
     * @param requeued whether the waiter was requeued onto this mutex's word
     * @return as {@link #lock()}
     */
    int relock(final boolean requeued) {
        if (fair != null) {
            return fairLock(Timespec.CLOCK_REALTIME, null, false);
        }
        if (!requeued && tryLockFree() == 0) {
            return 0;
        }
        return lockSlow(Timespec.CLOCK_REALTIME, null, false, requeued ? 1 : 0, false);
    }

    /**
     * Counts in {@code _m_waiters} condvar waiters that sleep on this mutex's word without
     * having counted themselves (requeued onto it): while counted, every unlock under musl's
     * rule wakes, and every acquisition after a wake under the bit rule records bit 31.
     * Called by the first waiter of a signaled group, with {@link #uncountRequeued()} by the
     * last.
     */
    void countRequeued() {
        if (fair == null) { // a fair mutex takes no requeued waiter, and its count is its queue's
            INT.getAndAdd(seg, WAITERS, 1);
        }
    }

    /** Undoes {@link #countRequeued()}. */
    void uncountRequeued() {
        if (fair == null) {
            INT.getAndAdd(seg, WAITERS, -1);
        }
    }

    /**
     * {@code val = m->_m_lock; if (val > 0) a_cas(&m->_m_lock, val, val | 0x80000000);}: the
     * holder about to requeue a condvar waiter onto the word makes its own unlock wake it.
     */
    void markWaiters() {
        if (fair != null) {
            return;
        }
        final int val = (int) INT.getVolatile(seg, LOCK);
        if (val > 0) {
            INT.compareAndExchange(seg, LOCK, val, val | WAITERS_BIT);
        }
    }

    /**
     * Moves one thread asleep on another futex word to sleep on this mutex's word, without
     * waking it ({@code FUTEX_REQUEUE}), if the mutex can take it: its word is private and
     * sleeps on the same backend (a robust mutex sleeps with shared operations, and one call
     * cannot move a waiter between a private and a shared key, or between two backends).
     *
     * @param from the backend of the word the thread sleeps on
     * @param seg  that word's segment
     * @param off  its offset
     * @return false when the mutex cannot take it (or the requeue failed): wake it instead
     */
    boolean requeue(final Futex from, final MemorySegment seg, final long off) {
        return fair == null && priv && from == futex && futex.requeue(seg, off, 0, 1, this.seg, LOCK, true) >= 0;
    }

    // ---------------------------------------------------------------------------------------
    // consistent, destroy: pthread_mutex_consistent.c, pthread_mutex_destroy.c

    /**
     * Marks a robust mutex acquired with EOWNERDEAD consistent again
     * ({@code pthread_mutex_consistent.c}); the next unlock then frees it normally.
     *
     * @return 0; EINVAL (not robust, not locked, or not inconsistent); EPERM (the caller is not
     *     the owner; also for an unrecoverable mutex, whose owner field is nonzero)
     */
    public int consistent() {
        final int old = (int) INT.getVolatile(seg, LOCK);
        final int own = old & OWNER_MASK;
        if (!robust || own == 0 || (old & OWNER_DIED) == 0) {
            return Errno.EINVAL;
        }
        if (own != self().tid) {
            return Errno.EPERM;
        }
        INT.getAndBitwiseAnd(seg, LOCK, ~OWNER_DIED);
        return 0;
    }

    /**
     * {@code pthread_mutex_destroy.c}: nothing to release; the block may be reused or freed
     * once no thread uses the mutex.
     *
     * @return 0
     */
    public int destroy() {
        return 0;
    }

    /** The calling thread's identity ({@link Self#current()}: a table read, no thread-local lookup). */
    private static Self self() {
        return Self.current();
    }

    // ---------------------------------------------------------------------------------------
    // introspection

    /**
     * {@return the owner id in the lock word (a kernel tid, or a virtual thread's id from
     *     {@link ThreadIds}), 0 when free or when the owner died and nobody claimed it yet,
     *     0x3fffffff when unrecoverable; always 0 for a NORMAL mutex, which records no owner}
     */
    public int ownerId() {
        return tracked ? (int) INT.getVolatile(seg, LOCK) & OWNER_MASK : 0;
    }

    /** {@return whether the calling thread owns it; always false for a NORMAL mutex (no owner recorded)} */
    public boolean isHeldByCurrentThread() {
        return tracked && ((int) INT.getVolatile(seg, LOCK) & OWNER_MASK) == self().tid;
    }

    /** {@return the calling thread's holds: 0 if it does not own it, else 1 + the recursion count} */
    public int holdCount() {
        return isHeldByCurrentThread() ? (int) INT.getVolatile(seg, COUNT) + 1 : 0;
    }

    /** {@return {@code _m_waiters}: threads sleeping, or about to, in a lock} */
    public int waiterCount() {
        return (int) INT.getVolatile(seg, WAITERS);
    }

    /** {@return the state of the lock word} */
    public State state() {
        final int w = (int) INT.getVolatile(seg, LOCK);
        if (w == 0) {
            // a fair mutex handed to a thread that has not yet written itself in is held
            return fair != null && fair.busy() ? State.LOCKED : State.FREE;
        }
        if (!tracked) {
            return State.LOCKED;
        }
        if ((w & OWNER_MASK) == OWNER_MASK) {
            return State.UNRECOVERABLE;
        }
        return (w & OWNER_DIED) != 0 ? State.OWNER_DIED : State.LOCKED;
    }

    /** {@return the attributes (for an attached mutex, decoded from {@code _m_type})} */
    public MutexAttr attr() {
        return attr;
    }

    /**
     * {@return {@code _m_type}, as {@link MutexAttr#bits()}: kind | {@link MutexLayout#ROBUST} |
     *     {@link MutexLayout#PSHARED} (the kind alone is {@code attr().type()})}
     */
    public int bits() {
        return type;
    }

    /** {@return whether the mutex is fair ({@link MutexLayout#FAIR}: FIFO, {@link SleepProtocol#FAIR})} */
    public boolean isFair() {
        return fair != null;
    }

    /**
     * The threads of this JVM asleep waiting for the mutex, in the order wakes take them, as far
     * as the backend can tell: on the parking backend the sleepers on the word the protocol sleeps
     * on (a thread still spinning, or between two sleeps, is missing); on a kernel backend an
     * empty list (the kernel does not tell). For monitoring.
     *
     * @return the sleeping threads, a new list
     */
    public java.util.List<Thread> queuedThreads() {
        if (futex instanceof org.pthread4j.futex.ParkingFutex p) {
            return p.sleepers(seg, fair != null ? fair.sleepWord() : LOCK);
        }
        return java.util.List.of();
    }

    /** {@return whether the mutex is process-shared} */
    public boolean isPshared() {
        return (type & MutexLayout.PSHARED) != 0;
    }

    /** {@return the block the mutex lives in} */
    public Block block() {
        return block;
    }

    /** {@return the backend its lock word sleeps on} */
    public Futex futex() {
        return futex;
    }

    /** {@return musl's {@code priv}: whether futex calls on {@code _m_lock} carry the private flag} */
    boolean priv() {
        return priv;
    }

    /** {@return how its threads sleep and wake (see "Backends and protocols" in the class overview)} */
    public SleepProtocol sleepProtocol() {
        return protocol.kind();
    }

    @Override
    public String toString() {
        final int w = (int) INT.getVolatile(seg, LOCK);
        return "Mutex[" + attr + ", " + state() + ", lock=0x" + Integer.toHexString(w)
            + ", waiters=" + waiterCount() + ", " + protocol + "]";
    }
}
