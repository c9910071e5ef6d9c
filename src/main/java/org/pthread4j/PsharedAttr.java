package org.pthread4j;

import org.pthread4j.futex.Futex;

import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * What the four attribute types ({@link MutexAttr}, {@link CondAttr}, {@link RwLockAttr},
 * {@link BarrierAttr}) share: POSIX's process-shared flag, this library's futex backend, and one
 * shape: immutable, made by a builder, equal when of the same type with the same values.
 */
abstract class PsharedAttr {
    private final boolean pshared;
    private final Futex futex;

    PsharedAttr(final boolean pshared, final Futex futex) {
        this.pshared = pshared;
        this.futex = futex;
    }

    /** {@return whether the primitive may be used from several processes mapping the same memory ({@code PTHREAD_PROCESS_SHARED})} */
    public final boolean pshared() {
        return pshared;
    }

    /** {@return the requested futex backend, or {@code null} for the default} */
    public final Futex futex() {
        return futex;
    }

    /**
     * {@return the other attributes as words, in POSIX's order (empty when there are none); two
     *     attribute sets of one type with the same words, flag and backend are equal}
     */
    abstract List<String> details();

    @Override
    public final boolean equals(final Object o) {
        return o instanceof PsharedAttr a && a.getClass() == getClass() && a.pshared == pshared
            && Objects.equals(a.futex, futex) && a.details().equals(details());
    }

    @Override
    public final int hashCode() {
        return Objects.hash(getClass().getName(), pshared, futex, details());
    }

    /** {@return for example {@code MutexAttr[RECURSIVE, robust, pshared]} or {@code RwLockAttr[private, linux]}} */
    @Override
    public final String toString() {
        final StringJoiner s = new StringJoiner(", ", getClass().getSimpleName() + "[", "]");
        details().forEach(s::add);
        s.add(pshared ? "pshared" : "private");
        if (futex != null) {
            s.add(futex.name());
        }
        return s.toString();
    }
}
