package org.pthread4j;

import org.pthread4j.memory.Block;

/**
 * The layout of musl's {@code pthread_once_t}: one {@code int} control word (4 bytes), with
 * its four states. The initializer ({@code PTHREAD_ONCE_INIT}) is 0.
 */
public final class OnceLayout {
    /** {@code sizeof(pthread_once_t)}. */
    public static final int SIZE = 4;
    /** {@code _Alignof(pthread_once_t)}. */
    public static final int ALIGNMENT = 4;

    /** The control word. */
    public static final int CONTROL = 0;

    /** Not run, or the last run threw (musl: was cancelled) and was undone. */
    public static final int NOT_RUN = 0;
    /** An initializer is running; nobody waits. */
    public static final int RUNNING = 1;
    /** The initializer finished: the fast path's only state. */
    public static final int DONE = 2;
    /** An initializer is running and waiters sleep on the word (wake all when it ends). */
    public static final int RUNNING_WAITERS = 3;

    private OnceLayout() {
    }

    /**
     * Checks that a block can hold a {@code pthread_once_t}.
     *
     * @param block the block
     * @throws IllegalArgumentException when it cannot hold a {@code pthread_once_t}
     */
    public static void checkBlock(final Block block) {
        Backing.check(block, SIZE, ALIGNMENT, "pthread_once_t");
    }

    /**
     * Checks that a block holds an initialized {@code pthread_once_t}.
     *
     * @param block the block
     * @throws IllegalArgumentException when it does not hold a state 0 to 3
     */
    public static void checkInitialized(final Block block) {
        checkBlock(block);
        final int state = block.get(CONTROL);
        if (state < NOT_RUN || state > RUNNING_WAITERS) {
            throw new IllegalArgumentException("pthread_once_t: control word is " + state + ", not a state 0-3");
        }
    }
}
