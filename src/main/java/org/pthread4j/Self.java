package org.pthread4j;

import org.pthread4j.futex.ThreadIds;

/**
 * The calling thread as an owner-tracked primitive sees it (musl's {@code __pthread_self()}):
 * its owner id ({@link ThreadIds#current()}) and, once it has locked a robust or
 * process-shared owner-tracked mutex, its kernel robust list. One per thread, made on first
 * use; immutable except for the lazily registered list, which only its thread touches.
 *
 * <p>{@link #current()} finds it without a thread-local lookup: in a process-wide table of
 * {@value #SLOTS} slots indexed by {@link Thread#threadId()}, each slot holding the identity of
 * the last thread of that index that asked. A slot is written only on a miss (a thread's first
 * call, or after a thread with a colliding id took the slot), so threads that take turns on a
 * lock read the table and never write to shared memory; a per-lock cache of the last caller
 * was rewritten at every handoff and kept its cache line moving between the CPUs (2 threads
 * on one RECURSIVE mutex: 0.42x {@code ReentrantLock}'s throughput, see the CHANGELOG). The
 * table holds identities, not threads, so it keeps no thread or thread-local reachable.
 */
final class Self {
    private static final ThreadLocal<Self> CURRENT = ThreadLocal.withInitial(Self::new);
    /** Slots of the identity table, a power of two. */
    static final int SLOTS = 4096;
    private static final Self[] TABLE = new Self[SLOTS];

    /** {@link Thread#threadId()} of the thread: the table's key (never reused by the JVM). */
    final long thread;
    /** Its owner id: the kernel tid of a platform thread, a virtual id otherwise. */
    final int tid;
    private RobustList robust;

    private Self() {
        this.thread = Thread.currentThread().threadId();
        this.tid = ThreadIds.current();
    }

    /** @return the calling thread's identity */
    static Self current() {
        // Under the JIT's 35-byte inlining limit, so it inlines even at call sites the profile
        // calls cold.
        final long t = Thread.currentThread().threadId();
        final Self s = TABLE[(int) t & (SLOTS - 1)];
        return s != null && s.thread == t ? s : miss(t);
    }

    private static Self miss(final long t) {
        // A plain store: racing threads of one index may overwrite each other's entry, which only
        // costs a later miss. Self's fields read here are final, so a reader sees them complete.
        final Self s = CURRENT.get();
        TABLE[(int) t & (SLOTS - 1)] = s;
        return s;
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
