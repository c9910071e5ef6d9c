package org.pthread4j.futex;

import org.pthread4j.internal.Syscall;

import org.pthread4j.memory.Block;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.LongAdder;

/**
 * The kernel's {@code futex(2)} through FFM. Private words carry {@code FUTEX_PRIVATE_FLAG},
 * shared words do not, so two processes that map one file meet on a shared word.
 *
 * <p><b>The fallback</b> (musl's rule, seed 002): when an operation with the private flag
 * fails with ENOSYS, which is what a kernel older than 2.6.22 answers, it is reissued without
 * the flag. Unlike musl, the answer is remembered for this backend instance, so later calls go
 * straight to the shared form ({@link #privateFlagRejected()}). {@link Futexes#linuxNoPrivate()}
 * is a backend whose private calls are refused exactly like such a kernel's, so every test
 * can run on the fallback path.
 *
 * <p><b>Deadlines</b> use {@code FUTEX_WAIT_BITSET} with an absolute time, adding
 * {@code FUTEX_CLOCK_REALTIME} for {@link Timespec#CLOCK_REALTIME}: a realtime deadline
 * follows clock steps, which musl's relative {@code FUTEX_WAIT} does not.
 *
 * <p><b>Interrupts</b>: {@link Thread#interrupt()} does not end a {@code FUTEX_WAIT}, so an
 * interruptible wait sleeps in slices of {@link #INTERRUPT_SLICE_NANOS} and checks the
 * interrupt status between them. A wake that arrives between two slices is not lost: a waker
 * changes the word first, and the next slice then returns EAGAIN at once.
 *
 * <p>A platform thread inside this backend's wait is in a native call: its
 * {@link Thread#getState()} is {@code RUNNABLE}.
 *
 * <p><b>Virtual threads</b> never enter the native wait, which would hold their carrier for
 * its length: with more sleepers than carriers, a lock holder that yielded would never get a
 * carrier back. A virtual thread waits instead in a parking table of this JVM, keyed by
 * address as the kernel keys a private word ({@link ParkingFutex}'s compare-and-enqueue under a
 * bucket lock), one table for both kernel backends: it unmounts, shows as {@code WAITING}, and
 * answers an interrupt at once. Every {@link #wake} and {@link #requeue} serves that table
 * first and the kernel with what is left, so a word's sleepers are found in either. The
 * compare-and-enqueue against the waker's "change the word, then look at the table" is the
 * parking backend's (both sides volatile), so no wake is lost. A private word is woken only
 * through this process's backends, so that wait is exact. A shared word may be woken by another
 * process, or through another mapping of its file, which only the kernel sees: there the virtual
 * thread sleeps in slices ({@link #VIRTUAL_SLICE_NANOS}, doubling up to
 * {@link #INTERRUPT_SLICE_NANOS}) and returns when a slice ends on a changed word, as a woken
 * thread would (a waker changes the word before it wakes). Cost to platform threads: one
 * {@code isVirtual()} test per wait and one read of a bucket's waiter count per wake or
 * requeue.
 *
 * <p>See {@code docs/01-futex.md}: the words, the states, the races and the tests that prove them.
 */
public final class LinuxFutex implements Futex {
    /** {@code FUTEX_WAIT} */
    public static final int FUTEX_WAIT = 0;
    /** {@code FUTEX_WAKE} */
    public static final int FUTEX_WAKE = 1;
    /** {@code FUTEX_REQUEUE} */
    public static final int FUTEX_REQUEUE = 3;
    /** {@code FUTEX_CMP_REQUEUE} */
    public static final int FUTEX_CMP_REQUEUE = 4;
    /** {@code FUTEX_WAIT_BITSET}: like WAIT, with an absolute timeout. */
    public static final int FUTEX_WAIT_BITSET = 9;
    /** {@code FUTEX_PRIVATE_FLAG}: the word is not shared with another process. */
    public static final int FUTEX_PRIVATE_FLAG = 128;
    /** {@code FUTEX_CLOCK_REALTIME}: the bitset wait's deadline is on CLOCK_REALTIME. */
    public static final int FUTEX_CLOCK_REALTIME = 256;
    /** {@code FUTEX_BITSET_MATCH_ANY} as a 32-bit mask. */
    public static final long MATCH_ANY = 0xFFFF_FFFFL;
    /** Longest single sleep of an interruptible wait: 20 ms. */
    public static final long INTERRUPT_SLICE_NANOS = 20_000_000L;
    /**
     * First sleep of a virtual thread waiting on a shared word, 50 µs; each next one is twice as
     * long, up to {@link #INTERRUPT_SLICE_NANOS}, the longest a wake from another process takes to
     * reach it.
     */
    public static final long VIRTUAL_SLICE_NANOS = 50_000L;

