package org.pthread4j;

import org.pthread4j.memory.Block;

/**
 * The layout of musl's x86_64 {@code pthread_barrier_t} (32 bytes, 8-byte aligned; the union
 * {@code __u} of {@code int __i[8]}, {@code volatile int __vi[8]}, {@code void *__p[4]}), and
 * of the per-cycle instance a private barrier's first arrival publishes. Names follow
 * {@code src/internal/pthread_impl.h} and {@code pthread_barrier_wait.c}.
 *
 * <p>{@link #LIMIT} says which variant the barrier is: {@code count - 1} for a private
 * barrier, {@code (count - 1) | INT_MIN} for a process-shared one.
 */
public final class BarrierLayout {
    /** {@code sizeof(pthread_barrier_t)} on LP64. */
    public static final int SIZE = 32;
    /** {@code _Alignof(pthread_barrier_t)} on LP64. */
    public static final int ALIGNMENT = 8;

    /**
     * {@code _b_lock} ({@code __vi[0]}). Private: 0 or 1, the lock on the barrier object.
     * Shared: 0, or the count while a cycle's threads hold it collectively, less those that
     * left; bit 31 set by a destroyer waiting for them.
     */
    public static final int LOCK = 0;
    /** {@code _b_waiters} ({@code __vi[1]}): sleepers on {@link #LOCK}. */
    public static final int WAITERS = LOCK + 4;
    /** {@code _b_limit} ({@code __i[2]}): {@code count - 1}, with bit 31 for process-shared. */
    public static final int LIMIT = WAITERS + 4;
    /** {@code _b_count} ({@code __vi[3]}), shared only: arrivals, then the exit rendezvous count. */
    public static final int COUNT = LIMIT + 4;
    /** {@code _b_waiters2} ({@code __vi[4]}), shared only: sleepers on {@link #COUNT}. */
    public static final int WAITERS2 = COUNT + 4;
    /**
     * {@code _b_inst} ({@code __p[3]}), private only: the address of the current cycle's
     * instance, or 0 between cycles. Bytes 20-23 are padding before it.
     */
    public static final int INST = 24;

    /** Bit 31 of {@link #LIMIT}: process-shared ({@code pthread_barrierattr_setpshared} stores INT_MIN). */
    public static final int PSHARED = Integer.MIN_VALUE;
    /** {@code PTHREAD_BARRIER_SERIAL_THREAD}. */
    public static final int SERIAL_THREAD = -1;

    /** Instance field {@code count}: non-owner arrivals, then non-owners still leaving. */
    public static final int INST_COUNT = 0;
    /** Instance field {@code last}: set to 1 by the last arrival; non-owners sleep on it. */
    public static final int INST_LAST = 4;
    /** Instance field {@code waiters}: sleepers on {@link #INST_LAST}. */
    public static final int INST_WAITERS = 8;
    /** Instance field {@code finished}: the owner's and the last leaver's two-party rendezvous. */
    public static final int INST_FINISHED = 12;
    /** {@code sizeof(struct instance)}. */
    public static final int INST_SIZE = 16;

    private BarrierLayout() {
    }

    /**
     * Checks that a block can hold a {@code pthread_barrier_t}.
     *
     * @param block the block
     * @throws IllegalArgumentException when it cannot hold a {@code pthread_barrier_t}
     */
    public static void checkBlock(final Block block) {
        Backing.check(block, SIZE, ALIGNMENT, "pthread_barrier_t");
    }

    /**
     * Checks that a block holds an initialized barrier in a consistent state.
     *
     * @param block the block
     * @throws IllegalArgumentException when it does not
     */
    public static void checkInitialized(final Block block) {
        checkBlock(block);
        final String what = "pthread_barrier_t";
        final int limit = block.get(LIMIT);
        if (block.get(WAITERS) < 0) {
            throw new IllegalArgumentException(what + ": _b_waiters is negative");
        }
        if (block.get(20) != 0) {
            throw new IllegalArgumentException(what + ": padding at offset 20 is not 0");
        }
        if (limit >= 0) {
            final int lock = block.get(LOCK);
            if (lock != 0 && lock != 1) {
                throw new IllegalArgumentException(what + ": private _b_lock is " + lock + ", not 0 or 1");
            }
            if (block.get(COUNT) != 0 || block.get(WAITERS2) != 0) {
                throw new IllegalArgumentException(what + ": private barrier with nonzero _b_count/_b_waiters2");
            }
            final long inst = block.getLong(INST);
            if (inst != 0 && !BarrierInstances.isInstance(inst)) {
                throw new IllegalArgumentException(what + ": _b_inst 0x" + Long.toHexString(inst)
                    + " is not a barrier instance of this process");
            }
        } else {
            final int count = (limit & Integer.MAX_VALUE) + 1;
            final int lock = block.get(LOCK) & Integer.MAX_VALUE;
            if (lock > count) {
                throw new IllegalArgumentException(what + ": shared _b_lock " + lock + " exceeds the count " + count);
            }
            final int c = block.get(COUNT);
            if (c > count || c < -count) {
                throw new IllegalArgumentException(what + ": shared _b_count " + c + " outside [-" + count + ", "
                    + count + "]");
            }
            if (block.get(WAITERS2) < 0) {
                throw new IllegalArgumentException(what + ": _b_waiters2 is negative");
            }
            if (block.getLong(INST) != 0) {
                throw new IllegalArgumentException(what + ": shared barrier with nonzero _b_inst");
            }
        }
    }
}
