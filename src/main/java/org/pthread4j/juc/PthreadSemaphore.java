package org.pthread4j.juc;

import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.Sem;
import org.pthread4j.SemLayout;
import org.pthread4j.futex.Timespec;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.memory.Block;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Semaphore} that is a musl {@code sem_t} ({@link Sem}): a drop-in for
 * {@code new Semaphore(permits)} whose permits live in off-heap memory, private by default,
 * placed in a caller's {@link Block}, or a named semaphore ({@link #of(Sem)} with
 * {@link Sem#open}) shared with other processes.
 *
 * <h2>Overview</h2>
 *
 * <p>Every public method of {@link Semaphore} that is not final is overridden; the inherited
 * state is unused.
 * Single-permit methods are musl's {@code sem_wait}, {@code sem_trywait},
 * {@code sem_timedwait} and {@code sem_post}; the permit-count methods take or add all the
 * permits in one CAS ({@link Sem#tryAwait(int)}, {@link Sem#timedAwait(int, int, Timespec, boolean)},
 * {@link Sem#post(int)}), so two threads can never each hold part of what they asked for. The
 * argument checks are the JDK's: a negative permit count is an
 * {@link IllegalArgumentException}, and a count of zero succeeds at once.
 *
 * <h2>Differences from Semaphore</h2>
 * <ul>
 * <li>The permit count of a {@code sem_t} cannot be negative: the constructor refuses a
 *     negative initial count ({@link IllegalArgumentException}), and {@link #reducePermits}
 *     cannot go below zero ({@link IllegalStateException}). The maximum is
 *     {@link Sem#VALUE_MAX}, past which {@code release} throws {@link Error}, as the JDK does
 *     at {@code Integer.MAX_VALUE}.</li>
 * <li>Not fair by default. A thread waiting for several permits may be woken for a release that
 *     is not enough for it and sleep again; the permits then go to the next release's waiter or
 *     to an arriving thread, as the JDK's non-fair semaphore lets a larger request at the head
 *     of its queue hold back the ones behind it. A fair semaphore
 *     ({@link #PthreadSemaphore(int, boolean) PthreadSemaphore(permits, true)}, private) queues
 *     its waiters in FIFO order on a turnstile, a fair mutex, and only the head of the queue
 *     waits for permits; its waiter count is the turnstile's queue plus the head.</li>
 * <li>The queue is a count ({@code sem_t}'s waiter count, of every process sharing the
 *     semaphore), read with {@link #getWaiterCount()} and {@link #hasWaiters()}.
 *     {@link Semaphore#getQueueLength()} and {@link Semaphore#hasQueuedThreads()} are final
 *     in the JDK's class and cannot be overridden: they answer 0 and false.
 *     {@link #getQueuedThreads()} lists the sleeping threads on the parking backend and is
 *     empty on the kernel backends.</li>
 * <li>Serialization: a private semaphore is serialized as {@code Semaphore} is, as its
 *     available permits (and its backend), and deserialized as a new semaphore in its own
 *     memory with those permits (a backend other than the named ones is read back as the
 *     default). A process-shared or named semaphore is not serializable
 *     ({@link NotSerializableException}): its permits are memory other processes map, and a
 *     copy would be another semaphore. A subclass is serialized with its own fields.</li>
 * <li>Interrupts, thread states and virtual threads as for {@link PthreadLock}.</li>
 * </ul>
 *
 * <p>Monitoring: an acquisition that does not succeed at once is recorded as a JFR event,
 * {@code org.pthread4j.ContendedAcquire} (see {@link PthreadLock}).
 *
 * <p>Memory consistency: actions in a thread before a {@code release} happen-before the actions
 * after a successful acquire that takes the permits it released, in this process or, through
 * shared memory, in another.
 */
public class PthreadSemaphore extends Semaphore {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The semaphore; set once, by the constructor or by {@link #readObject}. */
    private transient Sem sem;

    /** Whether the semaphore is fair (serialized: a stream without it reads back as not fair). */
    private final boolean fair;

    /**
     * A fair semaphore's turnstile: a fair NORMAL mutex ({@link MutexAttr.Builder#fair}) that the
     * waiting threads pass in FIFO order, the one holding it waiting for its permits; {@code null}
     * when not fair. Set once, with {@link #sem}.
     */
    private transient Mutex turnstile;

    /**
     * A private semaphore on the default private backend, in its own memory, freed when the
     * semaphore is no longer reachable.
     *
     * @param permits the initial permits, at least 0
     * @throws IllegalArgumentException when {@code permits} is negative
     */
    public PthreadSemaphore(final int permits) {
        this(permits, null);
    }

    /**
     * A private semaphore on a chosen backend, in its own memory.
     *
     * @param permits the initial permits, at least 0
     * @param futex   the backend, or {@code null} for the default
     * @throws IllegalArgumentException when {@code permits} is negative
     */
    public PthreadSemaphore(final int permits, final Futex futex) {
        this(new Sem(PrivateBlocks.allocate(SemLayout.SIZE, SemLayout.ALIGNMENT), false, checkPermits(permits),
            futex));
    }

    /**
     * A private semaphore with the given fairness policy, as {@code Semaphore(int, boolean)}, on
     * the default private backend, in its own memory. A fair semaphore grants permits to the
     * waiting threads in the order they asked (first in, first out): they pass a turnstile, a fair
     * mutex ({@link org.pthread4j.SleepProtocol#FAIR}) in the semaphore's own memory, and the
     * thread that holds it waits for all the permits it asked for while the others queue behind
     * it. As {@code Semaphore}'s, its untimed {@link #tryAcquire()} takes an available permit even
     * while threads wait; every other acquisition, the timed {@code tryAcquire} included, queues.
     *
     * @param permits the initial permits, at least 0
     * @param fair    whether the semaphore is fair ({@link #isFair()})
     * @throws IllegalArgumentException when {@code permits} is negative
     */
    public PthreadSemaphore(final int permits, final boolean fair) {
        this(new Sem(PrivateBlocks.allocate(SemLayout.SIZE, SemLayout.ALIGNMENT), false, checkPermits(permits),
            null), fair);
    }

    /**
     * Initializes a semaphore in a caller's block ({@code sem_init}), in memory shared with other
     * processes when {@code pshared}; they open it with {@link #attach(Block)}.
     *
     * @param block   at least {@link SemLayout#SIZE} bytes, 4-byte aligned
     * @param pshared whether processes mapping the block share the semaphore
     * @param permits the initial permits, at least 0
     * @throws IllegalArgumentException when {@code permits} is negative or the block unsuitable
     */
    public PthreadSemaphore(final Block block, final boolean pshared, final int permits) {
        this(new Sem(block, pshared, checkPermits(permits)));
    }

    /**
     * A semaphore over an existing {@code sem_t}: a named semaphore ({@link Sem#open}), or one
     * attached to shared memory.
     *
     * @param sem the semaphore
     */
    protected PthreadSemaphore(final Sem sem) {
        this(sem, false);
    }

    private PthreadSemaphore(final Sem sem, final boolean fair) {
        super(0);
        this.sem = Objects.requireNonNull(sem, "sem");
        this.fair = fair;
        this.turnstile = fair ? turnstile(sem) : null;
        // publishes the fields as final ones would be (they are not final only for readObject)
        VarHandle.releaseFence();
    }

    /** {@return a fair semaphore's turnstile: a fair NORMAL mutex in private memory, on the semaphore's backend} */
    private static Mutex turnstile(final Sem sem) {
        return new Mutex(PrivateBlocks.allocate(MutexLayout.SIZE, MutexLayout.ALIGNMENT),
            MutexAttr.builder().fair(true).futex(sem.futex()).build());
    }

    /**
     * {@return a {@link Semaphore} over it}
     *
     * @param sem a semaphore, for example {@code Sem.open("/jobs", OpenFlags.O_CREAT, 0600, 4)}
     */
    public static PthreadSemaphore of(final Sem sem) {
        return new PthreadSemaphore(sem);
    }

    /**
     * {@return a {@link Semaphore} over it}
     *
     * @param block a block holding a semaphore initialized elsewhere ({@link Sem#attach(Block)})
     * @throws IllegalArgumentException when the block holds no semaphore
     */
    public static PthreadSemaphore attach(final Block block) {
        return new PthreadSemaphore(Sem.attach(block));
    }

    /**
     * {@return a {@link Semaphore} over it}: {@link #attach(Block)} with the backend a private
     * semaphore's other users sleep on
     *
     * @param block a block holding a semaphore initialized elsewhere ({@link Sem#attach(Block, Futex)})
     * @param futex the backend of a private semaphore, or {@code null} for the default
     * @throws IllegalArgumentException when the block holds no semaphore
     */
    public static PthreadSemaphore attach(final Block block, final Futex futex) {
        return new PthreadSemaphore(Sem.attach(block, futex));
    }

    private static int checkPermits(final int permits) {
        if (permits < 0) {
            throw new IllegalArgumentException("a sem_t cannot start with a negative permit count: " + permits);
        }
        return permits;
    }

    private static void checkArgument(final int permits) {
        if (permits < 0) {
            throw new IllegalArgumentException();
        }
    }

    /** {@return the {@code sem_t} under this semaphore} */
    public Sem sem() {
        return sem;
    }

    // ---------------------------------------------------------------------------------------
    // acquire

    /**
     * Takes a permit, waiting until one is released or the thread is interrupted
     * ({@code sem_wait}).
     *
     * @throws InterruptedException when interrupted on entry or while waiting; the status is
     *                              cleared and no permit taken
     */
    @Override
    public void acquire() throws InterruptedException {
        acquire(1);
    }

    /**
     * Takes {@code permits} permits at once, waiting until that many are available or the thread
     * is interrupted.
     *
     * @param permits how many, at least 0 (0 returns at once)
     * @throws InterruptedException     as {@link #acquire()}
     * @throws IllegalArgumentException when {@code permits} is negative
     */
    @Override
    public void acquire(final int permits) throws InterruptedException {
        checkArgument(permits);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (permits > 0 && (turnstile != null || sem.tryAwait(permits) != 0)) {
            final int r = contended(permits, null, true);
            interrupted(r);
            waited(r);
        }
    }

    /**
     * The blocking part of an acquisition, after a failed try, timed by a
     * {@link ContendedAcquireEvent}.
     */
    private int contended(final int permits, final Timespec at, final boolean interruptible) {
        if (turnstile != null) {
            return fairAwait(permits, at, interruptible);
        }
        final ContendedAcquireEvent event = ContendedAcquireEvent.begin(0, null);
        final int r = sem.timedAwait(permits, Timespec.CLOCK_MONOTONIC, at, interruptible);
        event.done("PthreadSemaphore", this, sem.block(), sem.futex(), r == 0);
        return r;
    }

    /**
     * A fair acquisition: through the turnstile in FIFO order, then, holding it, the wait for the
     * permits; the turnstile is passed on at once when the permits are there, and timed, without
     * waiting, only when the first try fails.
     */
    private int fairAwait(final int permits, final Timespec at, final boolean interruptible) {
        if (turnstile.tryLockFree() == 0) {
            if (sem.tryAwait(permits) == 0) {
                turnstile.unlock();
                return 0;
            }
        } else {
            final ContendedAcquireEvent event = ContendedAcquireEvent.begin(0, null);
            final int r = turnstile.timedLock(Timespec.CLOCK_MONOTONIC, at, interruptible);
            if (r != 0) {
                event.done("PthreadSemaphore", this, sem.block(), sem.futex(), false);
                return r;
            }
            if (sem.tryAwait(permits) == 0) {
                turnstile.unlock();
                event.done("PthreadSemaphore", this, sem.block(), sem.futex(), true);
                return 0;
            }
            event.done("PthreadSemaphore", this, sem.block(), sem.futex(), false);
        }
        try {
            final ContendedAcquireEvent event = ContendedAcquireEvent.begin(0, null);
            final int r = sem.timedAwait(permits, Timespec.CLOCK_MONOTONIC, at, interruptible);
            event.done("PthreadSemaphore", this, sem.block(), sem.futex(), r == 0);
            return r;
        } finally {
            turnstile.unlock();
        }
    }

    /** Takes a permit, waiting as long as needed; an interrupt is left set ({@code sem_wait}). */
    @Override
    public void acquireUninterruptibly() {
        acquireUninterruptibly(1);
    }

    /**
     * Takes {@code permits} permits at once, waiting as long as needed; an interrupt is left set.
     *
     * @param permits how many, at least 0
     * @throws IllegalArgumentException when {@code permits} is negative
     */
    @Override
    public void acquireUninterruptibly(final int permits) {
        checkArgument(permits);
        if (permits > 0 && (turnstile != null || sem.tryAwait(permits) != 0)) {
            waited(contended(permits, null, false));
        }
    }

    /**
     * Takes a permit if one is available ({@code sem_trywait}), even while threads wait.
     *
     * @return whether a permit was taken
     */
    @Override
    public boolean tryAcquire() {
        return sem.tryAwait() == 0;
    }

    /**
     * Takes {@code permits} permits at once if that many are available, even while threads wait
     * (fair or not, as {@code Semaphore}'s).
     *
     * @param permits how many, at least 0
     * @return whether they were taken
     * @throws IllegalArgumentException when {@code permits} is negative
     */
    @Override
    public boolean tryAcquire(final int permits) {
        checkArgument(permits);
        return permits == 0 || sem.tryAwait(permits) == 0;
    }

    /**
     * Takes a permit, waiting at most {@code timeout} (CLOCK_MONOTONIC), answering interrupts.
     *
     * @param timeout how long to wait; zero or less only tries
     * @param unit    its unit
     * @return true when a permit was taken, false when the time passed first
     * @throws InterruptedException as {@link #acquire()}
     */
    @Override
    public boolean tryAcquire(final long timeout, final TimeUnit unit) throws InterruptedException {
        return tryAcquire(1, timeout, unit);
    }

    /**
     * Takes {@code permits} permits at once, waiting at most {@code timeout} (CLOCK_MONOTONIC),
     * answering interrupts.
     *
     * @param permits how many, at least 0
     * @param timeout how long to wait; zero or less only tries
     * @param unit    its unit
     * @return true when they were taken, false when the time passed first
     * @throws InterruptedException     as {@link #acquire()}
     * @throws IllegalArgumentException when {@code permits} is negative
     */
    @Override
    public boolean tryAcquire(final int permits, final long timeout, final TimeUnit unit)
        throws InterruptedException {
        checkArgument(permits);
        final long nanos = unit.toNanos(timeout);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (permits == 0) {
            return true;
        }
        if (turnstile != null && nanos <= 0) {
            // fair: no permit ahead of the threads queued
            if (turnstile.tryLockFree() != 0) {
                return false;
            }
            try {
                return sem.tryAwait(permits) == 0;
            } finally {
                turnstile.unlock();
            }
        }
        if (turnstile == null && sem.tryAwait(permits) == 0) {
            return true;
        }
        if (nanos <= 0) {
            return false;
        }
        final int r = contended(permits, Timespec.after(Timespec.CLOCK_MONOTONIC, nanos, TimeUnit.NANOSECONDS), true);
        if (r == Errno.ETIMEDOUT) {
            return false;
        }
        interrupted(r);
        waited(r);
        return true;
    }

    // ---------------------------------------------------------------------------------------
    // release and counts

    /**
     * Adds a permit ({@code sem_post}), waking a waiter if one sleeps.
     *
     * @throws Error when the count would pass {@link Sem#VALUE_MAX}
     */
    @Override
    public void release() {
        posted(sem.post());
    }

    /**
     * Adds {@code permits} permits in one step.
     *
     * @param permits how many, at least 0
     * @throws IllegalArgumentException when {@code permits} is negative
     * @throws Error                    when the count would pass {@link Sem#VALUE_MAX}
     */
    @Override
    public void release(final int permits) {
        checkArgument(permits);
        if (permits > 0) {
            posted(sem.post(permits));
        }
    }

    /** {@return the permits available now ({@code sem_getvalue})} */
    @Override
    public int availablePermits() {
        return sem.getValue();
    }

    /**
     * Takes every permit available now.
     *
     * @return how many were taken
     */
    @Override
    public int drainPermits() {
        for (;;) {
            final int n = sem.getValue();
            if (n == 0 || sem.tryAwait(n) == 0) {
                return n;
            }
        }
    }

    /**
     * Takes {@code reduction} permits without waiting.
     *
     * @param reduction how many, at least 0
     * @throws IllegalArgumentException when {@code reduction} is negative
     * @throws IllegalStateException    when fewer are available: a {@code sem_t} cannot go
     *                                  below zero (the JDK's semaphore would)
     */
    @Override
    protected void reducePermits(final int reduction) {
        checkArgument(reduction);
        if (reduction > 0 && sem.tryAwait(reduction) != 0) {
            throw new IllegalStateException("cannot reduce the permits by " + reduction + ": " + sem.getValue()
                + " available, and a sem_t cannot go below zero");
        }
    }

    /** {@return whether the semaphore is fair ({@link #PthreadSemaphore(int, boolean)}); a {@code sem_t} alone is not} */
    @Override
    public boolean isFair() {
        return fair;
    }

    /**
     * What {@link #hasQueuedThreads()} answers for the JDK's semaphore (that method is final in
     * {@link Semaphore} and reads the unused inherited queue: it is always false here).
     *
     * @return whether threads (of any process sharing the semaphore) may be waiting
     */
    public boolean hasWaiters() {
        return getWaiterCount() > 0;
    }

    /**
     * What {@link #getQueueLength()} answers for the JDK's semaphore (that method is final in
     * {@link Semaphore} and reads the unused inherited queue: it is always 0 here).
     *
     * @return an estimate of the threads waiting, in every process sharing the semaphore
     *     ({@code sem_t}'s waiter count)
     */
    public int getWaiterCount() {
        return sem.waiterCount() + (turnstile != null ? turnstile.waiterCount() : 0);
    }

    /**
     * The threads waiting for permits, as far as this JVM can see: on the parking backend, the
     * threads asleep on the semaphore's word (a best-effort estimate, as {@code Semaphore}'s; a
     * thread between two sleeps is missing); on the kernel backends (and for a process-shared
     * or named semaphore) an empty collection, since the kernel does not tell which threads
     * sleep ({@link #getWaiterCount()} counts them).
     *
     * @return the waiting threads, a new collection
     */
    @Override
    protected Collection<Thread> getQueuedThreads() {
        final List<Thread> threads = new java.util.ArrayList<>(sem.futex() instanceof ParkingFutex p && !sem.isPshared()
            ? p.sleepers(sem.block().segment(), SemLayout.VALUE) : List.of());
        if (turnstile != null) {
            threads.addAll(turnstile.queuedThreads());
        }
        return threads;
    }

    /** {@return {@code Semaphore}'s form, {@code PthreadSemaphore@1b6d3586[Permits = 3]}} */
    @Override
    public String toString() {
        return getClass().getName() + "@" + Integer.toHexString(hashCode()) + "[Permits = " + availablePermits()
            + "]";
    }

    /** Throws for EINTR, clearing the interrupt status as {@code java.util.concurrent} does. */
    private static void interrupted(final int r) throws InterruptedException {
        if (r == Errno.EINTR) {
            Thread.interrupted();
            throw new InterruptedException();
        }
    }

    private static void waited(final int r) {
        if (r != 0) {
            throw new IllegalStateException("unexpected result " + Errno.name(r));
        }
    }

    private static void posted(final int r) {
        if (r == Errno.EOVERFLOW) {
            throw new Error("Maximum permit count exceeded");
        }
        if (r != 0) {
            throw new IllegalStateException("unexpected result " + Errno.name(r));
        }
    }

    /**
     * Writes a private semaphore as its available permits and backend.
     *
     * @param out the stream
     * @throws IOException              as the stream's
     * @throws NotSerializableException for a process-shared or named semaphore
     * @serialData the available permits (an int), then the name of the backend (a String, or
     *     null for the default)
     */
    @Serial
    private void writeObject(final ObjectOutputStream out) throws IOException {
        if (sem.isPshared()) {
            throw new NotSerializableException(getClass().getName() + ": a process-shared semaphore's permits are "
                + "memory that other processes map, and a copy would be another semaphore; open or attach it there");
        }
        out.defaultWriteObject();
        out.writeInt(sem.getValue());
        out.writeObject(SerialForms.backendName(sem.futex() == Futexes.defaultPrivate() ? null : sem.futex()));
    }

    /**
     * Reads a semaphore as a new private one with the permits written.
     *
     * @param in the stream
     * @throws IOException            as the stream's, or {@link InvalidObjectException} for a
     *                                negative permit count or a backend that is not a name
     * @throws ClassNotFoundException as the stream's
     */
    @Serial
    private void readObject(final ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        final int permits = in.readInt();
        final Object backend = in.readObject();
        if (permits < 0 || (backend != null && !(backend instanceof String))) {
            throw new InvalidObjectException("a PthreadSemaphore holds 0 or more permits on a named backend, not "
                + permits + " on " + backend);
        }
        sem = new Sem(PrivateBlocks.allocate(SemLayout.SIZE, SemLayout.ALIGNMENT), false, permits,
            SerialForms.backend((String) backend));
        turnstile = fair ? turnstile(sem) : null;
        VarHandle.releaseFence();
    }
}
