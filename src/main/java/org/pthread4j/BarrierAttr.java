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
     * @param futex backend for a private barrier
     * @return private attributes on that backend
     */
    public static BarrierAttr privateOn(final Futex futex) {
        return new BarrierAttr(false, futex);
    }

    /** @return a builder starting from {@link #DEFAULT} */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link BarrierAttr}s, with musl's {@code setpshared} check. */
    public static final class Builder {
        private boolean pshared;
        private Futex futex;

        /**
         * @param pshared whether the barrier is process-shared
         * @return this
         */
        public Builder pshared(final boolean pshared) {
            this.pshared = pshared;
            return this;
        }

        /**
         * {@code pthread_barrierattr_setpshared}.
         *
         * @param pshared 0 (private) or 1 (shared)
         * @return 0, or EINVAL for another value (the attribute is then unchanged)
         */
        public int setPshared(final int pshared) {
            if (pshared != 0 && pshared != 1) {
                return Errno.EINVAL;
            }
            this.pshared = pshared == 1;
            return 0;
        }

        /**
         * @param futex backend for a private barrier (ignored for a shared one)
         * @return this
         */
        public Builder futex(final Futex futex) {
            this.futex = futex;
            return this;
        }

        /** @return the attributes */
        public BarrierAttr build() {
            return new BarrierAttr(pshared, futex);
        }
    }
}