    /**
     * Where this process's virtual threads wait on the kernel backends: one parking table for
     * both, keyed by address (see the class overview).
     */
    private static final ParkingFutex VIRTUAL =
        new ParkingFutex(ParkingFutex.DEFAULT_BUCKETS, false, "linux-virtual");

    private static final ThreadLocal<MemorySegment> TIMESPEC =
        ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    private final boolean rejectPrivate;
    private final String name;
    private volatile boolean privateUnsupported;
    private final LongAdder fallbacks = new LongAdder();

    LinuxFutex(final boolean rejectPrivate, final String name) {
        requireAvailable();
        this.rejectPrivate = rejectPrivate;
        this.name = name;
    }

    /**
     * Refuses a platform without the kernel backend.
     *
     * @throws UnsupportedOperationException when this JVM does not run on Linux x86_64 or aarch64
     */
    static void requireAvailable() {
        if (!Syscall.AVAILABLE) {
            throw new UnsupportedOperationException("the Linux futex backend needs Linux on x86_64 or aarch64, and this JVM "
                + "runs on " + System.getProperty("os.name") + " " + System.getProperty("os.arch") + ": process-shared and "
                + "robust primitives need it; private ones run on the parking backend (the default)");
        }
    }

    /** {@return whether a private call was answered with ENOSYS, so this backend now omits the flag} */
    public boolean privateFlagRejected() {
        return privateUnsupported;
    }

    /** {@return how many calls were reissued without the private flag} */
    public long fallbackCount() {
        return fallbacks.sum();
    }

    /** The raw call; the flag-refusing test backend answers like a kernel without private futexes. */
    private long futex(final long addr, final int op, final long val, final long arg4, final long addr2, final long val3) {
        if (rejectPrivate && (op & FUTEX_PRIVATE_FLAG) != 0) {
            return -Errno.ENOSYS;
        }
        return Syscall.call(Syscall.SYS_FUTEX, addr, op, val, arg4, addr2, val3);
    }

    /** musl's {@code __futex4_cp} fallback: private first, shared when the kernel says ENOSYS. */
    private long op(final boolean priv, final long addr, final int op, final long val, final long arg4,
                    final long addr2, final long val3) {
        if (priv && !privateUnsupported) {
            final long r = futex(addr, op | FUTEX_PRIVATE_FLAG, val, arg4, addr2, val3);
            if (r != -Errno.ENOSYS) {
                return r;
            }
            privateUnsupported = true;
        }
        if (priv) {
            fallbacks.increment();
        }
        return futex(addr, op, val, arg4, addr2, val3);
    }

    @Override
    public int timedWait(final MemorySegment seg, final long off, final int val, final boolean priv, final int clock,
                         final Timespec deadline, final boolean interruptible) {
        final boolean traced = FutexTrace.isEnabled();
        final int r = Thread.currentThread().isVirtual()
            ? virtualWait(seg, off, val, priv, clock, deadline, interruptible)
            : doWait(seg, off, val, priv, clock, deadline, interruptible, traced);
        if (traced) {
            FutexTrace.record(this, "wait", seg.address() + off, priv, val, 0, r);
        }
        return r;
    }

    /**
     * A virtual thread's wait, in the JVM's table: exact for a private word, in slices for a
     * shared one (see the class overview).
     */
    private static int virtualWait(final MemorySegment seg, final long off, final int val, final boolean priv,
                                   final int clock, final Timespec deadline, final boolean interruptible) {
        if (priv) {
            return VIRTUAL.untracedWait(seg, off, val, clock, deadline, interruptible);
        }
        if (!Timespec.isClock(clock) || (deadline != null && !deadline.isValid())) {
            return Errno.EINVAL;
        }
        final long end = deadline == null ? Long.MAX_VALUE : deadline.toNanos();
        long slice = VIRTUAL_SLICE_NANOS;
        boolean slept = false;
        for (;;) {
            final long now = Timespec.nowNanos(clock);
            if (now >= end) {
                return Errno.ETIMEDOUT;
            }
            final Timespec at = Timespec.ofNanos(Timespec.nowNanos(Timespec.CLOCK_MONOTONIC) + Math.min(slice, end - now));
            final int r = VIRTUAL.untracedWait(seg, off, val, Timespec.CLOCK_MONOTONIC, at, interruptible);
            if (r != Errno.ETIMEDOUT) {
                // a word that changed after a slice is what a woken thread finds
                return r == Errno.EAGAIN && slept ? 0 : r;
            }
            slept = true;
            slice = Math.min(slice << 1, INTERRUPT_SLICE_NANOS);
        }
    }

