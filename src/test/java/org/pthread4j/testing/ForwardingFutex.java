package org.pthread4j.testing;

import org.pthread4j.futex.Timespec;
import org.pthread4j.futex.Futex;

import java.lang.foreign.MemorySegment;

/**
 * A futex backend that forwards every operation to another; tests extend it to count, delay or
 * reshape one operation. Set-and-wait and swap are not forwarded: they keep the interface's
 * composition from this backend's own wait and wake, so an override of {@link #timedWait} or
 * {@link #wake} sees every sleep and every wake.
 */
public class ForwardingFutex implements Futex {
    /** The backend doing the work. */
    protected final Futex delegate;

    /** @param delegate the backend doing the work */
    public ForwardingFutex(final Futex delegate) {
        this.delegate = delegate;
    }

    @Override
    public int timedWait(final MemorySegment seg, final long off, final int val, final boolean priv, final int clock,
                         final Timespec deadline, final boolean interruptible) {
        return delegate.timedWait(seg, off, val, priv, clock, deadline, interruptible);
    }

    @Override
    public int wake(final MemorySegment seg, final long off, final int n, final boolean priv) {
        return delegate.wake(seg, off, n, priv);
    }

    @Override
    public int requeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                       final MemorySegment seg2, final long off2, final boolean priv) {
        return delegate.requeue(seg, off, nWake, nRequeue, seg2, off2, priv);
    }

    @Override
    public int cmpRequeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                          final MemorySegment seg2, final long off2, final int val, final boolean priv) {
        return delegate.cmpRequeue(seg, off, nWake, nRequeue, seg2, off2, val, priv);
    }

    @Override
    public boolean supportsShared() {
        return delegate.supportsShared();
    }

    @Override
    public String name() {
        return delegate.name();
    }
}
