package org.pthread4j;

import org.pthread4j.memory.Block;

/**
 * The layout of musl's x86_64 {@code sem_t}: {@code volatile int __val[8]} (32 bytes, 4-byte
 * aligned). Only the first three ints are used; {@code sem_init} leaves the others untouched,
 * and a semaphore created by musl's {@code sem_open} may carry garbage there.
 *
 * <p>See {@code docs/05-semaphore.md}: the words, the states, the races and the tests that prove them.
 */
public final class SemLayout {
    /** {@code sizeof(sem_t)} on LP64: {@code 4*sizeof(long)} bytes. */
    public static final int SIZE = 32;
    /** {@code _Alignof(sem_t)}: an int array. */
    public static final int ALIGNMENT = 4;

    /** {@code __val[0]}: the value in bits 0-30, {@link #WAITERS_BIT} in bit 31. */
    public static final int VALUE = 0;
    /** {@code __val[1]}: how many threads are inside a wait (the waiter count). */
    public static final int WAITERS = VALUE + 4;
    /** {@code __val[2]}: {@link #PRIVATE} for a private semaphore, 0 for a process-shared one. */
    public static final int FLAGS = WAITERS + 4;

    /** {@code SEM_VALUE_MAX}: the largest value, and the mask of the value bits of {@link #VALUE}. */
    public static final int SEM_VALUE_MAX = 0x7fffffff;
    /** Bit 31 of {@link #VALUE}: sleepers may exist (sticky until a post wakes them all). */
    public static final int WAITERS_BIT = 0x80000000;
    /** The value of {@link #FLAGS} for a private semaphore: the futex private flag. */
    public static final int PRIVATE = 128;

    private SemLayout() {
    }

    /**
     * Checks that a block can hold a {@code sem_t}.
     *
     * @param block the block
     * @throws IllegalArgumentException when it is smaller than {@link #SIZE} or misaligned
     */
    public static void checkBlock(final Block block) {
        Backing.check(block, SIZE, ALIGNMENT, "sem_t");
    }

    /**
     * Checks that a block holds an initialized {@code sem_t}.
     *
     * @param block the block
     * @throws IllegalArgumentException when the private flag is neither 0 nor 128, or the
     *                                  waiter count is negative
     */
    public static void checkInitialized(final Block block) {
        checkBlock(block);
        final int flags = block.get(FLAGS);
        if (flags != 0 && flags != PRIVATE) {
            throw new IllegalArgumentException("sem_t: __val[2] is " + flags + ", not 0 or 128: not an initialized sem_t");
        }
        if (block.get(WAITERS) < 0) {
            throw new IllegalArgumentException("sem_t: waiter count __val[1] is negative: " + block.get(WAITERS));
        }
    }
}
