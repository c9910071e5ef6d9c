package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.pthread4j.CondLayout.*;

/**
 * A condition variable: musl's {@code pthread_cond_t} over a 48-byte {@link Block} with musl's
 * layout ({@link CondLayout}), used with a {@link Mutex}.
 *
 * <p><b>Contract.</b> Spurious wakeups happen: always wait in a loop on your predicate. No wakeup
 * is lost: a signal sent after a waiter released the mutex wakes a waiter, or is consumed by one
 * whose timeout or interrupt raced with it. Whatever the outcome, every wait returns with the
 * mutex held again, except when relocking it failed (ENOTRECOVERABLE).
 *
 * <p>Memory consistency: a wait unlocks and relocks the mutex, so actions of a thread before it
 * signals, while holding the mutex, happen-before the signaled waiter's return, as with any
 * lock; and actions before a {@code signal}/{@code broadcast} that releases a waiter
 * happen-before that waiter's return from the wait.
 *
 * <h2>Implementation overview</h2>
 *
 * <p>There are two algorithms, chosen once by the {@code pshared} attribute, as in musl
 * ({@code src/thread/pthread_cond_timedwait.c}; {@code docs/sources.md}, "musl: the condition variable").
 *
 * <p><b>Private condvars: a list of waiter nodes.</b> Every waiting thread owns a node with two
 * words: {@code state} (WAITING, SIGNALED or LEAVING) and {@code barrier}, a three-state lock
 * (0 free, 1 held, 2 held with sleepers) that starts at 2. A waiter links its node at the head
 * of the condvar's list under the condvar's own lock word {@code _c_lock}, unlocks the mutex, and
 * sleeps on <em>its own</em> barrier. {@code signal} and {@code broadcast} take {@code _c_lock},
 * walk from the tail (the oldest waiter, so wakeups are FIFO) turning WAITING nodes into SIGNALED
 * with one CAS each, cut the walked part off the list, release {@code _c_lock}, and then release
 * the barrier of the oldest signaled node only, which wakes it. That waiter relocks the mutex and
 * only then releases its successor's barrier, and instead of waking it, <em>requeues</em> it onto
 * the mutex's futex word ({@code FUTEX_REQUEUE}, wake 0, move 1): the successor sleeps on until
 * an ordinary mutex unlock wakes it. A broadcast to N waiters therefore never stampedes the
 * mutex: at any moment at most one member of the group competes for it.
 *
 * <p>The races this closes:
 * <ul>
 * <li><em>Timeout or interrupt against signal.</em> The CAS on {@code state} decides the winner
 *     exactly once. A waiter that loses (its node is SIGNALED) behaves as signaled even though it
 *     timed out: it takes its place in the chain and hands off to its successor, so the chain
 *     never breaks (it still returns ETIMEDOUT, which POSIX allows). A waiter that wins (LEAVING)
 *     is skipped without using up the signal, which goes to another waiter.</li>
 * <li><em>A leaving waiter inside a detached group.</em> It unlinks itself under {@code _c_lock},
 *     patching its neighbours. A signaler that walked past a LEAVING node counts it in its
 *     {@code ref} word and points the node's {@code notify} at itself; it waits until {@code ref}
 *     is back to 0 before releasing anyone, so the group's links are final before they are read,
 *     and no leaving waiter touches the condvar after signal or broadcast returned.</li>
 * <li><em>Destruction right after broadcast.</em> A signaled waiter never touches the condvar
 *     again, only its own node, its neighbours' nodes and the mutex; so the condvar's memory may be
 *     freed as soon as broadcast returns.</li>
 * <li><em>Several mutexes.</em> The condvar stores no mutex: each waiter relocks the mutex it came
 *     with, so the same condvar can serve different mutexes in turn (musl's
 *     {@code pthread_cond-smasher}).</li>
 * <li><em>Requeued waiters and the mutex's wakes.</em> A waiter requeued onto the mutex is not
 *     counted in the mutex's {@code _m_waiters}; an unrelated locker could take the only wake and
 *     unlock without waking anyone. So the first member of a group to own the mutex counts one
 *     waiter in ({@link Mutex#countRequeued()}) and the last one counts it out: while a group
 *     drains, every unlock wakes under musl's protocol, and under the parking protocol every
 *     acquisition after a wake records bit 31, including the requeued member's own relock
 *     ({@link Mutex#relock(boolean)}). The member about to requeue its successor also sets the
 *     mutex's bit 31 ({@link Mutex#markWaiters()}) so that its own unlock wakes. Plain
 *     {@code FUTEX_REQUEUE} suffices: the barrier is set to 0 before the requeue, so a waiter
 *     that had not yet slept sees 0 and does not sleep. The condvar changes the mutex's words
 *     only through these methods of {@link Mutex}.</li>
 * <li><em>Requeue impossible.</em> When the mutex is process-shared or robust (a robust mutex
 *     sleeps under shared keys, because the kernel's owner-death wake is shared), or uses another
 *     futex backend than the condvar, the successor is woken instead of requeued (one futex call
 *     cannot move a waiter between a private and a shared key, or between two backends).</li>
 * </ul>
 *
 * <p><b>Sleeping.</b> On a kernel backend a waiter sleeps at once, as in musl. On the parking
 * backend ({@link SleepProtocol#PARKING}) it first spins on its own barrier for a few
 * microseconds ({@code Tuning.condSpinNanos}, about one wakeup across CPUs), holding the
 * barrier at 1 (held, nobody asleep) and raising it to 2 only when it goes to sleep: a signal
 * within the spin releases it with one swap and no futex call on either side. A thread that
 * waits again on the condvar it last returned from, without having signaled or broadcast on any
 * private condvar in between, does not spin: it is re-checking a predicate that is still false,
 * and being awake would only compete with the thread that is to change it.
 *
 * <p><b>Where the private state lives.</b> The block keeps musl's layout: {@code _c_shared} = 0,
 * {@code _c_clock}, and {@code _c_lock}, the futex word every list change is made under. The list
 * itself is Java objects: {@code _c_head}/{@code _c_tail} are fields of this {@code Cond}, and
 * each node's {@code prev}/{@code next}/{@code notify} are fields of the node object, because a
 * Java reference, unlike a pointer into a C stack, keeps its target alive and cannot dangle. The
 * node's futex words ({@code state}, {@code barrier}, and the {@code ref} word used when its thread
 * signals) cannot live on a Java thread's stack; they live in a per-thread node of off-heap memory
 * ({@value CondLayout#NODE_SIZE} bytes, carved from shared slabs and reused by every wait of that
 * thread), one representation for every backend. The block's {@code _c_head}/{@code _c_tail}
 * mirror the native addresses of the newest and oldest node's words (0 when empty): the
 * algorithm reads only {@code _c_tail}, as a lock-free "nobody waits" test in signal and
 * broadcast. Consequently a private condvar's state belongs to this {@code Cond} object: share
 * the object between threads; {@link #attach} refuses a private block.
 *
 * <p><b>Process-shared condvars: a sequence counter</b>, byte-compatible with musl so a
 * musl-linked C process can use the same block, and musl's steps exactly. A waiter reads
 * {@code _c_seq}, increments {@code _c_waiters} (both while holding the mutex, so a signaler that
 * changed the predicate under the mutex sees it counted), unlocks the mutex and sleeps on
 * {@code _c_seq} with shared futex operations. Signal and broadcast return at once when
 * {@code _c_waiters} is 0, otherwise increment {@code _c_seq} and wake one or all. There is no
 * requeue across processes: a shared broadcast wakes every waiter. Any waiter that had not yet
 * slept when {@code _c_seq} moved also returns (a spurious wakeup); {@code _c_seq} may wrap around
 * 2^32 (musl accepts that ABA).
 *
 * <p>Backends: a private condvar uses {@link CondAttr#futex()} or
 * {@link Futexes#defaultPrivate()}; a shared one uses the attributes' backend, which must serve
 * shared words, or {@link Futexes#shared()}.
 *
 * <p>See {@code docs/03-cond.md}: the words, the states, the races and the tests that prove them.
 */
