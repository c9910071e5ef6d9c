package org.pthread4j;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Timespec;

import java.util.List;

/**
 * Condition variable attributes, as POSIX's {@code pthread_condattr_t}: process-shared or
 * private, and the clock of timed-wait deadlines; plus (an addition of this library) the futex
 * backend. Immutable; made by {@link #builder()}.
 *
 * <pre>{@code
 * CondAttr attr = CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).build();
 * }</pre>
 *
 * <p>The backend of a private condvar is the one given or
 * {@link org.pthread4j.futex.Futexes#defaultPrivate()}; a process-shared condvar uses
 * {@link org.pthread4j.futex.Futexes#shared()} unless given a backend, which must then
 * {@linkplain Futex#supportsShared() serve shared words} ({@link Cond} checks). {@link #bits()}
 * is musl's {@code __attr} word: bit 31 pshared, bits 0-30 the clock.
 */
public final class CondAttr extends PsharedAttr {
    /** Private, CLOCK_REALTIME, default backend: what {@code PTHREAD_COND_INITIALIZER} gives. */
    public static final CondAttr DEFAULT = new CondAttr(false, Timespec.CLOCK_REALTIME, null);
    /** Process-shared, CLOCK_REALTIME. */
    public static final CondAttr PSHARED = new CondAttr(true, Timespec.CLOCK_REALTIME, null);

    private final int clock;

    private CondAttr(final boolean pshared, final int clock, final Futex futex) {
        super(pshared, futex);
        this.clock = clock;
    }

    /**
     * {@return private CLOCK_REALTIME attributes on that backend}
     *
     * @param futex backend for a private condvar, or {@code null} for the default
     */
    public static CondAttr privateOn(final Futex futex) {
        return builder().futex(futex).build();
    }

    /** {@return a builder starting from {@link #DEFAULT}} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder starting from these attributes} */
    public Builder toBuilder() {
        return builder().pshared(pshared()).clock(clock).futex(futex());
    }

    /** {@return the clock of timed-wait deadlines: {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}} */
    public int clock() {
        return clock;
    }

    /** {@return musl's {@code __attr}: bit 31 pshared, bits 0-30 clock} */
    public int bits() {
        return (pshared() ? CondLayout.ATTR_PSHARED : 0) | (clock & CondLayout.ATTR_CLOCK_MASK);
    }

    @Override
    List<String> details() {
        return List.of(clock == Timespec.CLOCK_MONOTONIC ? "CLOCK_MONOTONIC" : "CLOCK_REALTIME");
    }

    /** Builds {@link CondAttr}s; the setters follow musl's {@code pthread_condattr_set*}. */
    public static final class Builder extends PsharedAttrBuilder<CondAttr, Builder> {
        private int clock = Timespec.CLOCK_REALTIME;

        private Builder() {
        }

        /**
         * {@code pthread_condattr_setclock}. musl also accepts the other clocks it can read;
         * this library reads only these two.
         *
         * @param clock {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}
         * @return this builder
         * @throws IllegalArgumentException for any other clock (musl: EINVAL for the CPU-time clocks)
         */
        public Builder clock(final int clock) {
            if (!Timespec.isClock(clock)) {
                throw new IllegalArgumentException("EINVAL: condvar clock must be CLOCK_REALTIME (0) or "
                    + "CLOCK_MONOTONIC (1): " + clock);
            }
            this.clock = clock;
            return this;
        }

        /** {@return the attributes} */
        @Override
        public CondAttr build() {
            return new CondAttr(pshared, clock, futex);
        }
    }
}
