package org.pthread4j;

import org.pthread4j.internal.ThreadIds;
import org.pthread4j.internal.ThreadTable;

/**
 * The calling thread as an owner-tracked primitive sees it (musl's {@code __pthread_self()}):
 * its owner id ({@link ThreadIds#current()}) and, once it has locked a robust or
 * process-shared owner-tracked mutex, its kernel robust list. One per thread, made on first
 * use; immutable except for the lazily registered list, which only its thread touches.
 *
 * <p>{@link #current()} finds it without a thread-local lookup, in a process-wide
 * {@link ThreadTable} of {@value #SLOTS} slots; a per-lock cache of the last caller, which two
 * threads taking turns rewrote at every handoff, ran 2 threads on one RECURSIVE mutex at 0.42x
 * {@code ReentrantLock}'s throughput (see {@link ThreadTable}).
 */
final class Self extends ThreadTable.Entry {
    private static final ThreadLocal<Self> CURRENT = ThreadLocal.withInitial(Self::new);
    /** Slots of the identity table, a power of two. */
    static final int SLOTS = 4096;
    private static final Self[] TABLE = new Self[ThreadTable.length(SLOTS)];

    /** Its owner id: the kernel tid of a platform thread, a virtual id otherwise. */
    final int tid;
    private RobustList robust;

    private Self() {
        this.tid = ThreadIds.current();
    }

    /** {@return the calling thread's identity} */
    static Self current() {
        final Self s = ThreadTable.get(TABLE);
        return s != null ? s : ThreadTable.put(TABLE, CURRENT.get());
    }

    /**
     * {@return this thread's robust list, registered with the kernel on first use}
     *
     * @throws UnsupportedOperationException on a virtual thread or a thread without a kernel tid
     */
    RobustList robust() {
        final RobustList r = robust;
        return r != null ? r : (robust = RobustList.register(tid));
    }

    /** {@return this thread's robust list if it registered one, else {@code null}} */
    RobustList robustOrNull() {
        return robust;
    }
}
