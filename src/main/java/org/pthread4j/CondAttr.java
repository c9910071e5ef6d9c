package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.pthread4j.futex.Futex;

/**
 * Condition variable attributes, as POSIX's {@code pthread_condattr_t}: process-shared or
 * private, and the clock of timed-wait deadlines; plus, for a private condvar, the futex backend.
 * Immutable; made by {@link #builder()}.
 *
 * <p>{@link #bits()} is musl's {@code __attr} word: bit 31 pshared, bits 0-30 the clock.
 *
 * @param pshared whether the condvar may be used from several processes
 * @param clock   {@link Timespec#CLOCK_REALTIME} (the default) or {@link Timespec#CLOCK_MONOTONIC}
 * @param futex   the backend of a private condvar ({@code null}: {@link org.pthread4j.futex.Futexes#defaultPrivate()});
 *                of a shared one, {@code null} means {@link org.pthread4j.futex.Futexes#shared()}, anything else
 *                must {@linkplain Futex#supportsShared() serve shared words}
 */
public record CondAttr(boolean pshared, int clock, Futex futex) {
    /** Private, CLOCK_REALTIME, default backend: what {@code PTHREAD_COND_INITIALIZER} gives. */
    public static final CondAttr DEFAULT = new CondAttr(false, Timespec.CLOCK_REALTIME, null);

    /**
     * Checks the attributes as musl's {@code pthread_condattr_setclock} does.
     *
     * @throws IllegalArgumentException for a clock other than REALTIME or MONOTONIC
     */
    public CondAttr {
        if (setclockResult(clock) != 0) {
            throw new IllegalArgumentException("EINVAL: condvar clock must be CLOCK_REALTIME (0) or CLOCK_MONOTONIC (1): "
                + clock);
        }
    }

    /**
     * What {@code pthread_condattr_setclock} answers for a clock id here: 0 for
     * {@link Timespec#CLOCK_REALTIME} and {@link Timespec#CLOCK_MONOTONIC}, EINVAL for any other
     * (musl also accepts other clocks it can read; this library reads only these two).
     *
     * @param clock a clock id
     * @return 0 or {@link Errno#EINVAL}
     */
    public static int setclockResult(final int clock) {
        return Timespec.isClock(clock) ? 0 : Errno.EINVAL;
    }

    /** {@return musl's {@code __attr}: bit 31 pshared, bits 0-30 clock} */
    public int bits() {
        return (pshared ? CondLayout.ATTR_PSHARED : 0) | (clock & CondLayout.ATTR_CLOCK_MASK);
    }

    /** {@return a builder starting from {@link #DEFAULT}} */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link CondAttr}s. */
    public static final class Builder {
        private boolean pshared;
        private int clock = Timespec.CLOCK_REALTIME;
        private Futex futex;

        private Builder() {
        }

        /**
         * {@return this builder}
         *
         * @param value whether the condvar is process-shared ({@code pthread_condattr_setpshared})
         */
        public Builder pshared(final boolean value) {
            this.pshared = value;
            return this;
        }

        /**
         * {@code pthread_condattr_setclock}.
         *
         * @param value {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}
         * @return this builder
         * @throws IllegalArgumentException for any other clock (musl's EINVAL; see {@link #setclockResult})
         */
        public Builder clock(final int value) {
            if (setclockResult(value) != 0) {
                throw new IllegalArgumentException("EINVAL: condvar clock must be CLOCK_REALTIME (0) or "
                    + "CLOCK_MONOTONIC (1): " + value);
            }
            this.clock = value;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param value the futex backend, or {@code null} for the default
         */
        public Builder futex(final Futex value) {
            this.futex = value;
            return this;
        }

        /** {@return the attributes} */
        public CondAttr build() {
            return new CondAttr(pshared, clock, futex);
        }
    }
}
