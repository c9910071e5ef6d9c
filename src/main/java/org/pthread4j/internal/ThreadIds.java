package org.pthread4j.internal;

import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The id an owner-tracked primitive stores for the calling thread: below 2^30 (musl's owner
 * field is bits 0-29) and nonzero.
 *
 * <p>A platform thread's id is its kernel thread id ({@code gettid}), cached per thread: the
 * kernel's robust-list protocol compares exactly that when a thread dies. A virtual thread
 * gets an id from {@link #VIRTUAL_BASE} upward, which no kernel tid can equal (Linux caps
 * {@code pid_max} at 2^22). Virtual ids are handed out once per virtual thread that asks and
 * wrap around after 2^29 - 2 threads; a collision then needs two live virtual threads 536
 * million ids apart, which this library accepts.
 */
public final class ThreadIds {
    /** First id given to a virtual thread: 2^29. */
    public static final int VIRTUAL_BASE = 1 << 29;
    /** Last usable id: 2^30 - 2 (0x3fffffff is musl's "unrecoverable" owner). */
    public static final int MAX_ID = (1 << 30) - 2;

    private static final AtomicInteger NEXT_VIRTUAL = new AtomicInteger();
    private static final ThreadLocal<Ids> IDS = ThreadLocal.withInitial(ThreadIds::assign);
    /** The threads that were given an id, by id, for {@link #thread(int)}; weak, so ended threads go. */
    private static final ConcurrentHashMap<Integer, WeakReference<Thread>> THREADS = new ConcurrentHashMap<>();
    /** Registrations between two sweeps of collected threads out of {@link #THREADS}, a power of two. */
    private static final int SWEEP_EVERY = 4096;
    private static final AtomicInteger REGISTRATIONS = new AtomicInteger();

    /** A thread's ids, computed once. */
    private record Ids(int id, boolean kernel) {
    }

    private ThreadIds() {
    }

    /**
     * Computes and registers the calling thread's ids. Collected threads are swept out of the
     * registry every {@value #SWEEP_EVERY} registrations, by a scan rather than a reference queue,
     * whose lock a virtual thread registering in a crowd would block on while pinned (seen with
     * 10,000 virtual threads taking their first lock at once).
     */
    private static Ids assign() {
        final Ids ids = compute();
        if ((REGISTRATIONS.incrementAndGet() & (SWEEP_EVERY - 1)) == 0) {
            THREADS.values().removeIf(r -> r.refersTo(null));
        }
        THREADS.put(ids.id(), new WeakReference<>(Thread.currentThread()));
        return ids;
    }

    private static Ids compute() {
        if (!Thread.currentThread().isVirtual() && Syscall.AVAILABLE) {
            final int tid = Syscall.gettid();
            if (tid > 0 && tid < VIRTUAL_BASE) {
                return new Ids(tid, true);
            }
        }
        final int n = Math.floorMod(NEXT_VIRTUAL.getAndIncrement(), MAX_ID - VIRTUAL_BASE + 1);
        return new Ids(VIRTUAL_BASE + n, false);
    }

    /**
     * The thread of this process that was last given an id, if it was not collected: the owner
     * an owner-tracked primitive records, as a thread (for {@code getOwner()}). Every thread is
     * registered once, when it first asks for its id; the registry holds threads weakly and drops
     * collected ones now and then. A kernel tid is reused after its thread ended, so
     * the answer is the last registered thread with that id.
     *
     * @param id an owner id
     * @return the thread, or {@code null} when no live thread of this process has that id (0, a
     *     thread of another process, or one that never asked)
     */
    public static Thread thread(final int id) {
        final WeakReference<Thread> r = THREADS.get(id);
        return r == null ? null : r.get();
    }

    /** {@return the calling thread's owner id, nonzero and below 2^30} */
    public static int current() {
        return IDS.get().id();
    }

    /** {@return whether the calling thread's id is its kernel tid (a platform thread on Linux)} */
    public static boolean currentIsKernelTid() {
        return IDS.get().kernel();
    }

    /**
     * {@return whether it is a kernel thread id rather than a virtual thread's}
     *
     * @param id an owner id
     */
    public static boolean isKernelTid(final int id) {
        return id > 0 && id < VIRTUAL_BASE;
    }
}