public final class Cond {
    private static final AtomicInteger IDS = new AtomicInteger();

    private final Block block;
    private final MemorySegment seg;
    private final boolean shared;
    /** A nonzero id for the re-wait rule of the spin (class overview); ids wrap after 2^32 condvars. */
    private final int id = nextId();
    private final int clock;
    private final Futex futex;
    /** How long a waiter spins on its own word before it sleeps: 0 but on the parking backend. */
    private final long spinNanos;

    /** musl's {@code _c_head}: the newest waiter. Guarded by {@code _c_lock}. */
    private Node head;
    /** musl's {@code _c_tail}: the oldest waiter. Guarded by {@code _c_lock}. */
    private Node tail;

    /**
     * Initializes a condvar in {@code block} ({@code pthread_cond_init.c}): zeroes it, stores the
     * clock, and marks it process-shared if asked.
     *
     * @param block at least {@value CondLayout#SIZE} bytes, 8-byte aligned
     * @param attr  the attributes ({@link CondAttr#DEFAULT} for a private CLOCK_REALTIME condvar)
     * @throws IllegalArgumentException for a block that is too small or misaligned, or a shared
     *                                  condvar given a backend that cannot serve shared words
     */
    public Cond(final Block block, final CondAttr attr) {
        this(block, attr, Tuning.DEFAULT);
    }

