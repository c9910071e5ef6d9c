package org.pthread4j;

import org.pthread4j.futex.Futex;

import java.util.List;

/**
 * The attributes of a {@link Barrier}, musl's {@code pthread_barrierattr_t}: whether the barrier is
 * process-shared ({@code pthread_barrierattr_setpshared}), and which futex backend it
 * sleeps on ({@code null} for {@link org.pthread4j.futex.Futexes#defaultPrivate()}). A
 * process-shared barrier sleeps on the backend given, which must serve shared words (the barrier
 * refuses one that cannot), or on the kernel ({@link org.pthread4j.futex.Futexes#shared()}).
 * Immutable; made by {@link #builder()}.
 *
 * <pre>{@code
 * BarrierAttr attr = BarrierAttr.builder().pshared(true).build();   // BarrierAttr.PSHARED
 * }</pre>
 */
public final class BarrierAttr extends PsharedAttr {
    /** Private, default backend: what a null attr means to {@code pthread_barrier_init}. */
    public static final BarrierAttr DEFAULT = new BarrierAttr(false, null);
    /** Process-shared. */
    public static final BarrierAttr PSHARED = new BarrierAttr(true, null);

    private BarrierAttr(final boolean pshared, final Futex futex) {
        super(pshared, futex);
    }

    /**
     * {@return private attributes on that backend}
     *
     * @param futex backend for a private barrier, or {@code null} for the default
     */
    public static BarrierAttr privateOn(final Futex futex) {
        return builder().futex(futex).build();
    }

    /** {@return a builder starting from {@link #DEFAULT}} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder starting from these attributes} */
    public Builder toBuilder() {
        return builder().pshared(pshared()).futex(futex());
    }

    @Override
    List<String> details() {
        return List.of();
    }

    /** Builds {@link BarrierAttr}s. */
    public static final class Builder extends PsharedAttrBuilder<BarrierAttr, Builder> {
        private Builder() {
        }

        /** {@return the attributes} */
        @Override
        public BarrierAttr build() {
            return new BarrierAttr(pshared, futex);
        }
    }
}
