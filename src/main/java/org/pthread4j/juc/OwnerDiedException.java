package org.pthread4j.juc;

import java.io.Serial;

/**
 * Thrown by an acquisition of a robust {@link PthreadLock} whose previous owner died holding it
 * (musl's {@code EOWNERDEAD}): a thread or a whole process ended without unlocking. <b>The lock
 * has been acquired</b>: the current thread holds it once, and the data it protects may be
 * half-updated.
 *
 * <p>The thread repairs the data, then calls {@link #markConsistent()} (or
 * {@link PthreadLock#markConsistent()}) and unlocks as usual; the lock is then normal again.
 * If it unlocks without marking it consistent, the lock becomes permanently unusable: every
 * later acquisition throws {@link NotRecoverableException}.
 *
 * <pre>{@code
 * try {
 *     lock.lock();
 * } catch (OwnerDiedException e) {
 *     repair(shared);          // the lock is held here
 *     e.markConsistent();
 * }
 * try {
 *     use(shared);
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <p>It is unchecked, like the other results of {@link java.util.concurrent.locks.Lock}
 * methods that code written for {@code ReentrantLock} does not expect: only robust locks throw
 * it, and code that makes a robust lock must handle it.
 */
public class OwnerDiedException extends IllegalStateException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final transient PthreadLock lock;

    /**
     * Creates the exception for a lock the current thread now holds in the owner-died state.
     *
     * @param lock the lock that was acquired in the owner-died state
     */
    public OwnerDiedException(final PthreadLock lock) {
        super("EOWNERDEAD: the previous owner of " + lock + " died holding it; the lock is now held by the current"
            + " thread and must be marked consistent before it is unlocked, or it becomes unrecoverable");
        this.lock = lock;
    }

    /** {@return the lock, held by the thread that caught this exception} */
    public PthreadLock lock() {
        return lock;
    }

    /**
     * Marks the lock consistent again ({@link PthreadLock#markConsistent()}).
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     * @throws IllegalStateException        when it is not in the owner-died state any more
     */
    public void markConsistent() {
        lock.markConsistent();
    }
}
