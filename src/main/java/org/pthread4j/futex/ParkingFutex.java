package org.pthread4j.futex;

import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * An in-JVM futex table for process-private words: hash buckets of waiter queues, where a
 * wait compares the word and enqueues under the bucket's lock (the kernel's hash-bucket
 * lock), and a waiter sleeps in {@link LockSupport#park}. Words are keyed by native address,
 * as the kernel keys private futexes by (process, address).
 *
 * <p>Because it parks, a waiter shows as {@code WAITING}/{@code TIMED_WAITING} in thread
 * dumps, answers {@link Thread#interrupt()} at once, and a virtual thread unmounts instead of
 * pinning its carrier. It serves private words only ({@code priv == false} gets EINVAL).
 *
 * <p>It is also where the seeds' ideas live:
 * <ul>
 * <li>{@link #setWait set-and-wait} (seed 000) is atomic here: the CAS to {@code val2}
 *     happens under the bucket lock, so no waker can slip between it and the enqueue; and so is
 *     {@link #setBitWait set-bit-and-wait}, which can also join the sleepers already queued on
 *     the word;</li>
 * <li>{@link #swap} (seed 003) enqueues the caller before it wakes its partner;</li>
 * <li>priority-ordered wakeup (seed 004, opt-in): waiters queue by
 *     {@link Thread#getPriority()}, highest first, FIFO within a priority;</li>
 * <li>the bucket count is set per instance (seed 001's private hash size).</li>
 * </ul>
 *
 * <p>Memory effects: none are promised beyond the kernel's. As with {@code futex(2)}, callers
 * publish through their own volatile words and re-check them after every wait (every
 * primitive here does, and its jcstress tests prove its ordering); a wait that returns 0 says
 * only "look again".
 */
public final class ParkingFutex implements Futex {
    /** Default bucket count: 256, sixteen times the kernel's default per-process hash of 16 slots. */
    public static final int DEFAULT_BUCKETS = 256;
    /** Longest single park when the deadline is on CLOCK_REALTIME, so a clock step is noticed. */
    static final long REALTIME_SLICE_NANOS = 50_000_000L;

    /** One sleeping thread. Its fields other than {@code woken} change only under its bucket's lock. */
    static final class Waiter {
        final Thread thread;
        final int priority;
        long key;
        volatile Bucket bucket;
        Waiter prev;
        Waiter next;
        volatile boolean woken;

        Waiter(final Thread thread, final int priority) {
            this.thread = thread;
            this.priority = priority;
        }
    }

    /** One hash bucket: a doubly linked queue guarded by the bucket's monitor. */
    static final class Bucket {
        final int index;
        Waiter head;
        Waiter tail;
        /** Queued waiters; written under the monitor, read without it by wakers. */
        volatile int waiters;

        Bucket(final int index) {
            this.index = index;
        }
    }

    private final Bucket[] buckets;
    private final int mask;
    private final boolean priorityOrder;
    private final String name;
    private final java.util.function.Consumer<Thread> unparker;

    ParkingFutex(final int bucketCount, final boolean priorityOrder, final String name) {
        this(bucketCount, priorityOrder, name, LockSupport::unpark);
    }

    /** With a given unpark action: tests record the order in which woken threads are released. */
    ParkingFutex(final int bucketCount, final boolean priorityOrder, final String name,
                 final java.util.function.Consumer<Thread> unparker) {
        if (bucketCount < 1 || bucketCount > (1 << 24) || Integer.bitCount(bucketCount) != 1) {
            throw new IllegalArgumentException("bucket count must be a power of two in [1, 2^24]: " + bucketCount);
        }
        this.buckets = new Bucket[bucketCount];
        for (int i = 0; i < bucketCount; i++) {
            buckets[i] = new Bucket(i);
        }
        this.mask = bucketCount - 1;
        this.priorityOrder = priorityOrder;
        this.name = name;
        this.unparker = unparker;
    }

    /**
     * A new, independent parking table.
     *
     * @param bucketCount   a power of two; more buckets, fewer unrelated words share a lock
     * @param priorityOrder whether wakes take the highest-priority waiter first
     * @return the backend
     */
    public static ParkingFutex create(final int bucketCount, final boolean priorityOrder) {
        return new ParkingFutex(bucketCount, priorityOrder,
            "parking" + (priorityOrder ? "-prio" : "") + (bucketCount != DEFAULT_BUCKETS ? "-" + bucketCount : ""));
    }

    /** {@return the number of hash buckets} */
    public int bucketCount() {
        return buckets.length;
    }

    /** {@return whether wakeups are priority-ordered} */
    public boolean isPriorityOrdered() {
        return priorityOrder;
    }

    private Bucket bucketOf(final long key) {
        long h = key * 0x9E37_79B9_7F4A_7C15L;
        h ^= h >>> 29;
        return buckets[(int) h & mask];
    }

    @Override
    public int timedWait(final MemorySegment seg, final long off, final int val, final boolean priv, final int clock,
                         final Timespec deadline, final boolean interruptible) {
        return sleep(seg, off, val, val, WAIT, priv, clock, deadline, interruptible, null, 0, "wait");
    }

    @Override
    public int setWait(final MemorySegment seg, final long off, final int val, final int val2, final boolean priv,
                       final int clock, final Timespec deadline, final boolean interruptible) {
        return sleep(seg, off, val, val2, SET, priv, clock, deadline, interruptible, null, 0, "set_wait");
    }

    /** {@return true: {@link #setBitWait} checks, sets and enqueues under the bucket lock} */
    @Override
    public boolean atomicSetBitWait() {
        return true;
    }

    @Override
    public int setBitWait(final MemorySegment seg, final long off, final int bit, final int busy, final boolean join,
                          final boolean priv, final int clock, final Timespec deadline, final boolean interruptible) {
        return sleep(seg, off, bit, busy, join ? JOIN : BIT, priv, clock, deadline, interruptible, null, 0,
            join ? "set_bit_wait_join" : "set_bit_wait");
    }

    @Override
    public int swap(final MemorySegment seg, final long off, final int val, final MemorySegment wakeSeg,
                    final long wakeOff, final boolean priv) {
        return sleep(seg, off, val, val, WAIT, priv, Timespec.CLOCK_MONOTONIC, null, false, wakeSeg, wakeOff, "swap");
    }

    /**
     * {@link #timedWait} for {@link LinuxFutex}'s virtual threads: every word counts as private
     * here (this table is the JVM's own), and the kernel backend records the trace.
     */
    int untracedWait(final MemorySegment seg, final long off, final int val, final int clock, final Timespec deadline,
                     final boolean interruptible) {
        return sleep(seg, off, val, val, WAIT, true, clock, deadline, interruptible, null, 0, null);
    }

    /** {@link #wake} for {@link LinuxFutex}: any word, no trace; {@code n} is nonzero. */
    int untracedWake(final MemorySegment seg, final long off, final int n) {
        return doWake(seg, off, n, true);
    }

    /**
     * {@link #cmpRequeue} (or {@link #requeue} when not {@code compare}) for
     * {@link LinuxFutex}: any word, no trace. Wakes first, then moves.
     */
    int untracedMove(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                     final MemorySegment seg2, final long off2, final boolean compare, final int val) {
        return move(seg, off, nWake, nRequeue, seg2, off2, compare, val, true);
    }

    /**
     * {@link #sleep} modes: compare; compare-and-set {@code val} to {@code val2}; set bit
     * {@code val} while the word is at least {@code val2}; the same, or join the sleepers already
     * queued on the word.
     */
    private static final int WAIT = 0, SET = 1, BIT = 2, JOIN = 3;

    /**
     * The one sleeping path: compare (or compare-and-set, or set a bit) and enqueue under the
     * bucket lock; then, for a swap, wake the partner; then park until woken, timed out or
     * interrupted. In mode {@link #BIT}, {@code val} is the bit and {@code val2} the least busy value.
     */
    private int sleep(final MemorySegment seg, final long off, final int val, final int val2, final int mode,
                      final boolean priv, final int clock, final Timespec deadline, final boolean interruptible,
                      final MemorySegment wakeSeg, final long wakeOff, final String traceOp) {
        if (traceOp != null && !FutexTrace.isEnabled()) {
            return sleep(seg, off, val, val2, mode, priv, clock, deadline, interruptible, wakeSeg, wakeOff, null);
        }
        if (!priv) {
            return traced(traceOp, seg, off, priv, val, wakeSeg, wakeOff, Errno.EINVAL, 0);
        }
        // Bounds, alignment and liveness are checked by this read, before anything is queued.
        final int seen = (int) Block.INT.getVolatile(seg, off);
        if (!Timespec.isClock(clock) || (deadline != null && !deadline.isValid())) {
            return traced(traceOp, seg, off, priv, val, wakeSeg, wakeOff, Errno.EINVAL, 0);
        }
        if (interruptible && Thread.currentThread().isInterrupted()) {
            return traced(traceOp, seg, off, priv, val, wakeSeg, wakeOff, Errno.EINTR, 0);
        }
        final long key = seg.address() + off;
        final Bucket b = bucketOf(key);
        // A joiner is turned away here only when nobody at all sleeps in its bucket.
        if (!admits(mode, seen, val, val2) && (mode != JOIN || b.waiters == 0)) {
            if (wakeSeg != null) {
                doWake(wakeSeg, wakeOff, 1, true);
            }
            return traced(traceOp, seg, off, priv, val, wakeSeg, wakeOff, Errno.EAGAIN, 0);
        }
        final Thread self = Thread.currentThread();
        final Waiter w = new Waiter(self, priorityOrder ? self.getPriority() : 0);
        synchronized (b) {
            // Count first, then read the word: with the waker's "write word, then read count"
            // (both volatile) one side always sees the other, so a wake is never skipped.
            b.waiters = b.waiters + 1;
            final boolean admitted;
            if (mode >= BIT) {
                admitted = mode == JOIN && queued(b, key) || setBit(seg, off, val, val2);
            } else if (mode == SET) {
                admitted = admits(SET, (int) Block.INT.compareAndExchange(seg, off, val, val2), val, val2);
            } else {
                admitted = (int) Block.INT.getVolatile(seg, off) == val;
            }
            if (!admitted) {
                b.waiters = b.waiters - 1;
                if (wakeSeg == null) {
                    return traced(traceOp, seg, off, priv, val, null, 0, Errno.EAGAIN, 0);
                }
                w.woken = true;
            } else {
                w.key = key;
                enqueue(b, w);
                if (traceOp != null) {
                    // Under the bucket lock: before any wake or requeue that can find this waiter.
                    FutexTrace.sleeping(this, traceOp, key, priv, val, wakeSeg == null ? 0 : wakeSeg.address() + wakeOff);
                }
            }
        }
        if (wakeSeg != null) {
            doWake(wakeSeg, wakeOff, 1, true);
            if (w.woken) {
                return traced(traceOp, seg, off, priv, val, wakeSeg, wakeOff, Errno.EAGAIN, 0);
            }
        }
        final int r = park(w, clock, deadline, interruptible);
        return traced(traceOp, seg, off, priv, val, wakeSeg, wakeOff, r, r == 0 ? w.key : 0);
    }

    /** Records a traced wait's return (when {@code traceOp} is not null) and answers {@code r}. */
    private int traced(final String traceOp, final MemorySegment seg, final long off, final boolean priv, final int val,
                       final MemorySegment wakeSeg, final long wakeOff, final int r, final long from) {
        if (traceOp != null) {
            FutexTrace.returned(this, traceOp, seg.address() + off, priv, val,
                wakeSeg == null ? 0 : wakeSeg.address() + wakeOff, r, from);
        }
        return r;
    }

    /** Whether a thread sleeps on {@code key}; under the bucket lock. */
    private static boolean queued(final Bucket b, final long key) {
        for (Waiter w = b.head; w != null; w = w.next) {
            if (w.key == key) {
                return true;
            }
        }
        return false;
    }

    /** Whether a word holding {@code seen} lets the caller sleep in {@code mode}. */
    private static boolean admits(final int mode, final int seen, final int val, final int val2) {
        return switch (mode) {
            case BIT, JOIN -> Integer.compareUnsigned(seen & ~val, val2) >= 0;
            case SET -> seen == val || seen == val2;
            default -> seen == val;
        };
    }

    /** Under the bucket lock: sets {@code bit} while the word stays busy; false once it is not. */
    private static boolean setBit(final MemorySegment seg, final long off, final int bit, final int busy) {
        int v = (int) Block.INT.getVolatile(seg, off);
        while (admits(BIT, v, bit, busy)) {
            if ((v & bit) != 0) {
                return true;
            }
            final int x = (int) Block.INT.compareAndExchange(seg, off, v, v | bit);
            if (x == v) {
                return true;
            }
            v = x;
        }
        return false;
    }

    private int park(final Waiter w, final int clock, final Timespec deadline, final boolean interruptible) {
        final long end = deadline == null ? 0 : deadline.toNanos();
        boolean interrupted = false;
        int result = 0;
        while (!w.woken) {
            if (interruptible && Thread.currentThread().isInterrupted()) {
                result = cancel(w) ? Errno.EINTR : 0;
                break;
            }
            if (deadline != null) {
                final long now = Timespec.nowNanos(clock);
                final long remaining = now >= end ? 0 : end - now; // compared first: no overflow for a deadline far in the past
                if (remaining <= 0) {
                    result = cancel(w) ? Errno.ETIMEDOUT : 0;
                    break;
                }
                LockSupport.parkNanos(this,
                    clock == Timespec.CLOCK_REALTIME ? Math.min(remaining, REALTIME_SLICE_NANOS) : remaining);
            } else {
                LockSupport.park(this);
            }
            if (!interruptible && Thread.interrupted()) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return result;
    }

    /** {@return true if the waiter was still queued and is now removed; false if a wake got it first} */
    private boolean cancel(final Waiter w) {
        for (;;) {
            final Bucket b = w.bucket;
            synchronized (b) {
                if (w.bucket != b) {
                    continue; // requeued to another bucket meanwhile
                }
                if (w.woken) {
                    return false;
                }
                unlink(b, w);
                return true;
            }
        }
    }

    /** Links a waiter into a bucket's queue; the caller has counted it in {@code b.waiters}. */
    private void enqueue(final Bucket b, final Waiter w) {
        w.bucket = b;
        Waiter after = b.tail;
        if (priorityOrder) {
            while (after != null && after.priority < w.priority) {
                after = after.prev;
            }
        }
        w.prev = after;
        w.next = after == null ? b.head : after.next;
        if (w.next != null) {
            w.next.prev = w;
        } else {
            b.tail = w;
        }
        if (after != null) {
            after.next = w;
        } else {
            b.head = w;
        }
    }

    private static void unlink(final Bucket b, final Waiter w) {
        if (w.prev != null) {
            w.prev.next = w.next;
        } else {
            b.head = w.next;
        }
        if (w.next != null) {
            w.next.prev = w.prev;
        } else {
            b.tail = w.prev;
        }
        w.prev = null;
        w.next = null;
        b.waiters = b.waiters - 1;
    }

    @Override
    public int wake(final MemorySegment seg, final long off, final int n, final boolean priv) {
        final FutexTrace.Stamp issued = FutexTrace.issued();
        final int r = doWake(seg, off, n, priv);
        FutexTrace.record(issued, this, "wake", seg.address() + off, priv, n, 0, r);
        return r;
    }

    private int doWake(final MemorySegment seg, final long off, final int n, final boolean priv) {
        if (!priv) {
            return -Errno.EINVAL;
        }
        final long key = seg.address() + off;
        final Bucket b = bucketOf(key);
        if (b.waiters == 0 || n == 0) {
            return 0;
        }
        Waiter woken = null;
        Waiter last = null;
        int count = 0;
        final int limit = n < 0 ? Integer.MAX_VALUE : n;
        synchronized (b) {
            Waiter w = b.head;
            while (w != null && count < limit) {
                final Waiter next = w.next;
                if (w.key == key) {
                    unlink(b, w);
                    w.woken = true; // under the lock, so a cancelling waiter sees it
                    // Reuse the link for the local list of threads to unpark, kept in queue order
                    // so the first in line (highest priority, or longest waiting) runs first.
                    w.next = null;
                    if (last == null) {
                        woken = w;
                    } else {
                        last.next = w;
                    }
                    last = w;
                    count++;
                }
                w = next;
            }
        }
        unparkAll(woken);
        return count;
    }

    /** Releases the woken waiters, first in line first. */
    private void unparkAll(Waiter w) {
        while (w != null) {
            final Waiter next = w.next;
            w.next = null;
            unparker.accept(w.thread);
            w = next;
        }
    }

    @Override
    public int requeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                       final MemorySegment seg2, final long off2, final boolean priv) {
        final FutexTrace.Stamp issued = FutexTrace.issued();
        final int r = move(seg, off, nWake, nRequeue, seg2, off2, false, 0, priv);
        FutexTrace.record(issued, this, "requeue", seg.address() + off, priv, ((long) nWake << 32) | nRequeue,
            seg2.address() + off2, r);
        return r;
    }

    @Override
    public int cmpRequeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                          final MemorySegment seg2, final long off2, final int val, final boolean priv) {
        final FutexTrace.Stamp issued = FutexTrace.issued();
        final int r = move(seg, off, nWake, nRequeue, seg2, off2, true, val, priv);
        FutexTrace.record(issued, this, "cmp_requeue", seg.address() + off, priv, val, seg2.address() + off2, r);
        return r;
    }

    private int move(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                     final MemorySegment seg2, final long off2, final boolean compare, final int val,
                     final boolean priv) {
        if (!priv || nWake < 0 || nRequeue < 0) {
            return -Errno.EINVAL;
        }
        final long key = seg.address() + off;
        final long key2 = seg2.address() + off2;
        final Bucket from = bucketOf(key);
        final Bucket to = bucketOf(key2);
        if (!compare && from.waiters == 0) {
            return 0;
        }
        final Bucket first = from.index <= to.index ? from : to;
        final Bucket second = from.index <= to.index ? to : from;
        Waiter woken = null;
        Waiter last = null;
        int wokenCount = 0;
        int moved = 0;
        synchronized (first) {
            synchronized (second) {
                if (compare && (int) Block.INT.getVolatile(seg, off) != val) {
                    return -Errno.EAGAIN;
                }
                Waiter w = from.head;
                while (w != null && (wokenCount < nWake || moved < nRequeue)) {
                    final Waiter next = w.next;
                    if (w.key == key) {
                        unlink(from, w);
                        if (wokenCount < nWake) {
                            w.woken = true;
                            w.next = null;
                            if (last == null) {
                                woken = w;
                            } else {
                                last.next = w;
                            }
                            last = w;
                            wokenCount++;
                        } else {
                            w.key = key2;
                            to.waiters = to.waiters + 1;
                            enqueue(to, w);
                            moved++;
                        }
                    }
                    w = next;
                }
            }
        }
        unparkAll(woken);
        return wokenCount + moved;
    }

    /**
     * The threads asleep on a word at this moment, in the order wakes would take them (longest
     * waiting first; highest priority first in a priority-ordered table): what the kernel's
     * futex table knows and does not tell. A snapshot taken under the word's bucket lock, stale
     * as soon as it returns; a thread between two sleeps (woken, spinning, polling) is not in
     * it.
     *
     * @param seg the segment holding the word
     * @param off the word's byte offset
     * @return the sleeping threads, a new list (empty when none)
     */
    public List<Thread> sleepers(final MemorySegment seg, final long off) {
        final long key = seg.address() + off;
        final Bucket b = bucketOf(key);
        if (b.waiters == 0) {
            return List.of();
        }
        final List<Thread> threads = new ArrayList<>();
        synchronized (b) {
            for (Waiter w = b.head; w != null; w = w.next) {
                if (w.key == key) {
                    threads.add(w.thread);
                }
            }
        }
        return threads;
    }

    @Override
    public boolean supportsShared() {
        return false;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "ParkingFutex[" + name + ", " + buckets.length + " buckets]";
    }
}