    /** {@link #Cond(Block, CondAttr)} with other bounds for the parking protocol (tests). */
    Cond(final Block block, final CondAttr attr, final Tuning tuning) {
        CondLayout.checkBlock(block);
        this.block = block;
        this.seg = block.segment();
        this.shared = attr.pshared();
        this.clock = attr.clock();
        this.futex = Backing.futex(attr.pshared(), attr.futex(), "process-shared condvar");
        // A waiter's own spin: on the parking protocol; under musl's, as one of MuslProtocol's
        // departures (its overview), unless the tuning asks for musl's exact steps.
        this.spinNanos = Protocol.parks(futex, !shared) || tuning.muslSpinNanos() > 0 ? tuning.condSpinNanos() : 0;
        seg.asSlice(0, SIZE).fill((byte) 0);
        block.set(CLOCK, attr.clock() & ATTR_CLOCK_MASK);
        if (shared) {
            block.setLong(SHARED, SHARED_MARK);
        }
    }

    private Cond(final Block block) {
        CondLayout.checkBlock(block);
        if (block.getLong(SHARED) == 0) {
            throw new IllegalArgumentException("the block holds a private condvar: its waiter list belongs to the "
                + "Cond object that initialized it; share that object instead of attaching");
        }
        this.block = block;
        this.seg = block.segment();
        this.shared = true;
        this.clock = block.get(CLOCK);
        this.futex = Futexes.shared();
        this.spinNanos = Tuning.DEFAULT.muslSpinNanos() > 0 ? Tuning.DEFAULT.condSpinNanos() : 0;
    }

    /**
     * A view of a process-shared condvar that was initialized elsewhere (by another JVM or by a
     * musl {@code pthread_cond_init} with {@code PTHREAD_PROCESS_SHARED}). Nothing is written.
     *
     * @param block the condvar's block
     * @return the view
     * @throws IllegalArgumentException for a too small or misaligned block, or a private condvar
     */
    public static Cond attach(final Block block) {
        return new Cond(block);
    }

    /** {@return the block this condvar lives in} */
    public Block block() {
        return block;
    }

    /** {@return whether this condvar is process-shared} */
    public boolean isPshared() {
        return shared;
    }

    /** {@return the clock id of timed-wait deadlines, as stored in {@code _c_clock}} */
    public int clock() {
        return clock;
    }

    /** {@return the futex backend this condvar sleeps and wakes through} */
    public Futex futex() {
        return futex;
    }

