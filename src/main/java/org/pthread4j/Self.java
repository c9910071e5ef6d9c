package org.pthread4j;

import org.pthread4j.futex.ThreadIds;

/**
 * The calling thread as an owner-tracked primitive sees it (musl's {@code __pthread_self()}):
 * its owner id ({@link ThreadIds#current()}) and, once it has locked a robust or
 * process-shared owner-tracked mutex, its kernel robust list. One per thread, made on first
 * use; immutable except for the lazily registered list, which only its thread touches.
 */
final class Self {
    private static final ThreadLocal<Self> CURRENT = ThreadLocal.withInitial(Self::new);

    /** The thread. */
    final Thread thread;
    /** Its owner id: the kernel tid of a platform thread, a virtual id otherwise. */
    final int tid;
    private RobustList robust;

    private Self() {
        this.thread = Thread.currentThread();
        this.tid = ThreadIds.current();
    }

    /** @return the calling thread's identity */
    static Self current() {
        return CURRENT.get();
    }

    /**
     * @return this thread's robust list, registered with the kernel on first use
     * @throws UnsupportedOperationException on a virtual thread or a thread without a kernel tid
     */
    RobustList robust() {
        final RobustList r = robust;
        return r != null ? r : (robust = RobustList.register(tid));
    }

    /** @return this thread's robust list if it registered one, else {@code null} */
    RobustList robustOrNull() {
        return robust;
    }
}
