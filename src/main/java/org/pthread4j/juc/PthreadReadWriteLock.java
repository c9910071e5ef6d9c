package org.pthread4j.juc;

import org.pthread4j.Cond;
import org.pthread4j.CondAttr;
import org.pthread4j.CondLayout;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.RwLock;
import org.pthread4j.RwLockAttr;
import org.pthread4j.RwLockLayout;
import org.pthread4j.futex.Timespec;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.internal.ThreadTable;
import org.pthread4j.memory.Block;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.io.Serializable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A {@link ReadWriteLock} that is a musl {@code pthread_rwlock_t} ({@link RwLock}): a drop-in
 * for {@link ReentrantReadWriteLock}, with both locks reentrant, write-to-read downgrade, and
 * conditions on the write lock; private by default or placed in a caller's {@link Block}.
 *
 * <h2>Overview</h2>
 *
 * <p>musl's rwlock is one word: a count of read holders, or {@code 0x7fffffff} for the writer.
 * It records no owners, so reentrancy is kept in Java, per lock object, the way
 * {@code ReentrantReadWriteLock} keeps it:
 * <ul>
 * <li>Each thread's read holds are a counter in a {@link ThreadLocal}, found first in a
 *     small per-lock table indexed by thread id (where {@code ReentrantReadWriteLock} caches
 *     its first and its last reader's counter). Only a thread's
 *     <em>first</em> read hold takes a read lock on the word ({@code pthread_rwlock_rdlock});
 *     further holds only count, and the last release unlocks the word. The word therefore
 *     counts reading threads, a reentrant read never waits (not even behind a waiting
 *     writer), and a release by a thread that holds no read lock is refused with
 *     {@link IllegalMonitorStateException}. The holds the word does not show (every hold
 *     after a thread's first, and the writer's read holds) are added up in one atomic count
 *     of the lock object, changed only by those reentrant holds and their releases, so
 *     {@link #getReadLockCount()} answers holds, as {@code ReentrantReadWriteLock} does; a
 *     thread's first read and its last release do not touch that count.</li>
 * <li>The writer is recorded as a thread and a hold count, written only by the writer while it
 *     holds the word, as {@code AbstractQueuedSynchronizer} records its exclusive owner. A
 *     reentrant write lock only counts.</li>
 * <li><b>Downgrade</b>: the writer may take read locks (they only count, the word stays
 *     write-locked); when it releases its last write hold while holding read holds, the word
 *     turns from write-locked to one reader in a single CAS ({@link RwLock#downgrade()}), so no
 *     other writer can slip in between.</li>
 * <li><b>Upgrade is refused</b>: a thread holding only read locks that asks for the write lock
 *     would wait for every reader to leave, itself included, for ever (it deadlocks with
 *     {@code ReentrantReadWriteLock}). Here {@code lock()} and {@code lockInterruptibly()}
 *     throw {@link IllegalMonitorStateException} at once, and the {@code tryLock} forms return
 *     false at once, without waiting; release the read locks first.</li>
 * </ul>
 * One lock object serves one lock: two objects attached to one block keep separate books, so a
 * thread re-entering through the other object is not recognized.
 *
 * <h2>Differences from ReentrantReadWriteLock</h2>
 * <ul>
 * <li>musl prefers readers: a new reader enters whenever no writer holds the lock, even while
 *     writers wait, so a stream of overlapping readers can starve writers. A fair lock
 *     ({@link #PthreadReadWriteLock(boolean) PthreadReadWriteLock(true)}, private) queues every
 *     first acquisition of either lock in FIFO order on a turnstile, a fair mutex, and the head
 *     of that queue waits for the rwlock: a reader that arrives after a waiting writer enters
 *     after it. Its queue length counts the turnstile's queue too.</li>
 * <li>{@link #getReadLockCount()} counts read holds exactly for the threads of this process
 *     that use this lock object; a thread of another process (or of another object attached
 *     to the same block) counts one, whatever its holds.</li>
 * <li>Queues are counts ({@code _rw_waiters}). Which threads wait is known only where they
 *     sleep in this JVM, on the parking backend: {@link #getQueuedThreads()} and
 *     {@link #hasQueuedThread(Thread)} (readers and writers alike: there is no
 *     {@code getQueuedReaderThreads}/{@code getQueuedWriterThreads}); on the kernel backends
 *     they answer an empty collection and false. {@link #getOwner()} is the writer, when a
 *     thread of this process writes through this lock object.</li>
 * <li>Conditions of the write lock are private to this JVM even when the lock is
 *     process-shared (the write lock is not a mutex a process-shared condvar could wait with).</li>
 * <li>Interrupts, thread states and virtual threads as for {@link PthreadLock}.</li>
 * </ul>
 *
 * <h2>Monitoring</h2>
 *
 * <p>An acquisition of either lock that does not succeed at once is recorded as a JFR event,
 * {@code org.pthread4j.ContendedAcquire} (see {@link PthreadLock}); its owner is the writer when
 * a thread of this process writes through this lock object. A condition's wait is
 * {@code org.pthread4j.ConditionWait}.
 *
 * <h2>Serialization</h2>
 *
 * <p>As {@code ReentrantReadWriteLock}: a private lock (and each of its two locks) is serialized
 * as its backend and deserialized as a new lock in its own memory, unlocked whatever its state
 * when written (a backend other than the named ones is read back as the default). A
 * process-shared lock is not serializable ({@link NotSerializableException}): its state is
 * memory that other processes map, and a copy would be another lock. Conditions are not
 * serializable.
 *
 * <p>Memory consistency: a release of the write lock happens-before every later acquisition of
 * either lock; a release of a read lock happens-before a later acquisition of the write lock.
 */
public class PthreadReadWriteLock implements ReadWriteLock, Serializable {
    @Serial
    private static final long serialVersionUID = 1L;
    private static final int MAX_HOLDS = Integer.MAX_VALUE;
    /** The read lock's name in JFR events. */
    private static final String READ = "PthreadReadWriteLock.ReadLock";
    /** The write lock's name in JFR events. */
    private static final String WRITE = "PthreadReadWriteLock.WriteLock";

    /** The rwlock; set once, by the constructor or by {@link #readObject}. */
    private transient RwLock rw;
    /** Whether the lock is fair (serialized: a stream without it reads back as not fair). */
    private final boolean fair;
    /**
     * A fair lock's turnstile: a fair NORMAL mutex that every first acquisition of either lock
     * passes in FIFO order, holding it while it waits for the rwlock; {@code null} when not fair.
     * Set once, with {@link #rw}.
     */
    private transient Mutex turnstile;
    /** The read lock (serialized with this lock, as {@code ReentrantReadWriteLock}'s). */
    private final ReadLock readLock = new ReadLock(this);
    /** The write lock (serialized with this lock). */
    private final WriteLock writeLock = new WriteLock(this);
    /**
     * Read holds of each thread; the entry stays while the thread lives (reused by later reads).
     * Set once, by the constructor or by {@link #readObject}.
     */
    private transient ThreadLocal<Holds> readHolds = new ThreadLocal<>();
    /**
     * Recent readers' holds, saving them the {@link ThreadLocal} lookup ({@link ThreadTable}, 16
     * slots). A cache of the first reader only, set once, served no thread of a pool started
     * after that one (1 thread, fresh threads per run: 0.70x {@code ReentrantReadWriteLock}, see
     * the CHANGELOG).
     */
    private transient Holds[] recent = new Holds[ThreadTable.length(16)];
    /** The writing thread, or null; written only by the writer while it holds the word. */
    private transient Thread writer;
    /** The writer's holds; touched only by the writer. */
    private transient int writeHolds;
    /** Whether the writer took read holds inside its write lock (then its release may downgrade). */
    private transient boolean writerReads;
    /**
     * Read holds the word does not show: each thread's holds after its first, and the writer's
     * read holds. Changed only with atomic adds ({@link #UNCOUNTED}); read by
     * {@link #getReadLockCount()}.
     */
    @SuppressWarnings("unused") // through UNCOUNTED
    private transient volatile int uncountedReads;

    private static final VarHandle UNCOUNTED;

    static {
        try {
            UNCOUNTED = MethodHandles.lookup().findVarHandle(PthreadReadWriteLock.class, "uncountedReads", int.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One thread's read holds, made and touched only by that thread. */
    private static final class Holds extends ThreadTable.Entry {
        int count;
    }

    /**
     * A private lock on the default private backend, in its own memory, freed when the lock is
     * no longer reachable.
     */
    public PthreadReadWriteLock() {
        this(RwLockAttr.DEFAULT);
    }

    /**
     * A private lock with the given fairness policy, as {@code ReentrantReadWriteLock(boolean)},
     * on the default private backend, in its own memory. A fair lock grants the read and write
     * locks in the order the threads asked for them: every first acquisition (not a reentrant
     * one, nor the writer's read) passes a turnstile, a fair mutex
     * ({@link org.pthread4j.SleepProtocol#FAIR}), and waits for the rwlock while holding it, so
     * that a reader arriving after a waiting writer waits behind it, and a writer is never starved
     * by a stream of readers. As {@code ReentrantReadWriteLock}'s, the untimed {@code tryLock()}
     * of either lock barges; the timed one queues.
     *
     * @param fair whether the lock is fair ({@link #isFair()})
     */
    public PthreadReadWriteLock(final boolean fair) {
        this(new RwLock(PrivateBlocks.allocate(RwLockLayout.SIZE, RwLockLayout.ALIGNMENT), RwLockAttr.DEFAULT), fair);
    }

    /**
     * A lock in its own private memory with the given attributes (the backend of a private lock:
     * {@link RwLockAttr#privateOn(Futex)}).
     *
     * @param attr the attributes
     */
    public PthreadReadWriteLock(final RwLockAttr attr) {
        this(PrivateBlocks.allocate(RwLockLayout.SIZE, RwLockLayout.ALIGNMENT), attr);
    }

    /**
     * Initializes a lock in a caller's block ({@code pthread_rwlock_init}), in memory shared with
     * other processes when {@code attr} is process-shared.
     *
     * @param block at least {@link RwLockLayout#SIZE} bytes, 8-byte aligned
     * @param attr  the attributes
     * @throws IllegalArgumentException for an unsuitable block
     */
    public PthreadReadWriteLock(final Block block, final RwLockAttr attr) {
        this(new RwLock(block, Objects.requireNonNull(attr, "attr")));
    }

    private PthreadReadWriteLock(final RwLock rw) {
        this(rw, false);
    }

    private PthreadReadWriteLock(final RwLock rw, final boolean fair) {
        this.rw = rw;
        this.fair = fair;
        this.turnstile = fair ? turnstile(rw) : null;
        // publishes the fields as final ones would be (they are not final only for readObject)
        VarHandle.releaseFence();
    }

    /** {@return a fair lock's turnstile: a fair NORMAL mutex in private memory, on the rwlock's backend} */
    private static Mutex turnstile(final RwLock rw) {
        return new Mutex(PrivateBlocks.allocate(MutexLayout.SIZE, MutexLayout.ALIGNMENT),
            MutexAttr.builder().fair(true).futex(rw.futex()).build());
    }

    /**
     * A fair lock's first acquisition of the read or write lock: the turnstile in FIFO order (only
     * tried when {@code block} is false), then, holding it, the rwlock; the turnstile is passed
     * on as soon as the rwlock is taken or given up.
     *
     * @param write         the write lock, else the read lock
     * @param block         whether to wait (false: a timed tryLock whose time is zero or less)
     * @param at            the deadline on CLOCK_MONOTONIC, or {@code null}
     * @param interruptible whether an interrupt ends the wait
     * @return the rwlock's result, or the turnstile's (EBUSY, ETIMEDOUT, EINTR)
     */
    private int fairly(final boolean write, final boolean block, final Timespec at, final boolean interruptible) {
        int r = turnstile.tryLockFree();
        if (r != 0) {
            if (!block) {
                return Errno.EBUSY;
            }
            r = turnstile.timedLock(Timespec.CLOCK_MONOTONIC, at, interruptible);
            if (r != 0) {
                return r;
            }
        }
        try {
            r = write ? rw.tryWrLock() : rw.tryRdLock();
            if (r == Errno.EBUSY && block) {
                final ContendedAcquireEvent event = contention();
                if (write) {
                    r = at == null && !interruptible ? rw.wrLock() : rw.timedWrLock(Timespec.CLOCK_MONOTONIC, at,
                        interruptible);
                } else {
                    r = at == null && !interruptible ? rw.rdLock() : rw.timedRdLock(Timespec.CLOCK_MONOTONIC, at,
                        interruptible);
                }
                contended(event, write ? WRITE : READ, r);
            }
            return r;
        } finally {
            turnstile.unlock();
        }
    }

    /**
     * A view of a lock initialized elsewhere ({@link RwLock#attach(Block)}): a private lock gets
     * the default backend, so attach one only with the backend its other users sleep on
     * ({@link #attach(Block, Futex)}).
     *
     * @param block the block holding the lock
     * @return the lock
     * @throws IllegalArgumentException when the block holds no rwlock
     */
    public static PthreadReadWriteLock attach(final Block block) {
        return attach(block, null);
    }

    /**
     * A view of a lock initialized elsewhere ({@link RwLock#attach(Block, Futex)}).
     *
     * @param block the block holding the lock
     * @param futex the backend of a private lock, or {@code null} for the default
     * @return the lock
     * @throws IllegalArgumentException when the block holds no rwlock
     */
    public static PthreadReadWriteLock attach(final Block block, final Futex futex) {
        return new PthreadReadWriteLock(RwLock.attach(block, futex));
    }

    /**
     * A lock over an existing rwlock object, which no other lock object may use.
     *
     * @param rw the rwlock
     * @return the lock
     */
    public static PthreadReadWriteLock of(final RwLock rw) {
        return new PthreadReadWriteLock(Objects.requireNonNull(rw, "rw"));
    }

    /** {@return the rwlock under this lock} */
    public RwLock rwLock() {
        return rw;
    }

    @Override
    public ReadLock readLock() {
        return readLock;
    }

    @Override
    public WriteLock writeLock() {
        return writeLock;
    }

    // ---------------------------------------------------------------------------------------
    // Introspection, as ReentrantReadWriteLock

    /** {@return whether the lock is fair ({@link #PthreadReadWriteLock(boolean)}); musl's rwlock alone prefers readers} */
    public final boolean isFair() {
        return fair;
    }

    /**
     * {@return the read holds, as {@code ReentrantReadWriteLock} counts them: every hold of every
     *     thread (a thread holding two reads counts 2, and the writer's read holds count); a
     *     thread of another process sharing the lock counts 1. A snapshot for monitoring, not
     *     for synchronization}
     */
    public int getReadLockCount() {
        return rw.readerCount() + (int) UNCOUNTED.getVolatile(this);
    }

    /** {@return whether some thread (of any process sharing the lock) holds the write lock} */
    public boolean isWriteLocked() {
        return rw.isWriteLocked();
    }

    /** {@return whether the current thread holds the write lock} */
    public boolean isWriteLockedByCurrentThread() {
        return writer == Thread.currentThread();
    }

    /** {@return the current thread's write holds, 0 when it does not hold the write lock} */
    public int getWriteHoldCount() {
        return isWriteLockedByCurrentThread() ? writeHolds : 0;
    }

    /** {@return the current thread's read holds} */
    public int getReadHoldCount() {
        final Holds h = existingHolds();
        return h == null ? 0 : h.count;
    }

    /** {@return whether threads may be waiting to acquire either lock ({@code _rw_waiters} nonzero)} */
    public final boolean hasQueuedThreads() {
        return getQueueLength() > 0;
    }

    /** {@return an estimate of the threads waiting to acquire either lock ({@code _rw_waiters})} */
    public final int getQueueLength() {
        return rw.waiterCount() + (turnstile != null ? turnstile.waiterCount() : 0);
    }

    /**
     * Whether the given thread waits to acquire either lock, as far as this JVM can see: on the
     * parking backend, whether it sleeps on the lock's word now (a thread still spinning, or
     * between two sleeps, is not seen); on the kernel backends (and for a process-shared lock)
     * false, since the kernel does not tell which threads sleep: {@link #getQueueLength()}
     * counts them.
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
     * The threads waiting to acquire either lock, as far as this JVM can see: on the parking
     * backend, the threads asleep on the lock's word (a best-effort estimate, as
     * {@code ReentrantReadWriteLock}'s); on the kernel backends (and for a process-shared lock)
     * an empty collection, since the kernel does not tell ({@link #getQueueLength()} counts
     * them).
     *
     * @return the queued threads, a new collection
     */
    protected Collection<Thread> getQueuedThreads() {
        final List<Thread> threads = new java.util.ArrayList<>(rw.futex() instanceof ParkingFutex p && !rw.isPshared()
            ? p.sleepers(rw.block().segment(), RwLockLayout.LOCK) : List.of());
        if (turnstile != null) {
            threads.addAll(turnstile.queuedThreads());
        }
        return threads;
    }

    /**
     * {@return the thread that holds the write lock through this lock object, or {@code null}
     *     when none does (also while a thread of another process, or of another object attached
     *     to the same block, writes): a snapshot for monitoring}
     */
    protected Thread getOwner() {
        return writer;
    }

    /**
     * The threads waiting on a condition of the write lock (signalled threads no longer are),
     * counted as {@link #getWaitQueueLength(Condition)} counts them: a waiter is in from the
     * moment it released the write lock.
     *
     * @param condition a condition of this lock's write lock
     * @return the waiting threads, oldest first, a new collection
     * @throws IllegalMonitorStateException when the current thread does not hold the write lock
     * @throws IllegalArgumentException     when the condition is not one of this lock's
     * @throws NullPointerException         when the condition is null
     */
    protected Collection<Thread> getWaitingThreads(final Condition condition) {
        final WriteOwner w = ownerOf(condition);
        w.mutex.lock();
        try {
            return ((PthreadCondition) condition).cond().waitingThreads();
        } finally {
            w.mutex.unlock();
        }
    }

    /**
     * {@return whether threads may be waiting on it}
     *
     * @param condition a condition of this lock's write lock
     * @throws IllegalMonitorStateException when the current thread does not hold the write lock
     * @throws IllegalArgumentException     when the condition is not one of this lock's
     * @throws NullPointerException         when the condition is null
     */
    public boolean hasWaiters(final Condition condition) {
        return getWaitQueueLength(condition) > 0;
    }

    /**
     * {@return an estimate of the threads waiting on it, as {@code ReentrantReadWriteLock}'s: an
     *     upper bound that counts every thread that released the write lock inside an await of
     *     the condition and was not yet signalled (nor timed out or interrupted)}
     *
     * <p>A waiter releases the write lock while it holds the condition's mutex and is queued on
     * the condvar before it lets the mutex go; this method takes that mutex before it counts,
     * so the thread that takes the write lock right after a waiter released it sees the waiter.
     *
     * @param condition a condition of this lock's write lock
     * @throws IllegalMonitorStateException when the current thread does not hold the write lock
     * @throws IllegalArgumentException     when the condition is not one of this lock's
     * @throws NullPointerException         when the condition is null
     */
    public int getWaitQueueLength(final Condition condition) {
        final WriteOwner w = ownerOf(condition);
        w.mutex.lock();
        try {
            return ((PthreadCondition) condition).cond().waiterCount();
        } finally {
            w.mutex.unlock();
        }
    }

    /**
     * {@return the write-lock side of one of this lock's conditions, once the caller is found to
     *     hold the write lock}
     */
    private WriteOwner ownerOf(final Condition condition) {
        Objects.requireNonNull(condition, "condition");
        if (!(condition instanceof PthreadCondition c) || !(c.owner() instanceof WriteOwner w) || w.lock() != this) {
            throw new IllegalArgumentException("not a condition of this lock");
        }
        if (!isWriteLockedByCurrentThread()) {
            throw new IllegalMonitorStateException("the current thread does not hold the write lock of " + this);
        }
        return w;
    }

    /**
     * {@return {@code ReentrantReadWriteLock}'s form:
     *     {@code PthreadReadWriteLock@1b6d3586[Write locks = 1, Read locks = 0; RwLock[...]]},
     *     where the write count is the current thread's holds (1 when another thread or process
     *     writes) and the read count is {@link #getReadLockCount()}}
     */
    @Override
    public String toString() {
        final int w = rw.isWriteLocked() ? Math.max(getWriteHoldCount(), 1) : 0;
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "[Write locks = " + w
            + ", Read locks = " + getReadLockCount() + "; " + rw + "]";
    }

    // ---------------------------------------------------------------------------------------
    // The two locks' bodies

    /** {@return the current thread's holds, made on its first read} */
    private Holds holds() {
        final Holds h = ThreadTable.get(recent);
        return h != null ? h : holdsMiss(true);
    }

    /** {@return the current thread's holds, or null if it never read} */
    private Holds existingHolds() {
        final Holds h = ThreadTable.get(recent);
        return h != null ? h : holdsMiss(false);
    }

    /** The thread-local lookup behind {@link #recent}; the holds found (or made) take the slot. */
    private Holds holdsMiss(final boolean make) {
        Holds h = readHolds.get();
        if (h == null) {
            if (!make) {
                return null;
            }
            h = new Holds();
            readHolds.set(h);
        }
        return ThreadTable.put(recent, h);
    }

    /** {@return whether the current thread holds read locks (then it may not wait for the write lock)} */
    private boolean holdsRead() {
        final Holds h = existingHolds();
        return h != null && h.count > 0;
    }

    private void wrote(final Thread t) {
        writer = t;
        writeHolds = 1;
    }

    private void releaseWrite() {
        if (writer != Thread.currentThread()) {
            throw new IllegalMonitorStateException("the current thread does not hold the write lock of " + this);
        }
        if (--writeHolds == 0) {
            writer = null;
            final boolean downgrade = writerReads && holdsRead();
            writerReads = false;
            final int r = downgrade ? rw.downgrade() : rw.unlock();
            if (r != 0) {
                throw new IllegalStateException("unexpected result " + Errno.name(r) + " from " + rw);
            }
            if (downgrade) {
                uncounted(-1); // one of the read holds is now the word's reader
            }
        }
    }

    private void releaseRead() {
        final Holds h = existingHolds();
        if (h == null || h.count == 0) {
            throw new IllegalMonitorStateException("attempt to unlock read lock, not locked by current thread");
        }
        if (--h.count == 0 && writer != Thread.currentThread()) {
            final int r = rw.unlock();
            if (r != 0) {
                throw new IllegalStateException("unexpected result " + Errno.name(r) + " from " + rw);
            }
        } else {
            uncounted(-1);
        }
    }

    /** Adds to the read holds the word does not show. */
    private void uncounted(final int delta) {
        UNCOUNTED.getAndAdd(this, delta);
    }

    /**
     * {@return true when the read lock was taken by counting only (the thread holds it already, or writes)}
     */
    private boolean reenterRead(final Holds h) {
        if (h.count > 0) {
            if (h.count == MAX_HOLDS) {
                throw new Error("Maximum lock count exceeded");
            }
            h.count++;
            uncounted(1);
            return true;
        }
        if (writer == Thread.currentThread()) {
            writerReads = true;
            h.count = 1;
            uncounted(1);
            return true;
        }
        return false;
    }

    /** {@return true when the write lock was taken by counting only} */
    private boolean reenterWrite() {
        if (writer == Thread.currentThread()) {
            if (writeHolds == MAX_HOLDS) {
                throw new Error("Maximum lock count exceeded");
            }
            writeHolds++;
            return true;
        }
        return false;
    }

    private void refuseUpgrade() {
        if (holdsRead()) {
            throw new IllegalMonitorStateException("the current thread holds " + getReadHoldCount()
                + " read lock(s) of " + this + ": read-to-write upgrade would deadlock; release them first");
        }
    }

    /** Translates a read-lock result that was not 0 or EBUSY/ETIMEDOUT/EINTR. */
    private static boolean readResult(final int r) {
        if (r == 0) {
            return true;
        }
        if (r == Errno.EBUSY || r == Errno.ETIMEDOUT) {
            return false;
        }
        if (r == Errno.EAGAIN) {
            throw new Error("Maximum lock count exceeded");
        }
        throw new IllegalStateException("unexpected result " + Errno.name(r));
    }

    private static void interrupted(final int r) throws InterruptedException {
        if (r == Errno.EINTR) {
            Thread.interrupted();
            throw new InterruptedException();
        }
    }

    /** {@return the JFR event of a blocking acquisition, timing begun; the owner is the writer, if any} */
    private ContendedAcquireEvent contention() {
        return ContendedAcquireEvent.begin(0, writer);
    }

    /** Ends and commits (when enabled, over the threshold) the event of a blocking acquisition. */
    private void contended(final ContendedAcquireEvent event, final String primitive, final int r) {
        event.done(primitive, this, rw.block(), rw.futex(), r == 0);
    }

    private static Timespec deadline(final long nanos) {
        return Timespec.after(Timespec.CLOCK_MONOTONIC, nanos, TimeUnit.NANOSECONDS);
    }

    // ---------------------------------------------------------------------------------------
    // Serialization

    /**
     * Writes a private lock as its backend, not its state.
     *
     * @param out the stream
     * @throws IOException              as the stream's
     * @throws NotSerializableException for a process-shared lock
     * @serialData the read and write locks (fields), then the name of the backend (a String, or
     *     null for the default)
     */
    @Serial
    private void writeObject(final ObjectOutputStream out) throws IOException {
        if (rw.isPshared()) {
            throw new NotSerializableException(getClass().getName() + ": a process-shared lock lives in memory "
                + "that other processes map, and a copy would be another lock; attach to its block instead");
        }
        out.defaultWriteObject();
        out.writeObject(SerialForms.backendName(rw.futex() == Futexes.defaultPrivate() ? null : rw.futex()));
    }

    /**
     * Reads a lock as a new, unlocked one on the backend written.
     *
     * @param in the stream
     * @throws IOException            as the stream's, or {@link InvalidObjectException} for a
     *                                backend that is not a name
     * @throws ClassNotFoundException as the stream's
     */
    @Serial
    private void readObject(final ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        final Object backend = in.readObject();
        if (backend != null && !(backend instanceof String)) {
            throw new InvalidObjectException("a PthreadReadWriteLock's backend is a name, not " + backend);
        }
        final Futex f = SerialForms.backend((String) backend);
        rw = new RwLock(PrivateBlocks.allocate(RwLockLayout.SIZE, RwLockLayout.ALIGNMENT),
            f == null ? RwLockAttr.DEFAULT : RwLockAttr.privateOn(f));
        turnstile = fair ? turnstile(rw) : null;
        readHolds = new ThreadLocal<>();
        recent = new Holds[ThreadTable.length(16)];
        VarHandle.releaseFence();
    }

    // ---------------------------------------------------------------------------------------

    /**
     * The read lock: shared, reentrant per thread. Memory effects: acquiring it has the effects
     * of a lock after the last write-lock release.
     */
    public static final class ReadLock implements Lock, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        /** The lock it belongs to. */
        private final PthreadReadWriteLock lock;

        private ReadLock(final PthreadReadWriteLock lock) {
            this.lock = lock;
        }

        /**
         * Acquires a read hold, waiting while another thread writes ({@link RwLock#rdLock()}).
         * The current thread's further holds, and holds taken by the writer, only count. Not
         * interruptible.
         *
         * @throws Error when the thread's holds would pass {@code Integer.MAX_VALUE}
         */
        @Override
        public void lock() {
            final Holds h = lock.holds();
            if (!lock.reenterRead(h)) {
                int r;
                if (lock.turnstile != null) {
                    r = lock.fairly(false, true, null, false);
                } else if ((r = lock.rw.tryRdLock()) == Errno.EBUSY) {
                    final ContendedAcquireEvent event = lock.contention();
                    r = lock.rw.rdLock();
                    lock.contended(event, READ, r);
                }
                readResult(r);
                h.count = 1;
            }
        }

        /**
         * As {@link #lock()}, but ends when the thread is interrupted on entry or while waiting.
         *
         * @throws InterruptedException when interrupted; the status is cleared, nothing acquired
         */
        @Override
        public void lockInterruptibly() throws InterruptedException {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            final Holds h = lock.holds();
            if (!lock.reenterRead(h)) {
                int r;
                if (lock.turnstile != null) {
                    r = lock.fairly(false, true, null, true);
                } else if ((r = lock.rw.tryRdLock()) == Errno.EBUSY) {
                    final ContendedAcquireEvent event = lock.contention();
                    r = lock.rw.timedRdLock(Timespec.CLOCK_MONOTONIC, null, true);
                    lock.contended(event, READ, r);
                }
                interrupted(r);
                readResult(r);
                h.count = 1;
            }
        }

        /**
         * Acquires a read hold if no other thread writes ({@link RwLock#tryRdLock()}), even while
         * writers wait.
         *
         * @return whether it was acquired
         */
        @Override
        public boolean tryLock() {
            final Holds h = lock.holds();
            if (lock.reenterRead(h)) {
                return true;
            }
            if (readResult(lock.rw.tryRdLock())) {
                h.count = 1;
                return true;
            }
            return false;
        }

        /**
         * Acquires a read hold, waiting at most {@code time} (CLOCK_MONOTONIC) while another thread
         * writes, answering interrupts.
         *
         * @param time how long to wait
         * @param unit its unit
         * @return true when acquired, false when the time passed first
         * @throws InterruptedException when interrupted on entry or while waiting
         */
        @Override
        public boolean tryLock(final long time, final TimeUnit unit) throws InterruptedException {
            final long nanos = unit.toNanos(time);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            final Holds h = lock.holds();
            if (lock.reenterRead(h)) {
                return true;
            }
            int r;
            if (lock.turnstile != null) {
                r = lock.fairly(false, nanos > 0, nanos > 0 ? deadline(nanos) : null, true);
                interrupted(r);
            } else if ((r = lock.rw.tryRdLock()) == Errno.EBUSY && nanos > 0) {
                final ContendedAcquireEvent event = lock.contention();
                r = lock.rw.timedRdLock(Timespec.CLOCK_MONOTONIC, deadline(nanos), true);
                lock.contended(event, READ, r);
                interrupted(r);
            }
            if (readResult(r)) {
                h.count = 1;
                return true;
            }
            return false;
        }

        /**
         * Releases one read hold; the thread's last one releases the word (and, if it was the last
         * reader, wakes a waiting writer).
         *
         * @throws IllegalMonitorStateException when the current thread holds no read lock
         */
        @Override
        public void unlock() {
            lock.releaseRead();
        }

        /**
         * Read locks have no conditions.
         *
         * @throws UnsupportedOperationException always, as {@code ReentrantReadWriteLock.ReadLock}
         */
        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("the read lock has no conditions; use the write lock's");
        }

        @Override
        public String toString() {
            return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "[Read locks = "
                + lock.getReadLockCount() + "]";
        }

    }

    /**
     * The write lock: exclusive, reentrant. Memory effects: its release happens-before every later
     * acquisition of either lock.
     */
    public static final class WriteLock implements Lock, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        /** The lock it belongs to. */
        private final PthreadReadWriteLock lock;

        private WriteLock(final PthreadReadWriteLock lock) {
            this.lock = lock;
        }

        /**
         * Acquires the write lock, waiting until no other thread reads or writes
         * ({@link RwLock#wrLock()}); the writer's further holds only count. Not interruptible.
         *
         * @throws IllegalMonitorStateException when the current thread holds only read locks
         *                                      (upgrade would deadlock)
         * @throws Error                        when the holds would pass {@code Integer.MAX_VALUE}
         */
        @Override
        public void lock() {
            if (!lock.reenterWrite()) {
                final int r;
                if (lock.turnstile != null) {
                    lock.refuseUpgrade();
                    r = lock.fairly(true, true, null, false);
                } else {
                    // a thread holding read locks keeps the word from 0, so a free word needs no check
                    if (lock.rw.tryWrLock() == 0) {
                        lock.wrote(Thread.currentThread());
                        return;
                    }
                    lock.refuseUpgrade();
                    final ContendedAcquireEvent event = lock.contention();
                    r = lock.rw.wrLock();
                    lock.contended(event, WRITE, r);
                }
                if (r != 0) {
                    throw new IllegalStateException("unexpected result " + Errno.name(r) + " from " + lock.rw);
                }
                lock.wrote(Thread.currentThread());
            }
        }

        /**
         * As {@link #lock()}, but ends when the thread is interrupted on entry or while waiting.
         *
         * @throws InterruptedException         when interrupted; the status is cleared, nothing acquired
         * @throws IllegalMonitorStateException when the current thread holds only read locks
         */
        @Override
        public void lockInterruptibly() throws InterruptedException {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (!lock.reenterWrite()) {
                final int r;
                if (lock.turnstile != null) {
                    lock.refuseUpgrade();
                    r = lock.fairly(true, true, null, true);
                } else {
                    if (lock.rw.tryWrLock() == 0) {
                        lock.wrote(Thread.currentThread());
                        return;
                    }
                    lock.refuseUpgrade();
                    final ContendedAcquireEvent event = lock.contention();
                    r = lock.rw.timedWrLock(Timespec.CLOCK_MONOTONIC, null, true);
                    lock.contended(event, WRITE, r);
                }
                interrupted(r);
                if (r != 0) {
                    throw new IllegalStateException("unexpected result " + Errno.name(r) + " from " + lock.rw);
                }
                lock.wrote(Thread.currentThread());
            }
        }

        /**
         * Acquires the write lock if nobody reads or writes ({@link RwLock#tryWrLock()}).
         *
         * @return whether it was acquired; false at once when the current thread holds only read
         *     locks
         */
        @Override
        public boolean tryLock() {
            if (lock.reenterWrite()) {
                return true;
            }
            if (lock.rw.tryWrLock() != 0) {
                return false; // also when this thread holds read locks
            }
            lock.wrote(Thread.currentThread());
            return true;
        }

        /**
         * Acquires the write lock, waiting at most {@code time} (CLOCK_MONOTONIC), answering
         * interrupts.
         *
         * @param time how long to wait
         * @param unit its unit
         * @return true when acquired; false when the time passed first, or at once when the
         *     current thread holds only read locks (waiting could only end in the timeout)
         * @throws InterruptedException when interrupted on entry or while waiting
         */
        @Override
        public boolean tryLock(final long time, final TimeUnit unit) throws InterruptedException {
            final long nanos = unit.toNanos(time);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (lock.reenterWrite()) {
                return true;
            }
            if (lock.turnstile != null) {
                if (lock.holdsRead()) {
                    return false;
                }
                final int f = lock.fairly(true, nanos > 0, nanos > 0 ? deadline(nanos) : null, true);
                interrupted(f);
                if (f == 0) {
                    lock.wrote(Thread.currentThread());
                    return true;
                }
                if (f == Errno.EBUSY || f == Errno.ETIMEDOUT) {
                    return false;
                }
                throw new IllegalStateException("unexpected result " + Errno.name(f) + " from " + lock.rw);
            }
            int r = lock.rw.tryWrLock();
            if (r == Errno.EBUSY && lock.holdsRead()) {
                return false;
            }
            if (r == Errno.EBUSY && nanos > 0) {
                final ContendedAcquireEvent event = lock.contention();
                r = lock.rw.timedWrLock(Timespec.CLOCK_MONOTONIC, deadline(nanos), true);
                lock.contended(event, WRITE, r);
                interrupted(r);
            }
            if (r == 0) {
                lock.wrote(Thread.currentThread());
                return true;
            }
            if (r == Errno.EBUSY || r == Errno.ETIMEDOUT) {
                return false;
            }
            throw new IllegalStateException("unexpected result " + Errno.name(r) + " from " + lock.rw);
        }

        /**
         * Releases one write hold. The last one releases the word, or, when the thread holds read
         * locks, downgrades it to one read lock ({@link RwLock#downgrade()}).
         *
         * @throws IllegalMonitorStateException when the current thread does not hold the write lock
         */
        @Override
        public void unlock() {
            lock.releaseWrite();
        }

        /**
         * A condition of the write lock: a private condvar (CLOCK_MONOTONIC) with a private mutex
         * of its own, on the backend of a private lock (see {@link PthreadCondition}). A wait
         * releases every write hold and restores them.
         *
         * @return the condition
         * @throws UnsupportedOperationException for a process-shared lock: the condition's mutex
         *                                       and condvar would be private to this process, so
         *                                       another process could never signal it
         */
        @Override
        public PthreadCondition newCondition() {
            if (lock.rw.isPshared()) {
                throw new UnsupportedOperationException(lock + " is process-shared: its write lock has no condition"
                    + " another process could signal; share a PthreadLock and SyncFile.condition(name, lock) instead");
            }
            final Futex f = lock.rw.isPshared() ? null : lock.rw.futex();
            final Mutex m = new Mutex(PrivateBlocks.allocate(MutexLayout.SIZE, MutexLayout.ALIGNMENT),
                MutexAttr.builder().futex(f).build());
            final Cond c = new Cond(PrivateBlocks.allocate(CondLayout.SIZE, CondLayout.ALIGNMENT),
                CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).futex(f).build());
            return new PthreadCondition(c, m, new WriteOwner(lock, m));
        }

        /** {@return whether the current thread holds the write lock} */
        public boolean isHeldByCurrentThread() {
            return lock.isWriteLockedByCurrentThread();
        }

        /** {@return the current thread's write holds} */
        public int getHoldCount() {
            return lock.getWriteHoldCount();
        }

        @Override
        public String toString() {
            final Thread o = lock.writer;
            return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode())
                + (o != null ? "[Locked by thread " + o.getName() + "]"
                    : lock.rw.isWriteLocked() ? "[Locked]" : "[Unlocked]");
        }

    }

    /**
     * Condition support for the write lock: the waiter takes the condition's mutex before it
     * releases the write lock, and a signaller signals while holding the mutex, so a signal cannot
     * fall between the release and the wait; the queries ({@link #getWaitQueueLength}) take the
     * mutex too, so they count a waiter from the moment it released the write lock. The order is
     * always the write lock, then the mutex: a waiter gives the mutex up before it waits for the
     * write lock again.
     */
    private static final class WriteOwner extends PthreadCondition.Owner {
        private final PthreadReadWriteLock lock;
        private final Mutex mutex;

        WriteOwner(final PthreadReadWriteLock lock, final Mutex mutex) {
            this.lock = lock;
            this.mutex = mutex;
        }

        PthreadReadWriteLock lock() {
            return lock;
        }

        @Override
        boolean isHeldByCurrentThread() {
            return lock.isWriteLockedByCurrentThread();
        }

        /** {@return the write holds, negated when the writer also holds read locks inside them} */
        @Override
        int release() {
            mutex.lock();
            final int holds = lock.writerReads ? -lock.writeHolds : lock.writeHolds;
            if (holds < 0) {
                lock.uncounted(-lock.getReadHoldCount()); // held again after the wait
            }
            lock.writer = null;
            lock.writeHolds = 0;
            lock.writerReads = false;
            lock.rw.unlock();
            return holds;
        }

        @Override
        void reacquire(final int saved, final int r) {
            mutex.unlock();
            if (lock.turnstile != null) {
                lock.fairly(true, true, null, false);
            } else {
                lock.rw.wrLock();
            }
            lock.writer = Thread.currentThread();
            lock.writeHolds = Math.abs(saved);
            lock.writerReads = saved < 0;
            if (saved < 0) {
                lock.uncounted(lock.getReadHoldCount());
            }
        }

        @Override
        void signal(final Cond cond, final boolean all) {
            mutex.lock();
            try {
                super.signal(cond, all);
            } finally {
                mutex.unlock();
            }
        }

        @Override
        String describe() {
            return "the write lock of " + lock;
        }
    }
}