    /**
     * {@return how its waiters sleep: {@link SleepProtocol#PARKING} (a short spin on the
     *     waiter's own word first) for a private condvar on the parking backend, else musl's}
     */
    public SleepProtocol sleepProtocol() {
        return Protocol.parks(futex, !shared) ? SleepProtocol.PARKING : SleepProtocol.MUSL;
    }

    /**
     * {@code pthread_cond_wait} ({@code pthread_cond_wait.c}, which calls
     * {@code pthread_cond_timedwait.c}): releases {@code mutex}, sleeps until signaled (or spuriously
     * woken), relocks {@code mutex}. Not interruptible (an interrupt is kept pending).
     *
     * <p>Memory effects: those of unlocking and then locking {@code mutex}, plus: actions before a
     * signal or broadcast that released this waiter happen-before the return.
     *
     * @param mutex a mutex the caller holds
     * @return 0; EPERM (and nothing done) when {@code mutex} is owner-tracked (recursive,
     *     errorcheck or robust) and not held by the caller; or the error of relocking it
     *     (EOWNERDEAD: held, but its previous owner died; ENOTRECOVERABLE: not held)
     */
    public int await(final Mutex mutex) {
        return timedAwait(mutex, null, false);
    }

    /**
     * {@code pthread_cond_timedwait} ({@code pthread_cond_timedwait.c}): as {@link #await}, but gives
     * up at an absolute deadline on
     * this condvar's {@linkplain #clock() clock}.
     *
     * @param mutex    a mutex the caller holds
     * @param deadline absolute deadline, or {@code null} for none
     * @return 0; ETIMEDOUT (mutex held again; a signal that raced with the timeout may have been
     *     consumed, as POSIX allows); EINVAL with the mutex still held and nothing done when
     *     {@code deadline.nsec()} is outside {@code [0, 1e9)}; EPERM as for {@link #await}; or the
     *     error of relocking the mutex (EOWNERDEAD, ENOTRECOVERABLE)
     */
    public int timedAwait(final Mutex mutex, final Timespec deadline) {
        return timedAwait(mutex, deadline, false);
    }

    /**
     * {@link #timedAwait(Mutex, Timespec)} that can also end on {@link Thread#interrupt()}, for
     * the {@code java.util.concurrent} adapter: an interrupt plays the part of musl's masked
     * cancellation.
     *
     * <p>When interruptible: a caller already interrupted gets EINTR at once, mutex held, nothing
     * done. A waiter interrupted before any signal picked it leaves the condvar, relocks the mutex
     * and returns EINTR (the interrupt status stays set). A waiter that was signaled at the same
     * time consumed the signal: it returns 0 (or ETIMEDOUT) with its interrupt status still set,
     * so the interrupt is seen by the caller's next check and no signal is lost.
     *
     * @param mutex         a mutex the caller holds
     * @param deadline      absolute deadline on {@link #clock()}, or {@code null}
     * @param interruptible whether an interrupt ends the wait
     * @return 0, ETIMEDOUT, EINTR (only if {@code interruptible}), EINVAL, EPERM, EOWNERDEAD or
     *     ENOTRECOVERABLE, as described above and for {@link #timedAwait(Mutex, Timespec)}
     */
    public int timedAwait(final Mutex mutex, final Timespec deadline, final boolean interruptible) {
        if (!mutex.waitPermitted()) {
            return Errno.EPERM;
        }
        if (deadline != null && !deadline.isValid()) {
            return Errno.EINVAL;
        }
        if (interruptible && Thread.currentThread().isInterrupted()) {
            return Errno.EINTR;
        }
        final int clk = deadline == null ? Timespec.CLOCK_MONOTONIC : clock;
        return shared ? sharedWait(mutex, clk, deadline, interruptible)
            : privateWait(mutex, clk, deadline, interruptible);
    }

