package org.pthread4j;

import org.pthread4j.futex.Futex;

/**
 * Interim stand-in for the mutex branch's attributes. Replaced wholesale when the mutex lands.
 *
 * @param type     NORMAL, RECURSIVE or ERRORCHECK
 * @param robust   robust bit
 * @param pshared  process-shared bit
 * @param futex    backend for a private mutex, or null for the default
 */
public record MutexAttr(int type, boolean robust, boolean pshared, Futex futex) {
    /** NORMAL, private, default backend. */
    public static final MutexAttr DEFAULT = new MutexAttr(MutexLayout.NORMAL, false, false, null);

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /** Builder. */
    public static final class Builder {
        private int type;
        private boolean robust;
        private boolean pshared;
        private Futex futex;

        /** @param t kind @return this */
        public Builder type(final int t) {
            this.type = t;
            return this;
        }

        /** @param r robust @return this */
        public Builder robust(final boolean r) {
            this.robust = r;
            return this;
        }

        /** @param p pshared @return this */
        public Builder pshared(final boolean p) {
            this.pshared = p;
            return this;
        }

        /** @param f backend @return this */
        public Builder futex(final Futex f) {
            this.futex = f;
            return this;
        }

        /** @return the attributes */
        public MutexAttr build() {
            return new MutexAttr(type, robust, pshared, futex);
        }
    }
}
