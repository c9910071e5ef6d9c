package org.pthread4j;

import org.pthread4j.memory.Block;

/**
 * Where everything of a {@link Cond} lives: musl's x86_64 {@code pthread_cond_t} (48 bytes,
 * {@code pthread_impl.h}: {@code _c_*} over {@code __u.__i[12]}), the bits of its words, and the
 * words of a private waiter's node.
 *
 * <p>The block keeps musl's layout in both modes. A process-shared condvar uses {@link #SHARED},
 * {@link #SEQ}, {@link #WAITERS} and {@link #CLOCK} exactly as musl does, so a musl-linked C
 * process can wait and signal on the same block. A private condvar uses {@link #SHARED} (zero),
 * {@link #CLOCK} and {@link #LOCK} as musl does; its waiter list is made of Java objects held by
 * the {@link Cond} instance, and {@link #HEAD}/{@link #TAIL} carry the native addresses of the
 * newest and oldest waiter's node words (zero when the list is empty), so the block reads like
 * musl's to an inspector and an empty list can be seen without taking the lock.
 *
 * <p>See {@code docs/03-cond.md}: the words, the states, the races and the tests that prove them.
 */
public final class CondLayout {
    /** Size of {@code pthread_cond_t} on every ABI: 48 bytes. */
    public static final int SIZE = 48;
    /** Required alignment of a block: 8, for the pointer fields. */
    public static final int ALIGNMENT = 8;

    /** {@code _c_shared} ({@code __p[0]}, 8 bytes): 0 = private, all ones ({@code (void *)-1}) = process-shared. */
    public static final int SHARED = 0;
    /** {@code _c_head} ({@code __p[1]}, 8 bytes), private only: address of the newest waiter's node words, or 0. */
    public static final int HEAD = 8;
    /** {@code _c_seq} ({@code __vi[2]}), shared only: the sequence futex word, bumped by every signal and broadcast. */
    public static final int SEQ = 8;
    /** {@code _c_waiters} ({@code __vi[3]}), shared only: threads inside wait; bit 31 = destroy in progress. */
    public static final int WAITERS = 12;
    /** {@code _c_clock} ({@code __i[4]}): clock id of timed-wait deadlines. */
    public static final int CLOCK = 16;
    /** {@code _c_lock} ({@code __vi[8]}), private only: the three-state lock guarding the waiter list. */
    public static final int LOCK = 32;
    /** {@code _c_tail} ({@code __p[5]}, 8 bytes), private only: address of the oldest waiter's node words, or 0. */
    public static final int TAIL = 40;

    /** Value of {@link #SHARED} for a process-shared condvar: {@code (void *)-1}. */
    public static final long SHARED_MARK = -1L;
    /** Bit of {@link #WAITERS}: a destroy is waiting for the last waiter to leave. */
    public static final int WAITERS_DESTROY = 0x80000000;
    /** Value {@link #WAITERS} held before the last waiter left while a destroy waits. */
    public static final int WAITERS_LAST_BEFORE_DESTROY = 0x80000001;

    /** Three-state lock ({@link #LOCK} and a node's barrier): free. */
    public static final int UNLOCKED = 0;
    /** Three-state lock: held, nobody sleeps. */
    public static final int LOCKED = 1;
    /** Three-state lock: held, someone may sleep (a fresh barrier starts here). */
    public static final int CONTENDED = 2;

    /** {@code pthread_condattr_t.__attr} bit 31: process-shared. */
    public static final int ATTR_PSHARED = 0x80000000;
    /** {@code pthread_condattr_t.__attr} bits 0-30: the clock. */
    public static final int ATTR_CLOCK_MASK = 0x7fffffff;

    /** Node word {@code state}: waiting, not yet picked by a signal. */
    public static final int WAITING = 0;
    /** Node word {@code state}: picked by a signal or broadcast. */
    public static final int SIGNALED = 1;
    /** Node word {@code state}: timed out or interrupted, unlinking itself. */
    public static final int LEAVING = 2;

    /** Offset of a node's {@code state} word. */
    public static final int NODE_STATE = 0;
    /** Offset of a node's {@code barrier} word (three-state lock, starts {@link #CONTENDED}); the waiter sleeps on it. */
    public static final int NODE_BARRIER = 4;
    /**
     * Offset of a thread's {@code ref} word, used when that thread signals: musl's
     * {@code volatile int ref} on the signaler's stack, counting LEAVING nodes it walked past.
     */
    public static final int NODE_REF = 8;
    /** Bytes per node: a cache line, so two sleepers' words never share one. */
    public static final int NODE_SIZE = 64;

    private CondLayout() {
    }

    /**
     * Refuses a block that cannot hold a condvar.
     *
     * @param block the block
     * @throws IllegalArgumentException when it is smaller than {@link #SIZE} bytes or not
     *                                  {@link #ALIGNMENT}-byte aligned
     */
    public static void checkBlock(final Block block) {
        if (block.size() < SIZE) {
            throw new IllegalArgumentException("a condvar needs " + SIZE + " bytes, the block has " + block.size());
        }
        if ((block.address(0) & (ALIGNMENT - 1)) != 0) {
            throw new IllegalArgumentException("a condvar block must be " + ALIGNMENT + "-byte aligned, address 0x"
                + Long.toHexString(block.address(0)) + " is not");
        }
    }
}
