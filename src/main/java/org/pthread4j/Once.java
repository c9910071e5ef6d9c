package org.pthread4j;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

import static org.pthread4j.OnceLayout.CONTROL;
import static org.pthread4j.OnceLayout.DONE;
import static org.pthread4j.OnceLayout.NOT_RUN;
import static org.pthread4j.OnceLayout.RUNNING;
import static org.pthread4j.OnceLayout.RUNNING_WAITERS;

/**
 * musl's {@code pthread_once}: runs an initializer exactly once, however many threads ask, on
 * one control word ({@link OnceLayout}).
 *
 * <h2>Implementation overview</h2>
 *
 * <p>The word moves 0 (not run) to 1 (running) to 2 (done); 3 means running with sleepers.
 * The fast path is one acquire read of 2, which also makes the initializer's writes visible
 * (musl reads plainly and issues a barrier, commit df37d396). Otherwise the caller loops on a
 * CAS from 0 to 1:
 * <ul>
 * <li>it saw 0: it won and runs the initializer, then swaps the word to 2 and wakes all if it
 *     was 3. A CAS, not a swap, enters the running state, so a finished word is never
 *     overwritten: the old swap could bounce 2 to 1 to 2 without a wake and strand the
 *     threads that entered in that window (commit 0d0c2f40);</li>
 * <li>it saw 1: it marks sleepers by CAS 1 to 3 (failure means the state moved on, and the
 *     wait below returns at once) and, like 3, waits (spin up to 100, then futex) while the
 *     word is 3, then loops;</li>
 * <li>it saw 2: done.</li>
 * </ul>
 *
 * <p>If the initializer throws (musl: is cancelled), the word is swapped back to 0 and all
 * sleepers are woken, because resetting loses the waiter information: they race again and one
 * of them becomes the next initializer. The exception reaches the caller of {@link #run}.
 *
 * <p>musl's {@code pthread_once_t} is always private. This port can also make it
 * process-shared (sleeping on {@link Futexes#shared()}), an extension for a once placed in a
 * file that several processes map; a process that dies inside the initializer leaves the word
 * running forever there (there is no process-death undo). Calling {@link #run} on the same
 * once from inside its initializer deadlocks, as in C.
 *
 * <p>Memory consistency: the initializer's actions happen-before the return of every
 * {@link #run} on this once that returns normally.
 *
 * <p>See {@code docs/06-once-barrier-spin.md}: the words, the states, the races and the tests that prove them.
 */
public final class Once {
    private final Block block;
    private final MemorySegment seg;
    private final Futex futex;
    private final boolean priv;

    /**
     * {@code pthread_once_t o = PTHREAD_ONCE_INIT}: a private once on the default backend.
     *
     * @param block at least 4 bytes, 4-byte aligned
     * @throws IllegalArgumentException when the block is unsuitable
     */
    public Once(final Block block) {
        this(block, false, null);
    }

    /**
     * {@code PTHREAD_ONCE_INIT}: stores 0 in the control word.
     *
     * @param block        at least 4 bytes, 4-byte aligned
     * @param pshared      whether processes mapping the block share it (an extension, see above)
     * @param privateFutex backend of a private once (of a process-shared one: a backend that
     *                     serves shared words), or null for the default
     * @throws IllegalArgumentException when the block is unsuitable, or a process-shared once is
     *                                  given a backend that cannot serve shared words
     */
    public Once(final Block block, final boolean pshared, final Futex privateFutex) {
        OnceLayout.checkBlock(block);
        this.block = block;
        this.seg = block.segment();
        this.priv = !pshared;
        this.futex = Backing.futex(pshared, privateFutex, "process-shared once");
        block.set(CONTROL, NOT_RUN);
    }

    private Once(final Block block, final Futex futex, final boolean priv) {
        this.block = block;
        this.seg = block.segment();
        this.futex = futex;
        this.priv = priv;
    }

    /**
     * Views a private once initialized elsewhere, on the default backend.
     *
     * @param block the block
     * @return the view
     * @throws IllegalArgumentException when the word is not a state 0-3
     */
    public static Once attach(final Block block) {
        return attach(block, false, null);
    }

    /**
     * Views a once initialized elsewhere. The control word does not record whether it is
     * shared: every user must say the same.
     *
     * @param block        the block
     * @param pshared      whether it is process-shared
     * @param privateFutex backend of a private once (of a process-shared one: a backend that
     *                     serves shared words), or null for the default
     * @return the view
     * @throws IllegalArgumentException when the word is not a state 0-3, or a process-shared
     *                                  once is given a backend that cannot serve shared words
     */
    public static Once attach(final Block block, final boolean pshared, final Futex privateFutex) {
        OnceLayout.checkInitialized(block);
        return new Once(block, Backing.futex(pshared, privateFutex, "process-shared once"), !pshared);
    }

    /**
     * {@code pthread_once}: runs {@code init} if no call on this once has completed it, and
     * returns when it has been completed, by this thread or another. Not interruptible.
     *
     * <p>Memory effects: the initializer's actions happen-before the return of this call.
     *
     * @param init the initializer
     * @return 0, as {@code pthread_once} always returns
     * @throws RuntimeException or {@link Error}: whatever {@code init} threw, in the thread
     *                          that ran it; the once is then reset to "not run" and waiting
     *                          threads race to run it again
     */
    public int run(final Runnable init) {
        // src/thread/pthread_once.c: __pthread_once
        if ((int) Block.INT.getAcquire(seg, (long) CONTROL) == DONE) {
            return 0;
        }
        return runFull(init);
    }

    /** {@code __pthread_once_full} (src/thread/pthread_once.c). */
    private int runFull(final Runnable init) {
        for (;;) {
            final int old = block.cas(CONTROL, NOT_RUN, RUNNING);
            switch (old) {
                case NOT_RUN -> {
                    try {
                        init.run();
                    } catch (final Throwable t) {
                        undo();
                        throw t;
                    }
                    if (block.getAndSet(CONTROL, DONE) == RUNNING_WAITERS) {
                        futex.wake(seg, CONTROL, -1, priv);
                    }
                    return 0;
                }
                case RUNNING -> {
                    block.cas(CONTROL, RUNNING, RUNNING_WAITERS);
                    MuslWait.await(futex, seg, CONTROL, -1, RUNNING_WAITERS, priv);
                }
                case RUNNING_WAITERS -> MuslWait.await(futex, seg, CONTROL, -1, RUNNING_WAITERS, priv);
                case DONE -> {
                    return 0;
                }
                default -> throw new IllegalStateException("pthread_once_t: control word is " + old
                    + ", not a state 0-3: the memory was overwritten");
            }
        }
    }

    /** musl's {@code undo}: reset, and wake everyone since the waiter information is lost. */
    private void undo() {
        if (block.getAndSet(CONTROL, NOT_RUN) == RUNNING_WAITERS) {
            futex.wake(seg, CONTROL, -1, priv);
        }
    }

    /** {@return whether the initializer has completed (state 2)} */
    public boolean isDone() {
        return block.get(CONTROL) == DONE;
    }

    /** {@return the control word: 0 not run, 1 running, 2 done, 3 running with sleepers} */
    public int state() {
        return block.get(CONTROL);
    }

    /** {@return the block this once lives in} */
    public Block block() {
        return block;
    }

    @Override
    public String toString() {
        return "Once[state=" + block.get(CONTROL) + (priv ? ", private on " + futex.name() : ", pshared") + "]";
    }
}
