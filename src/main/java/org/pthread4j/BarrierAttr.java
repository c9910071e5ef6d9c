package org.pthread4j;

import org.pthread4j.futex.Futex;

/**
 * The attributes of a {@link Barrier}, musl's {@code pthread_barrierattr_t}: whether it is
 * process-shared, and, for a private barrier, which futex backend it sleeps on (null for
 * {@link org.pthread4j.futex.Futexes#defaultPrivate()}). A process-shared barrier always uses
 * the kernel.
 *
 * @param pshared whether the barrier may be used from several processes mapping the same memory
 * @param futex   backend for a private barrier, or null for the default
 */
public record BarrierAttr(boolean pshared, Futex futex) {
    /** Private, default backend. */
    public static final BarrierAttr DEFAULT = new BarrierAttr(false, null);
    /** Process-shared. */
    public static final BarrierAttr PSHARED = new BarrierAttr(true, null);

    /**
     * {@return private attributes on that backend}
     *
     * @param futex backend for a private barrier
     */
    public static BarrierAttr privateOn(final Futex futex) {
        return new BarrierAttr(false, futex);
    }

    /** {@return a builder starting from {@link #DEFAULT}} */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link BarrierAttr}s, with musl's {@code setpshared} check. */
    public static final class Builder extends PsharedAttrBuilder<BarrierAttr, Builder> {
        /** Creates a builder with the defaults: process-private, the default backend. */
        public Builder() {
        }

        @Override
        public BarrierAttr build() {
            return new BarrierAttr(pshared, futex);
        }
    }
}
