package org.pthread4j;

import org.pthread4j.futex.Futex;

/**
 * What the builders of the four attribute types share: the process-shared flag
 * ({@code pthread_*attr_setpshared}) and the futex backend.
 *
 * @param <A> the attributes built
 * @param <B> the builder itself
 */
abstract class PsharedAttrBuilder<A extends PsharedAttr, B extends PsharedAttrBuilder<A, B>> {
    /** Whether the primitive may be used from several processes mapping the same memory. */
    boolean pshared;
    /** The requested backend, or null for the default. */
    Futex futex;

    PsharedAttrBuilder() {
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * {@code pthread_*attr_setpshared}: {@code PTHREAD_PROCESS_SHARED} or {@code PTHREAD_PROCESS_PRIVATE}.
     *
     * @param pshared whether the primitive may be used from several processes mapping the same memory
     * @return this builder
     */
    public B pshared(final boolean pshared) {
        this.pshared = pshared;
        return self();
    }

    /**
     * The futex backend (an addition of this library). A private primitive sleeps on it; what a
     * process-shared one does with it, each attribute type says.
     *
     * @param futex the backend, or {@code null} for the default
     * @return this builder
     */
    public B futex(final Futex futex) {
        this.futex = futex;
        return self();
    }

    /**
     * {@return the attributes}
     *
     * @throws IllegalArgumentException when the attributes do not go together (each type says which)
     */
    public abstract A build();
}
