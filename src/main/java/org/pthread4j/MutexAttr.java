package org.pthread4j;

import org.pthread4j.futex.Futex;

import java.util.List;

/**
 * Mutex attributes, as {@code pthread_mutexattr_t}: the kind, robustness, process sharing,
 * and (an addition of this library) the futex backend. Immutable; made by {@link #builder()}.
 * Follows musl's {@code pthread_mutexattr_set*.c}: the attributes are the {@code _m_type} bits
 * that {@link Mutex} stores at init ({@link #bits()}).
 *
 * <pre>{@code
 * MutexAttr attr = MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).pshared(true).build();
 * }</pre>
 *
 * <p>Backend rules (checked by {@link Builder#build()}): a process-shared or robust mutex
 * sleeps in the kernel with shared futex operations, so its backend must serve shared words
 * (default {@link org.pthread4j.futex.Futexes#shared()}); a private, non-robust mutex uses the
 * given backend or {@link org.pthread4j.futex.Futexes#defaultPrivate()}.
 */
public final class MutexAttr extends PsharedAttr {
    /** {@code PTHREAD_MUTEX_NORMAL}: relock deadlocks, no owner checks. */
    public static final int NORMAL = MutexLayout.NORMAL;
    /** {@code PTHREAD_MUTEX_RECURSIVE}: the owner may relock; as many unlocks release. */
    public static final int RECURSIVE = MutexLayout.RECURSIVE;
    /** {@code PTHREAD_MUTEX_ERRORCHECK}: relock is EDEADLK, unlock by a non-owner EPERM. */
    public static final int ERRORCHECK = MutexLayout.ERRORCHECK;
    /**
     * {@code PTHREAD_MUTEX_DEFAULT}, which is {@link #NORMAL} in musl. (Named {@code DEFAULT_TYPE}
     * because {@link #DEFAULT} is the default attribute set.)
     */
    public static final int DEFAULT_TYPE = NORMAL;
    /** The default attributes: NORMAL, stalled (not robust), process-private, default backend. */
    public static final MutexAttr DEFAULT = new MutexAttr(NORMAL, false, false, false, null);
    /** NORMAL, not robust, process-shared. */
    public static final MutexAttr PSHARED = new MutexAttr(NORMAL, false, false, true, null);

    private final int type;
    private final boolean robust;
    private final boolean fair;

    private MutexAttr(final int type, final boolean robust, final boolean fair, final boolean pshared,
                      final Futex futex) {
        super(pshared, futex);
        this.type = type;
        this.robust = robust;
        this.fair = fair;
    }

    /**
     * {@return private NORMAL attributes on that backend}
     *
     * @param futex backend for a private mutex, or {@code null} for the default
     */
    public static MutexAttr privateOn(final Futex futex) {
        return builder().futex(futex).build();
    }

    /** {@return a builder starting from {@link #DEFAULT}} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The attributes stored in an initialized mutex's {@code _m_type} word.
     *
     * @param bits  the word
     * @param futex the backend, or {@code null} for the default
     * @return the attributes
     * @throws IllegalArgumentException when the word is not a supported mutex type
     */
    public static MutexAttr ofBits(final int bits, final Futex futex) {
        MutexLayout.checkType(bits);
        return new Builder().type(bits & MutexLayout.KIND_MASK).robust((bits & MutexLayout.ROBUST) != 0)
            .fair((bits & MutexLayout.FAIR) != 0).pshared((bits & MutexLayout.PSHARED) != 0).futex(futex).build();
    }

    /** {@return a builder starting from these attributes} */
    public Builder toBuilder() {
        return builder().type(type).robust(robust).fair(fair).pshared(pshared()).futex(futex());
    }

    /** {@return the kind: {@link #NORMAL}, {@link #RECURSIVE} or {@link #ERRORCHECK}} */
    public int type() {
        return type;
    }