    /** musl's {@code __pthread_cond_timedwait}, private branch. */
    private int privateWait(final Mutex mutex, final int clk, final Timespec deadline, final boolean interruptible) {
        final Node node = Node.current();
        final MemorySegment w = node.words;
        // No spin for a thread waiting again on the condvar it last waited on without having
        // signaled any since: a re-check that found its predicate still false.
        final boolean spin = spinNanos > 0 && node.rewaiting != id;
        node.rewaiting = id;

        lock(seg, LOCK);
        // The barrier starts held: CONTENDED as in musl, or LOCKED while this waiter spins (it
        // raises it to CONTENDED itself before it sleeps, so the release of a spinning waiter
        // needs no wake).
        Block.INT.setVolatile(w, (long) NODE_BARRIER, spin ? LOCKED : CONTENDED);
        Block.INT.setVolatile(w, (long) NODE_STATE, WAITING);
        node.notify = null;
        node.mutex = mutex;
        node.prev = null;
        node.next = head;
        setHead(node);
        if (tail == null) {
            setTail(node);
        } else {
            node.next.prev = node;
        }
        unlock(seg, LOCK);

        mutex.unlock();

        int e = 0;
        if (!spin || spinThenMark(w)) {
            do {
                e = futex.timedWait(w, NODE_BARRIER, CONTENDED, true, clk, deadline, interruptible);
            } while ((int) Block.INT.getVolatile(w, (long) NODE_BARRIER) == CONTENDED && (e == 0 || e == Errno.EAGAIN));
            if (e == Errno.EAGAIN) {
                e = 0;
            }
        }

        final int oldstate = (int) Block.INT.compareAndExchange(w, (long) NODE_STATE, WAITING, LEAVING);
        if (oldstate == WAITING) {
            // Not signaled: the condvar is still valid, because a signal that saw this node
            // LEAVING cannot return before it is told (through notify) that the node is gone.
            lock(seg, LOCK);
            if (head == node) {
                setHead(node.next);
            } else if (node.prev != null) {
                node.prev.next = node.next;
            }
            if (tail == node) {
                setTail(node.prev);
            } else if (node.next != null) {
                node.next.prev = node.prev;
            }
            unlock(seg, LOCK);
            final Node signaler = node.notify;
            if (signaler != null
                && (int) Block.INT.getAndAdd(signaler.words, (long) NODE_REF, -1) == 1) {
                futex.wake(signaler.words, NODE_REF, 1, true);
            }
        } else {
            // Signaled: lock the barrier first to control the group's wake order.
            lock(w, NODE_BARRIER);
        }

        // Errors relocking the mutex override: the caller must learn the mutex's state. A member
        // with an older neighbour in its group was requeued onto the mutex (or woken, where that
        // is impossible) by that neighbour, and relocks as a thread an unlock of it woke.
        final int r = mutex.relock(oldstate != WAITING && node.next != null);
        if (r != 0) {
            e = r;
        }
        if (oldstate == WAITING) {
            node.clearLinks();
            return e;
        }

        if (node.next == null) {
            mutex.countRequeued();
        }
        // Release the barrier that holds back the next waiter, and requeue it to the mutex.
        final Node successor = node.prev;
        if (successor != null) {
            mutex.markWaiters();
            unlockRequeue(successor, mutex);
        } else {
            mutex.uncountRequeued();
        }
        node.clearLinks();
        // A signal was consumed: an interrupt must not be acted on now (it stays pending).
        return e == Errno.EINTR ? 0 : e;
    }

    private static int nextId() {
        int i;
        do {
            i = IDS.incrementAndGet();
        } while (i == 0);
        return i;
    }

    /**
     * Spins up to {@link #spinNanos} while the barrier is LOCKED (not yet released), then marks
     * it CONTENDED, the value the futex sleep waits out.
     *
     * @return whether the waiter must sleep: false when the barrier was released meanwhile
     */
    private boolean spinThenMark(final MemorySegment w) {
        Spin.whileEqual(w, NODE_BARRIER, LOCKED, spinNanos);
        return (int) Block.INT.compareAndExchange(w, (long) NODE_BARRIER, LOCKED, CONTENDED) != UNLOCKED;
    }

