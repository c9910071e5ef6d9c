package org.pthread4j;

import org.pthread4j.futex.Futex;

/**
 * The attributes of a {@link RwLock}, musl's {@code pthread_rwlockattr_t}: whether the lock is
 * process-shared ({@code pthread_rwlockattr_setpshared}), and, for a private lock, which futex
 * backend it sleeps on (null for {@link org.pthread4j.futex.Futexes#defaultPrivate()}). A
 * process-shared lock always uses the kernel ({@link org.pthread4j.futex.Futexes#shared()}).
 *
 * @param pshared whether the lock may be used from several processes mapping the same memory
 * @param futex   backend for a private lock, or null for the default
 */
public record RwLockAttr(boolean pshared, Futex futex) {
    /** Private, default backend: what a null attr means to {@code pthread_rwlock_init}. */
    public static final RwLockAttr DEFAULT = new RwLockAttr(false, null);
    /** Process-shared. */
    public static final RwLockAttr PSHARED = new RwLockAttr(true, null);

    /**
     * {@return private attributes on that backend}
     *
     * @param futex backend for a private lock
     */
    public static RwLockAttr privateOn(final Futex futex) {
        return new RwLockAttr(false, futex);
    }

    /** {@return a builder starting from {@link #DEFAULT}} */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link RwLockAttr}s, with musl's {@code setpshared} check. */
    public static final class Builder extends PsharedAttrBuilder<RwLockAttr, Builder> {
        /** Creates a builder with the defaults: process-private, the default backend. */
        public Builder() {
        }

        @Override
        public RwLockAttr build() {
            return new RwLockAttr(pshared, futex);
        }
    }
}
