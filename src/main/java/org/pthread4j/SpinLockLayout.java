package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.pthread4j.memory.Block;

/**
 * The layout of musl's {@code pthread_spinlock_t}: one {@code int} (4 bytes), 0 when free and
 * {@link #LOCKED} (EBUSY) when held, so that a trylock can return the CAS's old value as is.
 */
public final class SpinLockLayout {
    /** {@code sizeof(pthread_spinlock_t)}. */
    public static final int SIZE = 4;
    /** {@code _Alignof(pthread_spinlock_t)}. */
    public static final int ALIGNMENT = 4;
    /** The lock word. */
    public static final int LOCK = 0;
    /** The held value: EBUSY (commit afbcac68). */
    public static final int LOCKED = Errno.EBUSY;

    private SpinLockLayout() {
    }

    /**
     * Checks that a block can hold a {@code pthread_spinlock_t}.
     *
     * @param block the block
     * @throws IllegalArgumentException when it cannot hold a {@code pthread_spinlock_t}
     */
    public static void checkBlock(final Block block) {
        Backing.check(block, SIZE, ALIGNMENT, "pthread_spinlock_t");
    }

    /**
     * Checks that a block holds an initialized {@code pthread_spinlock_t}.
     *
     * @param block the block
     * @throws IllegalArgumentException when the word is neither 0 nor EBUSY
     */
    public static void checkInitialized(final Block block) {
        checkBlock(block);
        final int w = block.get(LOCK);
        if (w != 0 && w != LOCKED) {
            throw new IllegalArgumentException("pthread_spinlock_t: word is " + w + ", not 0 or EBUSY");
        }
    }
}