    /**
     * musl's {@code unlock_requeue} ({@code pthread_cond_timedwait.c}): release the successor's
     * barrier, then move it onto the mutex's futex word without waking it, or wake it where the
     * move is impossible.
     */
    private void unlockRequeue(final Node successor, final Mutex mutex) {
        final MemorySegment w = successor.words;
        Block.INT.setVolatile(w, (long) NODE_BARRIER, UNLOCKED);
        if (!mutex.requeue(futex, w, NODE_BARRIER)) {
            futex.wake(w, NODE_BARRIER, 1, true);
        }
    }

    /** musl's {@code __pthread_cond_timedwait}, shared branch. */
    private int sharedWait(final Mutex mutex, final int clk, final Timespec deadline, final boolean interruptible) {
        boolean spin = false;
        if (spinNanos > 0) {
            final Node node = Node.current();
            spin = node.rewaiting != id;
            node.rewaiting = id;
        }
        final int seq = block.get(SEQ);
        block.getAndAdd(WAITERS, 1);

        mutex.unlock();

        if (spin) {
            Spin.whileEqual(seg, SEQ, seq, spinNanos);
        }
        int e = 0;
        while (block.get(SEQ) == seq && (e == 0 || e == Errno.EAGAIN)) {
            e = futex.timedWait(seg, SEQ, seq, false, clk, deadline, interruptible);
        }
        if (e == Errno.EAGAIN) {
            e = 0;
        }
        // A signal may have been consumed: then the interrupt counts as a spurious wakeup.
        if (e == Errno.EINTR && block.get(SEQ) != seq) {
            e = 0;
        }
        if (block.getAndAdd(WAITERS, -1) == WAITERS_LAST_BEFORE_DESTROY) {
            futex.wake(seg, WAITERS, 1, false);
        }

        final int r = mutex.relock(false);
        return r != 0 ? r : e;
    }

    /**
     * {@code pthread_cond_signal} ({@code pthread_cond_signal.c}; the private case is
     * {@code __private_cond_signal} in {@code pthread_cond_timedwait.c}): releases at least one
     * thread blocked in a wait, the longest
     * waiting first (private), if there is any.
     *
     * <p>Memory effects: actions before this call happen-before the return of the wait it
     * releases. After it returns, this condvar's memory is no longer touched on the signaled
     * waiter's behalf.
     *
     * @return 0, always
     */
    public int signal() {
        return shared ? sharedSignal(1) : privateSignal(1);
    }

    /**
     * {@code pthread_cond_broadcast} ({@code pthread_cond_broadcast.c}; the private case is
     * {@code __private_cond_signal}): releases every thread blocked in a wait. Private condvars
     * hand the group to the mutex one waiter at a time (requeue); shared ones wake all.
     * The condvar may be destroyed and its memory freed as soon as this returns.
     *
     * <p>Memory effects: actions before this call happen-before the return of each wait it
     * releases.
     *
     * @return 0, always
     */
    public int broadcast() {
        return shared ? sharedSignal(-1) : privateSignal(-1);
    }

    /** musl's {@code pthread_cond_signal}/{@code pthread_cond_broadcast}, shared branch. */
    private int sharedSignal(final int n) {
        if (spinNanos > 0) {
            Node.signaled();
        }
        if (block.get(WAITERS) == 0) {
            return 0;
        }
        block.getAndAdd(SEQ, 1);
        futex.wake(seg, SEQ, n, false);
        return 0;
    }

