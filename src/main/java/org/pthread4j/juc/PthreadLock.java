package org.pthread4j.juc;

import org.pthread4j.Cond;
import org.pthread4j.CondAttr;
import org.pthread4j.CondLayout;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.futex.Timespec;
import org.pthread4j.futex.Futex;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.io.Serializable;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Lock} that is a musl {@code pthread_mutex_t} ({@link Mutex}): a drop-in for
 * {@link ReentrantLock} whose state lives in off-heap memory, private to this JVM by default or
 * placed in a caller's {@link Block} (a file mapped by several processes, or a C program linked
 * with musl, can share it).
 *
 * <h2>Overview</h2>
 *
 * <p>This class adds no synchronization of its own: each method is one call of the mutex
 * (musl's {@code pthread_mutex_lock.c}, {@code _trylock.c}, {@code _timedlock.c},
 * {@code _unlock.c}) and a translation of its errno into what {@link Lock} specifies. By
 * default the mutex is RECURSIVE, so the lock is reentrant as {@code ReentrantLock} is: the
 * owner may lock again, and as many {@code unlock}s release it; the hold count is the mutex's
 * {@code _m_count} plus one. Other kinds, chosen with {@link MutexAttr}:
 * <ul>
 * <li><b>ERRORCHECK</b>: not reentrant. A {@code lock} by the owner throws
 *     {@link IllegalStateException} (musl's EDEADLK) instead of deadlocking or recursing;
 *     {@code tryLock()} by the owner answers false.</li>
 * <li><b>robust</b> (either kind): when an owner thread or process dies holding the lock, the
 *     next acquisition succeeds but throws {@link OwnerDiedException}, with the lock held; the
 *     owner repairs the data and calls {@link #markConsistent()}. Unlocking without it makes
 *     the lock unusable ({@link NotRecoverableException} for everyone after). Robust locks use
 *     the kernel robust list and work on platform threads only
 *     ({@link UnsupportedOperationException} on a virtual thread).</li>
 * <li><b>process-shared</b>: the futex calls omit the private flag, so processes mapping the
 *     block meet on it; such a lock must be placed in shared memory
 *     ({@link #PthreadLock(Block, MutexAttr)}) and is opened elsewhere with {@link #attach}.</li>
 * </ul>
 * A NORMAL mutex records no owner, so it cannot tell who holds it or refuse a wrong unlock:
 * this class refuses it.
 *
 * <h2>Differences from ReentrantLock</h2>
 * <ul>
 * <li>Not fair by default: musl's mutex lets an arriving thread take a free lock ahead of
 *     sleepers. A fair lock ({@link #PthreadLock(boolean) PthreadLock(true)}, or a fair
 *     {@link MutexAttr}) is a ticket lock, FIFO, private or process-shared; its
 *     {@link #tryLock()} does not barge past waiting threads, as {@code ReentrantLock}'s does.</li>
 * <li>The queue is a count: {@link #getQueueLength()} and {@link #hasQueuedThreads()} read
 *     {@code _m_waiters}, in every backend and process. Which threads wait is known only where
 *     they sleep in this JVM: on the parking backend (the default for private locks)
 *     {@link #getQueuedThreads()} and {@link #hasQueuedThread(Thread)} ask it which threads
 *     sleep on the lock's word; on the kernel backends (and for process-shared or robust locks)
 *     the kernel does not tell, and they answer an empty collection and false (see each
 *     method). {@link #getWaitingThreads(Condition)} knows the waiters of a private condition
 *     on every backend. {@link #getOwner()} names the owner when it is a thread of this
 *     process, and {@link #toString()} names it by its thread id ({@link #getOwnerId()}).</li>
 * <li>The maximum hold count is {@code Integer.MAX_VALUE} (musl's count overflow check), past
 *     which {@code lock} throws {@link Error}, as {@code ReentrantLock} does.</li>
 * <li>Interrupts are answered within the backend's wait slice: at once on the parking
 *     backend and by virtual threads, within 20 ms by platform threads on the kernel
 *     backends.</li>
 * <li>Blocked threads show as {@code WAITING}/{@code TIMED_WAITING} on the parking backend
 *     (the default for private locks); on the kernel backends (and for every process-shared or
 *     robust lock) a blocked platform thread is in a native call and shows as
 *     {@code RUNNABLE}. A blocked virtual thread is parked, and unmounts, on every backend
 *     ({@link org.pthread4j.futex.LinuxFutex} keeps it out of the native wait).</li>
 * </ul>
 *
 * <h2>Monitoring</h2>
 *
 * <p>A {@code lock}, {@code lockInterruptibly} or timed {@code tryLock} that does not succeed at
 * once is recorded as a JFR event, {@code org.pthread4j.ContendedAcquire}, as the JVM records
 * {@code jdk.JavaMonitorEnter} for {@code synchronized} (threshold 20 ms; enable it with its
 * name in a recording's settings): the wait's duration and stack, the lock's name and address,
 * the owner when the wait began (as a thread of this process, and as the owner id the mutex
 * word holds), the backend, and whether the lock was acquired. A condition's wait is
 * {@code org.pthread4j.ConditionWait}. An event is made only after the mutex's own attempts
 * failed ({@link Mutex#tryLockFree()}, then {@link Mutex#tryLock()}), around the call that spins
 * and sleeps: the uncontended path never touches it, whether a recording enables it or not.
 *
 * <h2>Serialization</h2>
 *
 * <p>A private lock is serialized as {@code ReentrantLock} is: as its kind (RECURSIVE or
 * ERRORCHECK, robust or not) and backend, and deserialized as a new lock in its own memory,
 * unlocked whatever its state when written; a backend other than the named ones
 * ({@code parking}, {@code linux}, {@code linux-noprivate}) is read back as the default. A
 * process-shared lock is not serializable ({@link NotSerializableException}): its state is
 * memory that other processes map, and a copy in a byte stream would be another lock, not a
 * view of that one; pass the file and offset instead and {@link #attach} there. Its conditions
 * are not serializable. A subclass is serialized with its own fields, as for the JDK's locks.
 *
 * <p>Memory consistency: as for every {@link Lock}, a successful {@code lock}, {@code tryLock}
 * or {@code lockInterruptibly} (including one that throws {@link OwnerDiedException}) has the
 * effects of a monitor enter, and {@code unlock} of a monitor exit: actions before an unlock
 * happen-before the actions after the next acquisition, in this process or, through shared
 * memory, in another.
 */
public class PthreadLock implements Lock, Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The attributes of {@link #PthreadLock()}: RECURSIVE, private, default backend. */
    public static final MutexAttr RECURSIVE = MutexAttr.builder().type(MutexAttr.RECURSIVE).build();

    /** The attributes of {@link #PthreadLock(boolean) PthreadLock(true)}: RECURSIVE, fair, private, default backend. */
    public static final MutexAttr RECURSIVE_FAIR = MutexAttr.builder().type(MutexAttr.RECURSIVE).fair(true).build();

    /** The primitive's name in JFR events. */
    private static final String PRIMITIVE = "PthreadLock";

    /** The mutex; set once, by the constructor or by {@link #readObject}. */
    private transient Mutex mutex;

    /**
     * A private reentrant lock on the default private backend
     * ({@link org.pthread4j.futex.Futexes#defaultPrivate()}), in its own memory, freed when the
     * lock is no longer reachable.
     */
    public PthreadLock() {
        this(RECURSIVE);
    }

    /**
     * A private reentrant lock with the given fairness policy, as {@code ReentrantLock(boolean)},
     * on the default private backend, in its own memory. A fair lock
     * ({@link MutexAttr.Builder#fair}) is granted to the waiting threads in the order they asked
     * for it (first in, first out: a ticket lock, {@link org.pthread4j.SleepProtocol#FAIR});
     * unlike {@code ReentrantLock}'s, its untimed {@link #tryLock()} does not barge: it takes the
     * lock only when it is free and nobody waits. Fair and non-fair locks may be placed in shared
     * memory too ({@link #PthreadLock(Block, MutexAttr)} with a fair attribute).
     *
     * @param fair whether the lock is fair ({@link #isFair()})
     */
    public PthreadLock(final boolean fair) {
        this(fair ? RECURSIVE_FAIR : RECURSIVE);
    }

    /**
     * A lock in its own private memory with the given attributes, for example another backend:
     * {@code MutexAttr.builder().type(MutexAttr.RECURSIVE).futex(Futexes.linux()).build()}.
     *
     * <p>The memory is freed when the lock is no longer reachable, except for a robust (or
     * process-shared) lock: the kernel may write to such a lock when a thread that holds it
     * exits, a moment after the Java thread ended, so its 64 bytes are never freed. Place locks
     * that are made and dropped often in memory of your own ({@link #PthreadLock(Block, MutexAttr)}).
     *
     * @param attr RECURSIVE or ERRORCHECK, robust or not; process-shared makes no sense in
     *             private memory but is allowed
     * @throws IllegalArgumentException for a NORMAL mutex (it records no owner)
     */
    public PthreadLock(final MutexAttr attr) {
        this(ownMutex(attr));
    }

    /** {@return a mutex in private memory of its own: never freed when the kernel may write to it} */
    private static Mutex ownMutex(final MutexAttr attr) {
        return new Mutex(attr.robust() || attr.pshared() ? PrivateBlocks.permanent(MutexLayout.SIZE,
            MutexLayout.ALIGNMENT) : PrivateBlocks.allocate(MutexLayout.SIZE, MutexLayout.ALIGNMENT),
            checkKind(attr));
    }

    /**
     * Initializes a lock in a caller's block ({@code pthread_mutex_init}): in memory shared with
     * other processes when {@code attr} is process-shared. Initializing a block that some thread
     * uses is an error, as in C; other processes open it with {@link #attach(Block)}.
     *
     * @param block at least {@link MutexLayout#SIZE} bytes, 8-byte aligned
     * @param attr  RECURSIVE or ERRORCHECK, robust or not, private or process-shared
     * @throws IllegalArgumentException for a NORMAL mutex, or a block that is too small or misaligned
     */
    public PthreadLock(final Block block, final MutexAttr attr) {
        this(new Mutex(block, checkKind(Objects.requireNonNull(attr, "attr"))));
    }

    private PthreadLock(final Mutex mutex) {
        this.mutex = mutex;
        // publishes the field as a final one would be (it is not final only for readObject)
        VarHandle.releaseFence();
    }

    /**
     * A view of a lock initialized elsewhere (another process, another view, a C program):
     * {@link Mutex#attach(Block)}. A private lock must be used through one view only, or
     * through views on the same backend.
     *
     * @param block the block holding the mutex
     * @return the lock
     * @throws IllegalArgumentException when the block holds no mutex, or a NORMAL one
     */
    public static PthreadLock attach(final Block block) {
        return of(Mutex.attach(block));
    }

    /**
     * {@link #attach(Block)} with the backend a private lock's other views use.
     *
     * @param block the block holding the mutex
     * @param futex the backend, or {@code null} for the default
     * @return the lock
     * @throws IllegalArgumentException when the block holds no mutex, or a NORMAL one
     */
    public static PthreadLock attach(final Block block, final Futex futex) {
        return of(Mutex.attach(block, futex));
    }

    /**
     * A lock over an existing mutex object.
     *
     * @param mutex a RECURSIVE or ERRORCHECK mutex
     * @return the lock
     * @throws IllegalArgumentException for a NORMAL mutex
     */
    public static PthreadLock of(final Mutex mutex) {
        checkKind(mutex.attr());
        return new PthreadLock(mutex);
    }

    private static MutexAttr checkKind(final MutexAttr attr) {
        if (attr.type() == MutexAttr.NORMAL) {
            throw new IllegalArgumentException("a PthreadLock needs an owner-tracked mutex (RECURSIVE or ERRORCHECK): "
                + "a NORMAL mutex cannot tell who holds it, so unlock could not throw IllegalMonitorStateException");
        }
        return attr;
    }

    /** {@return the mutex under this lock} */
    public Mutex mutex() {
        return mutex;
    }

    // ---------------------------------------------------------------------------------------
    // Lock

    /**
     * Acquires the lock, waiting as long as needed ({@link Mutex#lock()}). If the current thread
     * holds it already, the hold count goes up by one (RECURSIVE). Not interruptible: an
     * interrupt is kept and left set.
     *
     * @throws OwnerDiedException            (robust) acquired, but the previous owner died
     * @throws NotRecoverableException       (robust) not acquired: the lock is unusable
     * @throws IllegalStateException         (ERRORCHECK) the current thread holds it already; or
     *                                       (robust or process-shared) it holds 2048 such locks
     *                                       already, the most the kernel recovers when a thread
     *                                       dies (its robust list walk): not acquired
     * @throws Error                         when the hold count would pass {@code Integer.MAX_VALUE}
     * @throws UnsupportedOperationException (robust or process-shared) on a virtual thread
     */
    @Override
    public void lock() {
        if (mutex.tryLockFree() != 0) {
            final int r = lockAfterFreeTry(false);
            if (r != 0) {
                acquired(r);
            }
        }
    }

    /**
     * The rest of {@link #lock()} and {@link #lockInterruptibly()} after the free-word CAS
     * failed: a full try (a relock by the owner, a robust lock), then the blocking part, timed by
     * a {@link ContendedAcquireEvent}.
     *
     * @return the mutex's result
     */
    private int lockAfterFreeTry(final boolean interruptible) {
        final int tried = mutex.tryLock();
        if (tried != Errno.EBUSY) {
            return tried;
        }
        final ContendedAcquireEvent event = ContendedAcquireEvent.begin(mutex.ownerId(), null);
        // lock()'s slow path, without the free-word CAS that already failed
        final int r = mutex.timedLock(Timespec.CLOCK_REALTIME, null, interruptible);
        event.done(PRIMITIVE, this, mutex.block(), mutex.futex(), r == 0 || r == Errno.EOWNERDEAD);
        return r;
    }

    /**
     * Acquires the lock unless the current thread is interrupted, on entry or while it waits
     * ({@link Mutex#lockInterruptibly()}).
     *
     * @throws InterruptedException when interrupted; the interrupt status is cleared and the
     *                              lock is not acquired
     * @throws OwnerDiedException   as {@link #lock()}, and the other exceptions of {@link #lock()}
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (mutex.tryLockFree() != 0) {
            final int r = lockAfterFreeTry(true);
            if (r != 0) {
                interrupted(r);
                acquired(r);
            }
        }
    }

    /**
     * Acquires the lock if no other thread holds it ({@link Mutex#tryLock()}); the current
     * holder acquires it again (RECURSIVE). Like {@code ReentrantLock.tryLock()} it takes a free
     * lock even when threads wait for it.
     *
     * @return whether the lock was acquired (false also for an ERRORCHECK lock the current
     *     thread holds)
     * @throws OwnerDiedException as {@link #lock()}, and the other exceptions of {@link #lock()}
     */
    @Override
    public boolean tryLock() {
        final int r = mutex.tryLock();
        return r == 0 || acquired(r);
    }

    /**
     * Acquires the lock, waiting at most {@code time} (measured on CLOCK_MONOTONIC) and answering
     * interrupts ({@link Mutex#timedLock(int, Timespec, boolean)}). A time of zero or less only
     * tries.
     *
     * @param time how long to wait
     * @param unit its unit
     * @return true when acquired, false when the time passed first
     * @throws InterruptedException when interrupted, on entry or while waiting; the interrupt
     *                              status is cleared and the lock is not acquired
     * @throws OwnerDiedException   as {@link #lock()}, and the other exceptions of {@link #lock()}
     */
    @Override
    public boolean tryLock(final long time, final TimeUnit unit) throws InterruptedException {
        final long nanos = unit.toNanos(time);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        int r = mutex.tryLock();
        if (r == Errno.EBUSY && nanos > 0) {
            final ContendedAcquireEvent event = ContendedAcquireEvent.begin(mutex.ownerId(), null);
            r = mutex.timedLock(Timespec.CLOCK_MONOTONIC, Timespec.after(Timespec.CLOCK_MONOTONIC, nanos,
                TimeUnit.NANOSECONDS), true);
            event.done(PRIMITIVE, this, mutex.block(), mutex.futex(), r == 0 || r == Errno.EOWNERDEAD);
            interrupted(r);
        }
        return r == 0 || acquired(r);
    }

    /**
     * Releases one hold ({@link Mutex#unlock()}); the last one frees the lock and wakes a waiter.
     * A robust lock acquired with {@link OwnerDiedException} and not marked consistent becomes
     * unrecoverable when its last hold is released.
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     */
    @Override
    public void unlock() {
        if (mutex.unlock() != 0) {
            throw new IllegalMonitorStateException("the current thread does not hold " + this);
        }
    }

    /**
     * A new condition of this lock, a musl {@code pthread_cond_t} ({@link Cond}) in its own
     * private memory, on the same backend as a private lock (so a signal can move a waiter
     * straight onto the mutex instead of waking it). Its timed waits use CLOCK_MONOTONIC.
     *
     * <p>A process-shared lock has no such condition: one in private memory could never be
     * signalled by another process. Its conditions live in shared memory:
     * {@code SyncFile.condition(name, lock)}, or {@link #newCondition(Block, CondAttr)}.
     *
     * @return the condition
     * @throws UnsupportedOperationException for a process-shared lock
     */
    @Override
    public PthreadCondition newCondition() {
        if (mutex.attr().pshared()) {
            throw new UnsupportedOperationException(this + " is process-shared: a condition other processes can signal"
                + " must live in shared memory (SyncFile.condition(name, lock), or newCondition(block, attr) with a"
                + " process-shared CondAttr), not in this process's private memory");
        }
        final Futex f = mutex.attr().pshared() || mutex.attr().robust() ? null : mutex.attr().futex();
        final Cond cond = new Cond(PrivateBlocks.allocate(CondLayout.SIZE, CondLayout.ALIGNMENT),
            CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).futex(f).build());
        return new PthreadCondition(cond, mutex, new LockOwner());
    }

    /**
     * A new condition of this lock placed in a caller's block ({@code pthread_cond_init}); a
     * process-shared condition in shared memory lets threads of several processes wait and
     * signal with a process-shared lock.
     *
     * @param block at least {@link CondLayout#SIZE} bytes, 8-byte aligned
     * @param attr  the condition's attributes (its clock is the clock of timed waits)
     * @return the condition
     * @throws IllegalArgumentException for an unsuitable block or attributes
     */
    public PthreadCondition newCondition(final Block block, final CondAttr attr) {
        return new PthreadCondition(new Cond(block, attr), mutex, new LockOwner());
    }

    /**
     * A condition of this lock over a process-shared condvar initialized elsewhere
     * ({@link Cond#attach(Block)}).
     *
     * @param block the condvar's block
     * @return the condition
     * @throws IllegalArgumentException when the block holds no process-shared condvar
     */
    public PthreadCondition attachCondition(final Block block) {
        return new PthreadCondition(Cond.attach(block), mutex, new LockOwner());
    }

    // ---------------------------------------------------------------------------------------
    // Robustness

    /**
     * Marks a robust lock consistent after {@link OwnerDiedException}
     * ({@link Mutex#consistent()}): the data is repaired, the next unlock frees the lock normally.
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     * @throws IllegalStateException        when the lock is not robust or not in the owner-died
     *                                      state
     */
    public void markConsistent() {
        final int r = mutex.consistent();
        if (r == Errno.EPERM) {
            throw new IllegalMonitorStateException("the current thread does not hold " + this);
        }
        if (r != 0) {
            throw new IllegalStateException(Errno.name(r) + ": " + this + " is not a robust lock in the owner-died state");
        }
    }

    // ---------------------------------------------------------------------------------------
    // Introspection, as ReentrantLock

    /**
     * {@return how many times the current thread holds the lock, 0 when it does not
     *     ({@code _m_count} + 1 for the owner)}
     */
    public int getHoldCount() {
        return mutex.holdCount();
    }

    /** {@return whether the current thread holds the lock} */
    public boolean isHeldByCurrentThread() {
        return mutex.isHeldByCurrentThread();
    }

    /**
     * {@return whether any thread (of any process sharing the lock) holds it; also true for a
     *     robust lock whose owner died (until the next acquisition) or that is unrecoverable}
     */
    public boolean isLocked() {
        return mutex.state() != Mutex.State.FREE;
    }

    /** {@return whether the lock is fair: its mutex is a fair one ({@link Mutex#isFair()}, FIFO); musl's own is not} */
    public final boolean isFair() {
        return mutex.isFair();
    }

    /**
     * {@return the owner's thread id ({@link org.pthread4j.internal.ThreadIds}: the kernel tid of a
     *     platform thread), 0 when the lock is free}
     */
    public int getOwnerId() {
        return mutex.ownerId();
    }

    /**
     * {@return whether threads may be waiting to acquire the lock ({@code _m_waiters} nonzero): an
     *     estimate, as in {@code ReentrantLock}}
     */
    public final boolean hasQueuedThreads() {
        return mutex.waiterCount() > 0;
    }

    /**
     * {@return an estimate of the threads waiting to acquire the lock, in every process sharing it:
     *     {@code _m_waiters}, the threads in the sleeping phase of a lock (it may count one more
     *     while a group of waiters released by a condition's {@code signalAll} drains; it does not
     *     count a thread still spinning before its first sleep)}
     */
    public final int getQueueLength() {
        return mutex.waiterCount();
    }

    /**
     * Whether the given thread waits to acquire this lock, as far as this JVM can see: on the
     * parking backend, whether it sleeps on the lock's word now; a thread still spinning, or
     * between two sleeps, is not seen. On the kernel backends (and for a process-shared or
     * robust lock) the kernel does not tell which threads sleep, and the answer is false: use
     * {@link #hasQueuedThreads()} and {@link #getQueueLength()}, which count them.
     *
     * @param thread the thread
     * @return whether it is queued (a snapshot, for monitoring)
     * @throws NullPointerException when the thread is null
     */
    public final boolean hasQueuedThread(final Thread thread) {
        Objects.requireNonNull(thread, "thread");
        return getQueuedThreads().contains(thread);
    }

    /**
     * The threads waiting to acquire this lock, as far as this JVM can see: on the parking
     * backend, the threads asleep on the lock's word (in the order wakes take them; a thread
     * still spinning, or between two sleeps, is missing), a best-effort estimate as
     * {@code ReentrantLock}'s; on the kernel backends (and for a process-shared or robust lock)
     * an empty collection, since the kernel does not tell which threads sleep on a word (the
     * count is {@link #getQueueLength()}).
     *
     * @return the queued threads, a new collection
     */
    protected Collection<Thread> getQueuedThreads() {
        return mutex.queuedThreads();
    }

    /**
     * The thread that holds this lock, when it is a thread of this process that this library has
     * seen ({@link org.pthread4j.internal.ThreadIds}): the owner id recorded in the mutex word,
     * as a thread. A best-effort snapshot for monitoring, as {@code ReentrantLock}'s.
     *
     * @return the owner, or {@code null} when the lock is free, or held by a thread of another
     *     process sharing it
     */
    protected Thread getOwner() {
        final int id = mutex.ownerId();
        return id == 0 ? null : ThreadIds.thread(id);
    }

    /**
     * The threads waiting on a condition of this lock (signalled threads no longer are): on every
     * backend for a condition made by {@link #newCondition()} (its waiters are listed in this
     * process); empty for a process-shared condition, whose waiters may be in other processes
     * ({@link #getWaitQueueLength(Condition)} counts them). A best-effort estimate, as
     * {@code ReentrantLock}'s.
     *
     * @param condition a condition of this lock
     * @return the waiting threads, oldest first, a new collection
     * @throws IllegalMonitorStateException when the current thread does not hold this lock
     * @throws IllegalArgumentException     when the condition is not one of this lock's
     * @throws NullPointerException         when the condition is null
     */
    protected Collection<Thread> getWaitingThreads(final Condition condition) {
        return own(condition).cond().waitingThreads();
    }

    /**
     * {@return whether threads may be waiting on it}
     *
     * @param condition a condition of this lock
     * @throws IllegalMonitorStateException when the current thread does not hold this lock
     * @throws IllegalArgumentException     when the condition is not one of this lock's
     * @throws NullPointerException         when the condition is null
     */
    public boolean hasWaiters(final Condition condition) {
        return getWaitQueueLength(condition) > 0;
    }

    /**
     * {@return an estimate of the threads waiting on it ({@link Cond#waiterCount()}): an upper
     *     bound, as {@code ReentrantLock}'s, that counts a waiter from before it releases the lock}
     *
     * @param condition a condition of this lock
     * @throws IllegalMonitorStateException when the current thread does not hold this lock
     * @throws IllegalArgumentException     when the condition is not one of this lock's
     * @throws NullPointerException         when the condition is null
     */
    public int getWaitQueueLength(final Condition condition) {
        return own(condition).cond().waiterCount();
    }

    /** {@return one of this lock's conditions, once the caller is found to hold the lock} */
    private PthreadCondition own(final Condition condition) {
        Objects.requireNonNull(condition, "condition");
        if (!(condition instanceof PthreadCondition c) || c.mutex() != mutex) {
            throw new IllegalArgumentException("not a condition of this lock");
        }
        if (!isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("the current thread does not hold " + this);
        }
        return c;
    }

    /**
     * {@return {@code ReentrantLock}'s form with the owner's id instead of its name:
     *     {@code PthreadLock@1b6d3586[Locked by thread id 4242 (current), waiters=1; Mutex[...]]},
     *     or {@code [Unlocked; ...]}, {@code [Owner died; ...]}, {@code [Not recoverable; ...]}}
     */
    @Override
    public String toString() {
        final Mutex.State s = mutex.state();
        final String state = switch (s) {
            case FREE -> "Unlocked";
            case LOCKED -> "Locked by thread id " + mutex.ownerId()
                + (mutex.isHeldByCurrentThread() ? " (current, holds " + mutex.holdCount() + ")" : "");
            case OWNER_DIED -> "Owner died";
            case UNRECOVERABLE -> "Not recoverable";
        };
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "[" + state + ", waiters="
            + mutex.waiterCount() + "; " + mutex.attr() + "]";
    }

    // ---------------------------------------------------------------------------------------
    // errno translation

    /**
     * Translates a result of an acquisition that was not 0.
     *
     * @return false for EBUSY and ETIMEDOUT (not acquired); otherwise throws
     */
    private boolean acquired(final int r) {
        switch (r) {
            case Errno.EBUSY, Errno.ETIMEDOUT -> {
                return false;
            }
            case Errno.EOWNERDEAD -> throw new OwnerDiedException(this);
            case Errno.ENOTRECOVERABLE -> throw new NotRecoverableException(this);
            case Errno.EDEADLK -> throw new IllegalStateException("EDEADLK: the current thread already holds " + this
                + ", an errorcheck lock");
            case Errno.EAGAIN -> {
                if (mutex.isHeldByCurrentThread()) {
                    throw new Error("Maximum lock count exceeded");
                }
                throw new IllegalStateException("EAGAIN: the current thread holds 2048 robust or process-shared locks,"
                    + " the most the kernel recovers when a thread dies; " + this + " is not acquired");
            }
            default -> throw new IllegalStateException("unexpected result " + Errno.name(r) + " from " + mutex);
        }
    }

    /** Throws for EINTR, clearing the interrupt status as {@code java.util.concurrent} does. */
    private static void interrupted(final int r) throws InterruptedException {
        if (r == Errno.EINTR) {
            Thread.interrupted();
            throw new InterruptedException();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Serialization

    /**
     * Writes a private lock as its kind and backend, not its state.
     *
     * @param out the stream
     * @throws IOException              as the stream's
     * @throws NotSerializableException for a process-shared lock
     * @serialData the mutex type ({@link MutexAttr#RECURSIVE} or {@link MutexAttr#ERRORCHECK},
     *     with {@link MutexLayout#FAIR} or-ed in for a fair lock, an int), whether it is robust (a boolean), and the name of a requested backend (a
     *     String, or null for the default)
     */
    @Serial
    private void writeObject(final ObjectOutputStream out) throws IOException {
        final MutexAttr a = mutex.attr();
        if (a.pshared()) {
            throw new NotSerializableException(getClass().getName() + ": a process-shared lock lives in memory "
                + "that other processes map, and a copy would be another lock; attach to its block instead");
        }
        out.defaultWriteObject();
        out.writeInt(a.type() | (a.fair() ? MutexLayout.FAIR : 0));
        out.writeBoolean(a.robust());
        out.writeObject(SerialForms.backendName(a.futex()));
    }

    /**
     * Reads a lock as a new, unlocked one of the kind and backend written.
     *
     * @param in the stream
     * @throws IOException            as the stream's, or {@link InvalidObjectException} for a type
     *                                other than RECURSIVE or ERRORCHECK
     * @throws ClassNotFoundException as the stream's
     */
    @Serial
    private void readObject(final ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        final int written = in.readInt();
        final boolean fair = (written & MutexLayout.FAIR) != 0;
        final int type = written & ~MutexLayout.FAIR;
        final boolean robust = in.readBoolean();
        final Object backend = in.readObject();
        if ((type != MutexAttr.RECURSIVE && type != MutexAttr.ERRORCHECK) || (fair && robust)
            || (backend != null && !(backend instanceof String))) {
            throw new InvalidObjectException("a PthreadLock is RECURSIVE or ERRORCHECK on a named backend, not type "
                + type + " on " + backend);
        }
        mutex = ownMutex(MutexAttr.builder().type(type).robust(robust).fair(fair)
            .futex(SerialForms.backend((String) backend)).build());
        VarHandle.releaseFence();
    }

    /** Condition support: releases every hold but the one the condvar releases, and restores them. */
    private final class LockOwner extends PthreadCondition.Owner {
        @Override
        boolean isHeldByCurrentThread() {
            return mutex.isHeldByCurrentThread();
        }

        @Override
        int release() {
            final int holds = mutex.holdCount();
            for (int i = 1; i < holds; i++) {
                mutex.unlock();
            }
            return holds;
        }

        @Override
        void reacquire(final int holds, final int r) {
            if (r == Errno.ENOTRECOVERABLE) {
                throw new NotRecoverableException(PthreadLock.this);
            }
            for (int i = 1; i < holds; i++) {
                mutex.lock();
            }
            if (r == Errno.EOWNERDEAD) {
                throw new OwnerDiedException(PthreadLock.this);
            }
        }

        @Override
        String describe() {
            return PthreadLock.this.toString();
        }

        @Override
        Object lock() {
            return PthreadLock.this;
        }
    }
}
