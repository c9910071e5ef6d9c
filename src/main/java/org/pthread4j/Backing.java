package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;

/**
 * What the primitives of this package share: the choice of futex backend and the check of a
 * block's size and alignment, both made once, at construction.
 */
final class Backing {
    private Backing() {
    }

    /**
     * The backend of a primitive: for a private word the backend asked for, else
     * {@link Futexes#defaultPrivate()}; for a process-shared word the backend asked for, which
     * must serve shared words, else {@link Futexes#shared()}.
     *
     * @param pshared whether the word is process-shared
     * @param asked   the backend given, or null
     * @param what    the primitive, for the message ("process-shared rwlock")
     * @return the backend
     * @throws IllegalArgumentException when a process-shared word is given a backend that cannot
     *                                  serve shared words
     */
    static Futex futex(final boolean pshared, final Futex asked, final String what) {
        if (!pshared) {
            return asked != null ? asked : Futexes.defaultPrivate();
        }
        if (asked == null) {
            return Futexes.shared();
        }
        if (!asked.supportsShared()) {
            throw new IllegalArgumentException("backend " + asked.name() + " cannot serve the shared futex operations of a "
                + what + ": give a kernel backend (linux, linux-noprivate) or none");
        }
        return asked;
    }

    /**
     * Refuses a block that cannot hold the primitive.
     *
     * @param block     the block
     * @param size      the C type's size
     * @param alignment the C type's alignment
     * @param what      the C type's name, for the message
     * @throws IllegalArgumentException when the block is too small or misaligned
     * @throws NullPointerException     when the block is null
     */
    static void check(final Block block, final int size, final int alignment, final String what) {
        if (block == null) {
            throw new NullPointerException("block");
        }
        if (block.size() < size) {
            throw new IllegalArgumentException(what + " needs " + size + " bytes, block has " + block.size());
        }
        if ((block.address(0) & (alignment - 1)) != 0) {
            throw new IllegalArgumentException(what + " needs " + alignment + "-byte alignment, block is at 0x"
                + Long.toHexString(block.address(0)));
        }
    }

    /**
     * Refuses garbage in a block that is being attached: every byte in {@code [from, to)} must
     * be zero, as musl's initializer leaves it.
     *
     * @param block the block
     * @param from  first reserved byte
     * @param to    end of the reserved bytes
     * @param what  the C type's name
     * @throws IllegalArgumentException when a reserved byte is not zero
     */
    static void checkZero(final Block block, final int from, final int to, final String what) {
        for (int off = from; off < to; off += 4) {
            if (block.get(off) != 0) {
                throw new IllegalArgumentException(what + ": reserved word at offset " + off + " is 0x"
                    + Integer.toHexString(block.get(off)) + ", not 0: not an initialized " + what);
            }
        }
    }

    /** {@return the message prefix for an argument refused as musl's init refuses it with EINVAL} */
    static String einval(final String what) {
        return Errno.name(Errno.EINVAL) + ": " + what;
    }
}