    /** musl's {@code __private_cond_signal}; {@code n} is 1 (signal) or -1 (broadcast). */
    private int privateSignal(final int n) {
        // A waiter links itself before it unlocks the mutex, so a signaler ordered after that
        // unlock sees a nonzero tail: an empty list needs no lock.
        if (block.getLong(TAIL) == 0) {
            Node.signaled();
            return 0;
        }
        Node self = null;
        Node first = null;
        Node p;
        int left = n;
        lock(seg, LOCK);
        for (p = tail; left != 0 && p != null; p = p.prev) {
            if ((int) Block.INT.compareAndExchange(p.words, (long) NODE_STATE, WAITING, SIGNALED) != WAITING) {
                if (self == null) {
                    self = Node.current();
                }
                Block.INT.getAndAdd(self.words, (long) NODE_REF, 1);
                p.notify = self;
            } else {
                left--;
                if (first == null) {
                    first = p;
                }
            }
        }
        // Split the list, leaving any remainder on the condvar.
        if (p != null) {
            if (p.next != null) {
                p.next.prev = null;
            }
            p.next = null;
        } else {
            setHead(null);
        }
        setTail(p);
        unlock(seg, LOCK);

        // Wait for LEAVING waiters to unlink themselves before releasing anyone or returning.
        if (self != null) {
            int cur;
            while ((cur = (int) Block.INT.getVolatile(self.words, (long) NODE_REF)) != 0) {
                MuslWait.await(futex, self.words, NODE_REF, -1, cur, true);
            }
        }
        // Let the first signaled waiter proceed.
        if (first != null) {
            unlock(first.words, NODE_BARRIER);
        }
        if (self != null) {
            self.rewaiting = 0;
        } else {
            Node.signaled();
        }
        return 0;
    }

    /**
     * {@code pthread_cond_destroy} ({@code pthread_cond_destroy.c}). Private: nothing to do (no
     * thread may be blocked on a
     * condvar that is destroyed; threads released by a broadcast no longer touch it). Shared:
     * if threads are still inside a wait, wakes them all and waits until each has left the
     * condvar's memory (they may still be relocking their mutex), so the memory may be unmapped
     * when this returns.
     *
     * @return 0, always
     */
    public int destroy() {
        if (shared && block.get(WAITERS) != 0) {
            block.getAndOr(WAITERS, WAITERS_DESTROY);
            block.getAndAdd(SEQ, 1);
            futex.wake(seg, SEQ, -1, false);
            int cnt;
            while (((cnt = block.get(WAITERS)) & ~WAITERS_DESTROY) != 0) {
                MuslWait.await(futex, seg, WAITERS, -1, cnt, false);
            }
        }
        return 0;
    }

    /**
     * For introspection: how many threads are blocked in a wait and not yet picked by a signal
     * (private: nodes on the list, taking {@code _c_lock}; shared: {@code _c_waiters}, which
     * counts every thread between its wait's start and its wakeup, in any process). A snapshot,
     * stale as soon as it returns.
     *
     * @return the count
     */
    public int waiterCount() {
        if (shared) {
            return block.get(WAITERS) & ~WAITERS_DESTROY;
        }
        lock(seg, LOCK);
        int count = 0;
        for (Node p = tail; p != null; p = p.prev) {
            count++;
        }
        unlock(seg, LOCK);
        return count;
    }

    /**
     * For introspection: the threads of {@link #waiterCount()}, oldest waiter first, for a private
     * condvar (its waiters are this process's threads, on the list); empty for a shared one, whose
     * waiters may be in other processes and are only counted. A snapshot, stale as soon as it
     * returns.
     *
     * @return the waiting threads, a new list
     */
    public List<Thread> waitingThreads() {
        if (shared) {
            return List.of();
        }
        final List<Integer> owners = new ArrayList<>();
        lock(seg, LOCK);
        for (Node p = tail; p != null; p = p.prev) {
            owners.add(p.owner);
        }
        unlock(seg, LOCK);
        final List<Thread> threads = new ArrayList<>(owners.size());
        for (final int owner : owners) {
            final Thread t = ThreadIds.thread(owner);
            if (t != null) {
                threads.add(t);
            }
        }
        return threads;
    }

    private void setHead(final Node node) {
        head = node;
        block.setLong(HEAD, node == null ? 0 : node.words.address());
    }

