package org.pthread4j;

import org.pthread4j.memory.Block;

/**
 * The layout of musl's x86_64 {@code pthread_rwlock_t} (56 bytes, 8-byte aligned; the union
 * {@code __u} of {@code int __i[14]}, {@code volatile int __vi[14]}, {@code void *__p[7]}), and
 * the bits of its lock word. Names follow {@code src/internal/pthread_impl.h}.
 *
 * <p>musl's initializer is all zeros: an unlocked, private lock. Bytes 12 to 55 are never used
 * and stay zero.
 *
 * <p>See {@code docs/04-rwlock.md}: the words, the states, the races and the tests that prove them.
 */
public final class RwLockLayout {
    /** {@code sizeof(pthread_rwlock_t)} on LP64. */
    public static final int SIZE = 56;
    /** {@code _Alignof(pthread_rwlock_t)} on LP64 (the union holds pointers). */
    public static final int ALIGNMENT = 8;

    /** {@code _rw_lock} ({@code __vi[0]}): reader count or {@link #WRITE_LOCKED}, plus {@link #WAITERS_BIT}. */
    public static final int LOCK = 0;
    /** {@code _rw_waiters} ({@code __vi[1]}): how many threads are inside a futex wait on {@link #LOCK}. */
    public static final int WAITERS = LOCK + 4;
    /** {@code _rw_shared} ({@code __i[2]}): {@link #PSHARED} for a process-shared lock, else 0. */
    public static final int SHARED = WAITERS + 4;
    /** First byte after the fields used; the rest of the 56 bytes stays zero. */
    public static final int RESERVED = SHARED + 4;

    /** Bits 0-30 of {@link #LOCK}: 0 free, 1 to {@link #MAX_COUNT} readers, or {@link #WRITE_LOCKED}. */
    public static final int COUNT_MASK = 0x7fffffff;
    /** The count of a write-locked lock. */
    public static final int WRITE_LOCKED = 0x7fffffff;
    /** The reader count at which {@code tryrdlock} answers EAGAIN (too many readers). */
    public static final int MAX_COUNT = 0x7ffffffe;
    /** Bit 31 of {@link #LOCK}: sleepers may exist, so the releasing unlock must wake. */
    public static final int WAITERS_BIT = 0x80000000;
    /** The value of {@link #SHARED} for a process-shared lock: {@code attr * 128}, the futex private flag. */
    public static final int PSHARED = 128;

    private RwLockLayout() {
    }

    /**
     * Checks that a block can hold a {@code pthread_rwlock_t}.
     *
     * @param block the block
     * @throws IllegalArgumentException when it is smaller than {@link #SIZE} or not {@link #ALIGNMENT}-aligned
     */
    public static void checkBlock(final Block block) {
        Backing.check(block, SIZE, ALIGNMENT, "pthread_rwlock_t");
    }

    /**
     * Checks that a block holds an initialized {@code pthread_rwlock_t} in a consistent state.
     *
     * @param block the block
     * @throws IllegalArgumentException when it does not
     */
    public static void checkInitialized(final Block block) {
        checkBlock(block);
        final int shared = block.get(SHARED);
        if (shared != 0 && shared != PSHARED) {
            throw new IllegalArgumentException("pthread_rwlock_t: _rw_shared is " + shared + ", not 0 or 128");
        }
        if (block.get(WAITERS) < 0) {
            throw new IllegalArgumentException("pthread_rwlock_t: _rw_waiters is negative: " + block.get(WAITERS));
        }
        if (block.get(LOCK) == WAITERS_BIT) {
            throw new IllegalArgumentException("pthread_rwlock_t: _rw_lock is 0x80000000, a state musl never makes");
        }
        Backing.checkZero(block, RESERVED, SIZE, "pthread_rwlock_t");
    }
}
