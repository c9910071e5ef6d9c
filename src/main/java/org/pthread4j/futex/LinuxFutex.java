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
 * <p>A thread inside this backend's wait is in a native call: its {@link Thread#getState()} is
 * {@code RUNNABLE}, and a virtual thread pins its carrier for the length of the wait.
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
        final int r = doWait(seg, off, val, priv, clock, deadline, interruptible);
        FutexTrace.record(this, "wait", seg.address() + off, priv, val, 0, r);
        return r;
    }

    private int doWait(final MemorySegment seg, final long off, final int val, final boolean priv, final int clock,
                       final Timespec deadline, final boolean interruptible) {
        // The read checks bounds, alignment and that the memory is open, and saves a syscall
        // when the word already changed.
        if ((int) Block.INT.getVolatile(seg, off) != val) {
            return Errno.EAGAIN;
        }
        if (!Timespec.isClock(clock) || (deadline != null && !deadline.isValid())) {
            return Errno.EINVAL;
        }
        final long addr = seg.address() + off;
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
        final int r = n == 0 ? 0 // the kernel's FUTEX_WAKE would wake one for a count of 0
            : (int) op(priv, seg.address() + off, FUTEX_WAKE, n < 0 ? Integer.MAX_VALUE : n, 0, 0, 0);
        FutexTrace.record(this, "wake", seg.address() + off, priv, n, 0, r);
        return r;
    }

    @Override
    public int requeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                       final MemorySegment seg2, final long off2, final boolean priv) {
        final int r = (int) op(priv, seg.address() + off, FUTEX_REQUEUE, nWake, nRequeue, seg2.address() + off2, 0);
        FutexTrace.record(this, "requeue", seg.address() + off, priv, ((long) nWake << 32) | nRequeue,
            seg2.address() + off2, r);
        return r;
    }

    @Override
    public int cmpRequeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                          final MemorySegment seg2, final long off2, final int val, final boolean priv) {
        final int r = (int) op(priv, seg.address() + off, FUTEX_CMP_REQUEUE, nWake, nRequeue, seg2.address() + off2,
            val & 0xFFFF_FFFFL);
        FutexTrace.record(this, "cmp_requeue", seg.address() + off, priv, val, seg2.address() + off2, r);
        return r;
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
