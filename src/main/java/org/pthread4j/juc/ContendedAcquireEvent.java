package org.pthread4j.juc;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.MemoryAddress;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import org.pthread4j.futex.Futex;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;

/**
 * The JFR event of an acquisition that did not succeed at once: a {@link PthreadLock}, either
 * lock of a {@link PthreadReadWriteLock}, or {@link PthreadSemaphore} permits. The pthread4j
 * counterpart of {@code jdk.JavaMonitorEnter}, with its default threshold (20 ms), so a
 * recording shows pthread4j contention next to {@code synchronized}'s.
 *
 * <p>An adapter makes one only after the primitive's own attempt failed, around the call that
 * spins and sleeps: the uncontended path never touches it. While no recording enables the event,
 * {@link #begin()}, {@link #end()} and {@link #shouldCommit()} do nothing.
 */
@Name(ContendedAcquireEvent.NAME)
@Label("pthread4j Contended Acquire")
@Category({"Java Application", "pthread4j"})
@Description("A thread blocked acquiring a pthread4j lock, read lock, write lock or semaphore permits")
@Threshold("20 ms")
@StackTrace(true)
final class ContendedAcquireEvent extends Event {
    /** The event's name in recordings. */
    static final String NAME = "org.pthread4j.ContendedAcquire";

    @Label("Primitive")
    @Description("PthreadLock, PthreadReadWriteLock.ReadLock, PthreadReadWriteLock.WriteLock or PthreadSemaphore")
    String primitive;

    @Label("Name")
    @Description("The lock or semaphore: its class and identity hash, as its toString starts")
    String name;

    @Label("Address")
    @Description("Native address of the primitive's memory (musl's pthread_mutex_t, pthread_rwlock_t or sem_t)")
    @MemoryAddress
    long address;

    @Label("Owner")
    @Description("The thread of this process that held the lock when the wait began, when known")
    Thread owner;

    @Label("Owner Id")
    @Description("The owner id in the mutex word when the wait began (the kernel tid of a platform thread, "
        + "2^29 and up for a virtual thread; a thread of another process too); 0 when free or not recorded")
    long ownerId;

    @Label("Backend")
    @Description("The futex backend the primitive sleeps on: parking, linux or linux-noprivate")
    String backend;

    @Label("Acquired")
    @Description("False when the wait ended without the lock: timed out or interrupted")
    boolean acquired;

    /** {@return how the events name a lock: its class and identity hash, as its toString starts} */
    static String nameOf(final Object lock) {
        return lock.getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(lock));
    }

    /**
     * {@return an event whose timing has begun, before the blocking call}
     *
     * @param ownerId the owner id the primitive records now, or 0
     * @param owner   the owning thread when the adapter knows it, else {@code null} (looked up by id)
     */
    static ContendedAcquireEvent begin(final int ownerId, final Thread owner) {
        final ContendedAcquireEvent e = new ContendedAcquireEvent();
        e.begin();
        if (e.isEnabled()) {
            e.ownerId = ownerId;
            e.owner = owner != null || ownerId == 0 ? owner : ThreadIds.thread(ownerId);
        }
        return e;
    }

    /**
     * Ends the timing after the blocking call and commits the event if it is enabled and the wait
     * passed the threshold.
     *
     * @param primitive what was acquired
     * @param lock      the adapter, for its name
     * @param block     the primitive's memory
     * @param futex     its backend
     * @param acquired  whether the call acquired
     */
    void done(final String primitive, final Object lock, final Block block, final Futex futex, final boolean acquired) {
        end();
        if (shouldCommit()) {
            this.primitive = primitive;
            this.name = nameOf(lock);
            this.address = block.segment().address();
            this.backend = futex.name();
            this.acquired = acquired;
            commit();
        }
    }
}
