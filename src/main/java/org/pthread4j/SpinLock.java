package org.pthread4j;

import org.pthread4j.memory.Block;

import static org.pthread4j.SpinLockLayout.LOCK;
import static org.pthread4j.SpinLockLayout.LOCKED;

/**
 * musl's {@code pthread_spinlock_t}: a test-and-test-and-set lock on one word that never
 * sleeps and makes no futex call ({@link SpinLockLayout}).
 *
 * <p>The word is 0 when free and EBUSY when held. {@link #lock()} spins on a plain read while
 * the word is nonzero, so a waiting CPU keeps its cache line shared instead of bouncing it
 * with failed CASes (musl commit 7b1fb0c5), and only then tries the CAS. {@link #tryLock()}
 * returns the CAS's old value, which is 0 or EBUSY. {@link #unlock()} is a full-barrier store
 * of 0. There is no owner: any thread may unlock, and relocking by the holder spins forever.
 * Process sharing needs nothing (no futex), so it is ignored, as in musl.
 *
 * <p>A spinlock burns a CPU while it waits; on a machine with few cores a preempted holder
 * makes waiters spin through their whole time slice. Hold it for a few instructions only.
 *
 * <p>Memory consistency: actions before {@link #unlock()} happen-before the next successful
 * {@link #lock()} or {@link #tryLock()}.
 *
 * <p>See {@code docs/06-once-barrier-spin.md}: the words, the states, the races and the tests that prove them.
 */
public final class SpinLock {
    private final Block block;

    /**
     * {@code pthread_spin_init}: stores 0.
     *
     * @param block at least 4 bytes, 4-byte aligned
     * @throws IllegalArgumentException when the block is unsuitable
     */
    public SpinLock(final Block block) {
        SpinLockLayout.checkBlock(block);
        this.block = block;
        block.set(LOCK, 0);
    }

    private SpinLock(final Block block, final boolean attach) {
        this.block = block;
    }

    /**
     * Views a spinlock initialized elsewhere.
     *
     * @param block the block
     * @return the view
     * @throws IllegalArgumentException when the word is neither 0 nor EBUSY
     */
    public static SpinLock attach(final Block block) {
        SpinLockLayout.checkInitialized(block);
        return new SpinLock(block, true);
    }

    /**
     * {@code pthread_spin_lock}: spins until the lock is taken.
     *
     * <p>Memory effects: as a lock (see the class description).
     *
     * @return 0
     */
    public int lock() {
        // src/thread/pthread_spin_lock.c
        while (block.get(LOCK) != 0 || block.cas(LOCK, 0, LOCKED) != 0) {
            Thread.onSpinWait();
        }
        return 0;
    }

    /**
     * {@code pthread_spin_trylock}.
     *
     * @return 0, or EBUSY when held (the word's old value)
     */
    public int tryLock() {
        // src/thread/pthread_spin_trylock.c
        return block.cas(LOCK, 0, LOCKED);
    }

    /**
     * {@code pthread_spin_unlock}: a full-barrier store of 0.
     *
     * <p>Memory effects: actions before it happen-before the next successful lock.
     *
     * @return 0
     */
    public int unlock() {
        // src/thread/pthread_spin_unlock.c
        block.set(LOCK, 0);
        return 0;
    }

    /**
     * {@code pthread_spin_destroy}: nothing to do.
     *
     * @return 0
     */
    public int destroy() {
        return 0;
    }

    /** {@return whether the lock is held, a snapshot} */
    public boolean isLocked() {
        return block.get(LOCK) != 0;
    }

    /** {@return the block this lock lives in} */
    public Block block() {
        return block;
    }

    @Override
    public String toString() {
        return "SpinLock[" + (isLocked() ? "locked" : "free") + "]";
    }
}