    private int doWait(final MemorySegment seg, final long off, final int val, final boolean priv, final int clock,
                       final Timespec deadline, final boolean interruptible, final boolean traced) {
        // The read checks bounds, alignment and that the memory is open, and saves a syscall
        // when the word already changed.
        if ((int) Block.INT.getVolatile(seg, off) != val) {
            return Errno.EAGAIN;
        }
        if (!Timespec.isClock(clock) || (deadline != null && !deadline.isValid())) {
            return Errno.EINVAL;
        }
        final long addr = seg.address() + off;
        if (traced) {
            FutexTrace.sleeping(this, "wait", addr, priv, val, 0); // the kernel may still turn it away
        }
        if (deadline == null && !interruptible) {
            final long r = op(priv, addr, FUTEX_WAIT, val, 0, 0, 0);
            return r == -Errno.EAGAIN ? Errno.EAGAIN : (r == -Errno.EINVAL ? Errno.EINVAL : 0);
        }
        final long end = deadline == null ? Long.MAX_VALUE : deadline.toNanos();
        final MemorySegment ts = TIMESPEC.get();
        for (;;) {
            if (interruptible && Thread.currentThread().isInterrupted()) {
                return Errno.EINTR;
            }
            final long now = Timespec.nowNanos(clock);
            if (now >= end) {
                return Errno.ETIMEDOUT;
            }
            final boolean slice = interruptible && end - now > INTERRUPT_SLICE_NANOS;
            final int sliceClock = slice ? Timespec.CLOCK_MONOTONIC : clock;
            final long at = slice ? System.nanoTime() + INTERRUPT_SLICE_NANOS : end;
            ts.set(ValueLayout.JAVA_LONG, 0, Math.floorDiv(at, 1_000_000_000L));
            ts.set(ValueLayout.JAVA_LONG, 8, Math.floorMod(at, 1_000_000_000L));
            final int op = FUTEX_WAIT_BITSET | (sliceClock == Timespec.CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0);
            final long r = op(priv, addr, op, val, ts.address(), 0, MATCH_ANY);
            if (r == 0) {
                return 0;
            }
            if (r == -Errno.EAGAIN) {
                return Errno.EAGAIN;
            }
            if (r == -Errno.ETIMEDOUT) {
                if (!slice) {
                    return Errno.ETIMEDOUT;
                }
                continue;
            }
            if (r == -Errno.EINTR) {
                // A signal, or a spurious wake: the caller re-checks its word.
                return interruptible && Thread.currentThread().isInterrupted() ? Errno.EINTR : 0;
            }
            return (int) -r;
        }
    }

    @Override
    public int wake(final MemorySegment seg, final long off, final int n, final boolean priv) {
        final FutexTrace.Stamp issued = FutexTrace.issued();
        final int r = n == 0 ? 0 : doWake(seg, off, n, priv); // the kernel's FUTEX_WAKE would wake one for 0
        FutexTrace.record(issued, this, "wake", seg.address() + off, priv, n, 0, r);
        return r;
    }

    /** Wakes virtual sleepers first, then (unless they were enough) the kernel's. */
    private int doWake(final MemorySegment seg, final long off, final int n, final boolean priv) {
        final int v = VIRTUAL.untracedWake(seg, off, n);
        if (n > 0 && v >= n) {
            return v;
        }
        final int k = (int) op(priv, seg.address() + off, FUTEX_WAKE, n < 0 ? Integer.MAX_VALUE : n - v, 0, 0, 0);
        return k < 0 ? (v > 0 ? v : k) : v + k;
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

    /**
     * Requeues the virtual sleepers first (waking before moving, as the kernel does), then asks
     * the kernel for the rest. With {@code compare}, each part checks the word itself: the
     * virtual part under its bucket lock, the kernel's in the call.
     */
    private int move(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                     final MemorySegment seg2, final long off2, final boolean compare, final int val,
                     final boolean priv) {
        final int v = VIRTUAL.untracedMove(seg, off, nWake, nRequeue, seg2, off2, compare, val);
        if (v < 0) {
            return v;
        }
        final int woken = Math.min(v, nWake);
        final int moved = v - woken;
        if (v > 0 && woken == nWake && moved == nRequeue) {
            return v;
        }
        final long k = compare
            ? op(priv, seg.address() + off, FUTEX_CMP_REQUEUE, nWake - woken, nRequeue - moved, seg2.address() + off2,
                val & 0xFFFF_FFFFL)
            : op(priv, seg.address() + off, FUTEX_REQUEUE, nWake - woken, nRequeue - moved, seg2.address() + off2, 0);
        return k < 0 ? (v > 0 ? v : (int) k) : v + (int) k;
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "LinuxFutex[" + name + (privateUnsupported ? ", private flag rejected" : "") + "]";
    }
}