    private void setTail(final Node node) {
        tail = node;
        block.setLong(TAIL, node == null ? 0 : node.words.address());
    }

    /**
     * musl's self-synchronized-destruction-safe {@code lock} in {@code pthread_cond_timedwait.c}
     * (three states; {@code docs/sources.md}, "musl: the condvar's internal lock").
     */
    private void lock(final MemorySegment s, final long off) {
        if ((int) Block.INT.compareAndExchange(s, off, UNLOCKED, LOCKED) != UNLOCKED) {
            Block.INT.compareAndExchange(s, off, LOCKED, CONTENDED);
            do {
                MuslWait.await(futex, s, off, -1, CONTENDED, true);
            } while ((int) Block.INT.compareAndExchange(s, off, UNLOCKED, CONTENDED) != UNLOCKED);
        }
    }

    /** musl's {@code unlock} in {@code pthread_cond_timedwait.c}: one swap, then at most a wake on the address. */
    private void unlock(final MemorySegment s, final long off) {
        if ((int) Block.INT.getAndSet(s, off, UNLOCKED) == CONTENDED) {
            futex.wake(s, off, 1, true);
        }
    }

    @Override
    public String toString() {
        return "Cond[" + (shared ? "shared" : "private") + ", clock " + clock + ", " + futex.name() + "]";
    }

    /**
     * A thread's waiter node: musl's {@code struct waiter}, whose futex words live off-heap and
     * whose links are Java references. One per thread, reused by every wait of that thread (a
     * thread waits on one condvar at a time) and by its signals (for the {@code ref} word).
     */
    static final class Node {
        /** The thread's node, made by its first wait or signal that needs one. */
        private static final ThreadLocal<Node> CURRENT = new ThreadLocal<>();

        /** {@code state}, {@code barrier} and {@code ref}, {@value CondLayout#NODE_SIZE} bytes. */
        final MemorySegment words;
        /** Newer neighbour (toward the head). */
        Node prev;
        /** Older neighbour (toward the tail). */
        Node next;
        /** The signaler whose {@code ref} counts this node as LEAVING, or null. */
        Node notify;
        /** The mutex the waiting thread will relock. */
        Mutex mutex;
        /** The thread's owner id ({@link ThreadIds#current()}), for {@link Cond#waitingThreads()}. */
        final int owner;
        /**
         * The id of the private condvar this thread last waited on (an id, not a
         * reference, so that a thread keeps no condvar reachable), or 0, until it signals or
         * broadcasts on any private condvar: a thread that waits on it again before that gains
         * nothing from spinning (see the class overview of {@link Cond}).
         */
        int rewaiting;

        private Node(final MemorySegment words) {
            this.words = words;
            this.owner = ThreadIds.current();
        }

        static Node current() {
            Node n = CURRENT.get();
            if (n == null) {
                n = new Node(Slab.slot());
                CURRENT.set(n);
            }
            return n;
        }

        /**
         * Records that the calling thread signaled or broadcast, for the spin's re-wait rule,
         * without giving a node to a thread that only ever signals.
         */
        static void signaled() {
            final Node n = CURRENT.get();
            if (n != null) {
                n.rewaiting = 0;
            }
        }

        void clearLinks() {
            prev = null;
            next = null;
            notify = null;
            mutex = null;
        }
    }

    /**
     * Off-heap memory for nodes: slabs of 64 nodes from automatic arenas, so a slab is freed once
     * no thread's node refers to it any more.
     */
    private static final class Slab {
        private static final int NODES_PER_SLAB = 64;
        private static MemorySegment current;
        private static int next = NODES_PER_SLAB;

        private Slab() {
        }

        static synchronized MemorySegment slot() {
            if (next == NODES_PER_SLAB) {
                current = Arena.ofAuto().allocate((long) NODES_PER_SLAB * NODE_SIZE, NODE_SIZE);
                next = 0;
            }
            return current.asSlice((long) next++ * NODE_SIZE, NODE_SIZE);
        }
    }
}