    /** {@return whether the mutex is robust ({@code PTHREAD_MUTEX_ROBUST})} */
    public boolean robust() {
        return robust;
    }

    /** {@return whether the mutex is fair: FIFO, a ticket lock ({@link MutexLayout#FAIR}, not musl's)} */
    public boolean fair() {
        return fair;
    }

    /**
     * {@return the {@code _m_type} word: kind | ROBUST (4) | FAIR (64) | PSHARED (128), musl's
     *     {@code __attr} and this library's fair bit}
     */
    public int bits() {
        return type | (robust ? MutexLayout.ROBUST : 0) | (fair ? MutexLayout.FAIR : 0)
            | (pshared() ? MutexLayout.PSHARED : 0);
    }

    @Override
    List<String> details() {
        final String kind = switch (type) {
            case RECURSIVE -> "RECURSIVE";
            case ERRORCHECK -> "ERRORCHECK";
            default -> "NORMAL";
        };
        final List<String> d = new java.util.ArrayList<>(List.of(kind));
        if (robust) {
            d.add("robust");
        }
        if (fair) {
            d.add("fair");
        }
        return d;
    }

    /** Builds {@link MutexAttr}; the setters follow musl's {@code pthread_mutexattr_set*}. */
    public static final class Builder extends PsharedAttrBuilder<MutexAttr, Builder> {
        private int type = NORMAL;
        private boolean robust;
        private boolean fair;

        private Builder() {
        }

        /**
         * {@code pthread_mutexattr_settype}.
         *
         * @param kind {@link #NORMAL}, {@link #RECURSIVE}, {@link #ERRORCHECK} or {@link #DEFAULT_TYPE}
         * @return this builder
         * @throws IllegalArgumentException for another value (musl: EINVAL)
         */
        public Builder type(final int kind) {
            if (kind < 0 || kind > ERRORCHECK) {
                throw new IllegalArgumentException("mutex type must be NORMAL (0), RECURSIVE (1) or ERRORCHECK (2): "
                    + kind);
            }
            this.type = kind;
            return this;
        }

        /**
         * {@code pthread_mutexattr_setrobust}. A robust mutex needs the kernel robust list
         * (checked by {@link #build()}, as musl checks {@code get_robust_list} once).
         *
         * @param robust whether the mutex is robust
         * @return this builder
         */
        public Builder robust(final boolean robust) {
            this.robust = robust;
            return this;
        }

        /**
         * Fairness, an extension of this library (musl has no fair mutex): a fair mutex hands the
         * lock to the threads in the order they asked for it (FIFO), private or process-shared,
         * on every backend ({@link SleepProtocol#FAIR}). It cannot be robust, and no C program
         * may share it.
         *
         * @param fair whether the mutex is fair
         * @return this builder
         */
        public Builder fair(final boolean fair) {
            this.fair = fair;
            return this;
        }

        /**
         * {@return the attributes}
         *
         * @throws IllegalArgumentException      when a process-shared or robust mutex is given a
         *     backend that cannot serve shared words, or a mutex is both fair and robust
         * @throws UnsupportedOperationException when robust is requested and the kernel robust
         *     list is not available (musl's setrobust check)
         */
        @Override
        public MutexAttr build() {
            if ((robust || pshared) && futex != null && !futex.supportsShared()) {
                throw new IllegalArgumentException("a " + (robust ? "robust" : "process-shared")
                    + " mutex sleeps with shared futex operations (the kernel wakes its waiters when an owner dies),"
                    + " and backend " + futex.name() + " cannot serve shared words");
            }
            if (fair && robust) {
                throw new IllegalArgumentException("a fair mutex cannot be robust: the ticket of an owner that died"
                    + " would stall its queue");
            }
            if (robust) {
                RobustList.checkSupported();
            }
            if (type == NORMAL && !robust && !fair && !pshared && futex == null) {
                return DEFAULT;
            }
            return new MutexAttr(type, robust, fair, pshared, futex);
        }
    }
}
