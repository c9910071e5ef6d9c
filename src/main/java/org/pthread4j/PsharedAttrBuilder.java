package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.pthread4j.futex.Futex;

/**
 * What the builders of {@link RwLockAttr} and {@link BarrierAttr} share: musl's
 * {@code pthread_rwlockattr_t} and {@code pthread_barrierattr_t} hold nothing but the pshared
 * flag, set through {@code pthread_*attr_setpshared} with the same check; here a private lock or
 * barrier also names its futex backend.
 *
 * @param <A> the attributes built
 * @param <B> the builder itself
 */
abstract class PsharedAttrBuilder<A, B extends PsharedAttrBuilder<A, B>> {
    /** Whether the primitive may be used from several processes mapping the same memory. */
    boolean pshared;
    /** Backend for a private primitive, or null for the default. */
    Futex futex;

    PsharedAttrBuilder() {
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * {@return this}
     *
     * @param pshared whether the primitive is process-shared
     */
    public B pshared(final boolean pshared) {
        this.pshared = pshared;
        return self();
    }

    /**
     * {@code pthread_rwlockattr_setpshared} / {@code pthread_barrierattr_setpshared}:
     * {@code PTHREAD_PROCESS_PRIVATE} (0) or {@code PTHREAD_PROCESS_SHARED} (1).
     *
     * @param pshared 0 or 1
     * @return 0, or EINVAL for any other value (the attribute is then unchanged)
     */
    public int setPshared(final int pshared) {
        if (pshared != 0 && pshared != 1) {
            return Errno.EINVAL;
        }
        this.pshared = pshared == 1;
        return 0;
    }

    /**
     * {@return this}
     *
     * @param futex backend for a private primitive (ignored for a process-shared one)
     */
    public B futex(final Futex futex) {
        this.futex = futex;
        return self();
    }

    /** {@return the attributes} */
    public abstract A build();
}
