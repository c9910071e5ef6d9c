package org.pthread4j;

import org.pthread4j.futex.Futex;

import java.util.List;

/**
 * The attributes of a {@link RwLock}, musl's {@code pthread_rwlockattr_t}: whether the lock is
 * process-shared ({@code pthread_rwlockattr_setpshared}), and which futex backend it
 * sleeps on ({@code null} for {@link org.pthread4j.futex.Futexes#defaultPrivate()}). A
 * process-shared lock sleeps on the backend given, which must serve shared words (the rwlock
 * refuses one that cannot), or on the kernel ({@link org.pthread4j.futex.Futexes#shared()}).
 * Immutable; made by {@link #builder()}.
 *
 * <pre>{@code
 * RwLockAttr attr = RwLockAttr.builder().pshared(true).build();   // RwLockAttr.PSHARED
 * }</pre>
 */
public final class RwLockAttr extends PsharedAttr {
    /** Private, default backend: what a null attr means to {@code pthread_rwlock_init}. */
    public static final RwLockAttr DEFAULT = new RwLockAttr(false, null);
    /** Process-shared. */
    public static final RwLockAttr PSHARED = new RwLockAttr(true, null);

    private RwLockAttr(final boolean pshared, final Futex futex) {
        super(pshared, futex);
    }

    /**
     * {@return private attributes on that backend}
     *
     * @param futex backend for a private lock, or {@code null} for the default
     */
    public static RwLockAttr privateOn(final Futex futex) {
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

    /** Builds {@link RwLockAttr}s. */
    public static final class Builder extends PsharedAttrBuilder<RwLockAttr, Builder> {
        private Builder() {
        }

        /** {@return the attributes} */
        @Override
        public RwLockAttr build() {
            return new RwLockAttr(pshared, futex);
        }
    }
}
