package org.pthread4j.testing;

import org.pthread4j.futex.Timespec;
import org.pthread4j.futex.Futex;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * A futex backend that forwards to another and counts what passes through: wake and requeue
 * calls, the threads each one woke or moved, and wakes asked for more than one thread. Give the
 * same instance to a primitive and to the mutex it works with (through their attributes) to
 * count every futex operation of a scenario.
 */
public final class CountingFutex extends ForwardingFutex {
    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong wakeCalls = new AtomicLong();
    private final AtomicLong woken = new AtomicLong();
    private final AtomicLong wideWakeCalls = new AtomicLong();
    private final LongAccumulator maxWokenByOneCall = new LongAccumulator(Math::max, 0);
    private final AtomicLong requeueCalls = new AtomicLong();
    private final AtomicLong requeueWoken = new AtomicLong();
    private final AtomicLong moved = new AtomicLong();

    /** @param delegate the backend doing the work */
    public CountingFutex(final Futex delegate) {
        super(delegate);
    }

    /** Sets every counter back to zero. */
    public void reset() {
        waits.set(0);
        wakeCalls.set(0);
        woken.set(0);
        wideWakeCalls.set(0);
        maxWokenByOneCall.reset();
        requeueCalls.set(0);
        requeueWoken.set(0);
        moved.set(0);
    }

    /** @return wait calls */
    public long waits() {
        return waits.get();
    }

    /** @return wake calls */
    public long wakeCalls() {
        return wakeCalls.get();
    }

    /** @return threads woken by wake calls */
    public long woken() {
        return woken.get();
    }

    /** @return wake calls that asked for more than one thread (or all) */
    public long wideWakeCalls() {
        return wideWakeCalls.get();
    }

    /** @return the most threads one wake or requeue call woke */
    public long maxWokenByOneCall() {
        return maxWokenByOneCall.get();
    }

    /** @return requeue and compare-requeue calls */
    public long requeueCalls() {
        return requeueCalls.get();
    }

    /** @return threads requeue calls moved or woke */
    public long requeued() {
        return moved.get() + requeueWoken.get();
    }

    @Override
    public int timedWait(final MemorySegment seg, final long off, final int val, final boolean priv, final int clock,
                         final Timespec deadline, final boolean interruptible) {
        waits.incrementAndGet();
        return delegate.timedWait(seg, off, val, priv, clock, deadline, interruptible);
    }

    @Override
    public int wake(final MemorySegment seg, final long off, final int n, final boolean priv) {
        wakeCalls.incrementAndGet();
        if (n < 0 || n > 1) {
            wideWakeCalls.incrementAndGet();
        }
        final int r = delegate.wake(seg, off, n, priv);
        if (r > 0) {
            woken.addAndGet(r);
            maxWokenByOneCall.accumulate(r);
        }
        return r;
    }

    @Override
    public int requeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                       final MemorySegment seg2, final long off2, final boolean priv) {
        requeueCalls.incrementAndGet();
        final int r = delegate.requeue(seg, off, nWake, nRequeue, seg2, off2, priv);
        count(nWake, r);
        return r;
    }

    @Override
    public int cmpRequeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                          final MemorySegment seg2, final long off2, final int val, final boolean priv) {
        requeueCalls.incrementAndGet();
        final int r = delegate.cmpRequeue(seg, off, nWake, nRequeue, seg2, off2, val, priv);
        count(nWake, r);
        return r;
    }

    private void count(final int nWake, final int r) {
        if (r > 0) {
            final int w = Math.min(nWake, r);
            requeueWoken.addAndGet(w);
            moved.addAndGet(r - w);
            maxWokenByOneCall.accumulate(w);
        }
    }

    @Override
    public String name() {
        return "counting-" + delegate.name();
    }

    @Override
    public String toString() {
        return name() + "[waits " + waits() + ", wakes " + wakeCalls() + " (wide " + wideWakeCalls() + ", woke "
            + woken() + ", max " + maxWokenByOneCall() + "), requeues " + requeueCalls() + " (moved " + requeued() + ")]";
    }
}
