package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.pthread4j.internal.Syscall;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One platform thread's kernel robust list ({@code set_robust_list(2)}), the list musl keeps
 * in {@code pthread->robust_list}: the mutexes the thread holds that the kernel must mark when
 * the thread or its process dies.
 *
 * <p>The head is the kernel's {@code struct robust_list_head} in 24 bytes of native memory
 * that is never freed (the kernel may read it until the thread is gone): {@code next} (the
 * first node, or the head itself when empty), {@code futex_offset} = {@link
 * MutexLayout#ROBUST_FUTEX_OFFSET} (-28: from a node, {@code _m_next}, to the lock word) and
 * {@code list_op_pending}. The nodes are the {@code _m_next} fields of the held mutexes, linked
 * exactly as musl's {@code pthread_mutex_trylock.c} and {@code pthread_mutex_unlock.c} link
 * them: newest first, {@code _m_prev} holding the address of the slot that points at the node.
 *
 * <p><b>Sharing the thread with glibc.</b> The kernel keeps one head per thread, and glibc
 * registered its own for every thread it started (its {@code struct robust_list_head} in the
 * thread's descriptor, {@code futex_offset} -32: glibc's mutex keeps its lock word 32 bytes
 * before its node), which native code's robust mutexes are linked into. One head cannot serve
 * both lists, because the offset is the head's, not the node's. So this list is registered only
 * while it holds a mutex: {@link #register} reads the head registered before
 * ({@code get_robust_list}) and keeps it; the first {@link #pending} of a lock installs this
 * head, and when the list is empty again with nothing pending ({@link #pending pending(0)}, or
 * a {@link #purge} that drops the last node) the kept head is registered back. A glibc robust
 * mutex that native code holds on this thread is therefore recovered at the thread's death
 * unless the thread also holds a mutex of this library at that moment. It costs two
 * {@code set_robust_list} calls each time the list goes from empty to one mutex and back.
 *
 * <p>The links are written, never read back: a Java mirror of the list (the held mutexes'
 * segments, oldest first) says where each pointer goes, and every write goes through the
 * segment of the mutex it lands in. So a neighbour whose memory was closed while still
 * locked (an error, as freeing a locked mutex is in C) makes an access throw instead of
 * writing through a stale pointer; the list then drops it and is rewritten.
 *
 * <p>Not thread-safe: only its thread uses it. The kernel reads it at thread exit or process
 * death, when the thread runs no more code, and then walks at most {@value #LIMIT} nodes
 * ({@code ROBUST_LIST_LIMIT} in {@code kernel/futex/core.c}): a node beyond them would never be
 * marked, and the mutex would stay locked for ever after its owner died. So the list never
 * grows past {@value #LIMIT}: a thread that holds that many refuses to link another
 * ({@link #isFull()}; {@code Mutex} answers EAGAIN), where musl and glibc link it and lose its
 * recovery in silence.
 *
 * <p>See {@code docs/07-robust-and-shared.md}: the words, the states, the races and the tests that prove them.
 */
final class RobustList {
    /**
     * The most nodes the kernel walks at a thread's death ({@code ROBUST_LIST_LIMIT}), and so the
     * most mutexes a thread may hold on its list.
     */
    static final int LIMIT = 2048;
    /** {@code sizeof(struct robust_list_head)} on LP64. */
    static final long HEAD_SIZE = 24;
    private static final long HEAD_NEXT = 0;
    private static final long HEAD_OFFSET = 8;
    private static final long HEAD_PENDING = 16;

    /** -1 unknown, else the errno of musl's one-time {@code get_robust_list} probe (0 = supported). */
    private static volatile int supportErrno = -1;

    /** The owner id this thread writes into lock words: its kernel tid. */
    final int tid;
    private final MemorySegment head;
    private final long headAddress;
    /** The head registered before this list (glibc's), and its length, restored when this list empties. */
    private final long previousHead;
    private final long previousLength;
    /** Whether the kernel holds this head now (else {@link #previousHead}). */
    private boolean installed;
    /** The node in {@code list_op_pending}, 0 when none. */
    private long pendingNode;
    private MemorySegment[] held = new MemorySegment[8];
    private int size;

    private RobustList(final int tid, final MemorySegment head, final long previousHead, final long previousLength) {
        this.tid = tid;
        this.head = head;
        this.headAddress = head.address();
        this.previousHead = previousHead;
        this.previousLength = previousLength;
    }

    /**
     * musl's {@code pthread_mutexattr_setrobust} check: asks the kernel once for this thread's
     * robust list.
     *
     * @throws UnsupportedOperationException when the kernel has no robust lists, or this is
     *                                       not Linux
     */
    static void checkSupported() {
        int e = supportErrno;
        if (e < 0) {
            if (!Syscall.AVAILABLE) {
                e = Errno.ENOSYS;
            } else {
                try (Arena arena = Arena.ofConfined()) {
                    final MemorySegment out = arena.allocate(16, 8);
                    final long r = Syscall.call(Syscall.SYS_GET_ROBUST_LIST, 0, out.address(), out.address() + 8, 0, 0, 0);
                    e = r < 0 ? (int) -r : 0;
                }
            }
            supportErrno = e;
        }
        if (e != 0) {
            throw new UnsupportedOperationException("robust mutexes need the kernel robust list (Linux x86_64 or "
                + "aarch64); get_robust_list answered " + Errno.name(e));
        }
    }

    /**
     * Makes the calling thread's list and keeps the head the kernel holds for the thread now
     * (glibc's), to give it back whenever this list is empty ({@link Self#robust()} does this
     * once per thread). The list is installed by its first lock.
     *
     * @param tid the thread's owner id, which must be its kernel tid
     * @return the list
     * @throws UnsupportedOperationException on a virtual thread, or a thread without a kernel tid
     */
    static RobustList register(final int tid) {
        final Thread t = Thread.currentThread();
        if (t.isVirtual() || !ThreadIds.currentIsKernelTid() || tid != ThreadIds.current()) {
            throw new UnsupportedOperationException("robust and process-shared owner-tracked mutexes need a platform"
                + " thread: the owner id must be the kernel tid, which the kernel's robust list marks when the"
                + " thread dies; " + t + " is " + (t.isVirtual() ? "a virtual thread" : "not a kernel thread"));
        }
        checkSupported();
        final MemorySegment h = Arena.global().allocate(HEAD_SIZE, 8);
        h.set(ValueLayout.JAVA_LONG, HEAD_NEXT, h.address());
        h.set(ValueLayout.JAVA_LONG, HEAD_OFFSET, MutexLayout.ROBUST_FUTEX_OFFSET);
        h.set(ValueLayout.JAVA_LONG, HEAD_PENDING, 0L);
        final long[] previous = kernelHead();
        return new RobustList(tid, h, previous[0], previous[1]);
    }

    /** Registers a head with the kernel for the calling thread. */
    private static void setKernelHead(final long address, final long length) {
        final long r = Syscall.call(Syscall.SYS_SET_ROBUST_LIST, address, length, 0, 0, 0, 0);
        if (r < 0) {
            throw new UnsupportedOperationException("set_robust_list failed: " + Errno.name((int) -r));
        }
    }

    /** Gives the kernel back the head registered before this list, once nothing is held or pending. */
    private void restoreWhenEmpty() {
        if (installed && size == 0 && pendingNode == 0) {
            setKernelHead(previousHead, previousLength);
            installed = false;
        }
    }

    /** {@return the address of this thread's head, as registered with the kernel} */
    long headAddress() {
        return headAddress;
    }

    /** {@return how many mutexes are on the list} */
    int size() {
        return size;
    }

    /**
     * {@return whether the list holds {@value #LIMIT} mutexes: the kernel would not reach
     *     another one at this thread's death, so none may be linked}
     */
    boolean isFull() {
        return size >= LIMIT;
    }

    /**
     * The kernel's {@code list_op_pending}: the node whose lock word is being changed, which
     * the kernel also inspects if the process dies in the middle of a lock or unlock. Setting a
     * node installs this head first, if the kernel holds the previous one; clearing it with
     * the list empty gives the previous head back.
     *
     * @param node the node address ({@code &_m_next}), or 0
     */
    void pending(final long node) {
        if (node != 0 && !installed) {
            setKernelHead(headAddress, HEAD_SIZE);
            installed = true;
        }
        pendingNode = node;
        Block.LONG.setRelease(head, HEAD_PENDING, node);
        if (node == 0) {
            restoreWhenEmpty();
        }
    }

    /** {@return whether the kernel holds this list's head now (it holds the previous one while the list is empty)} */
    boolean installed() {
        return installed;
    }

    /** {@return the head registered for the thread before this list: glibc's, restored while this list is empty} */
    long previousHead() {
        return previousHead;
    }

    private static long node(final MemorySegment m) {
        return m.address() + MutexLayout.NEXT;
    }

    /**
     * Pushes a just-acquired mutex at the head and clears the pending slot (musl's trylock
     * after its successful CAS). Each store is a release store, so the kernel of a killed
     * process sees the list in program order.
     *
     * @param m the mutex block's segment
     */
    void link(final MemorySegment m) {
        if (size == held.length) {
            held = Arrays.copyOf(held, size * 2);
        }
        final int n = size;
        held[n] = m;
        size = n + 1;
        try {
            final long node = node(m);
            final MemorySegment first = n == 0 ? null : held[n - 1];
            Block.LONG.setRelease(m, (long) MutexLayout.NEXT, first == null ? headAddress : node(first));
            Block.LONG.setRelease(m, (long) MutexLayout.PREV, headAddress);
            if (first != null) {
                Block.LONG.setRelease(first, (long) MutexLayout.PREV, node);
            }
            Block.LONG.setRelease(head, HEAD_NEXT, node);
        } catch (final IllegalStateException closed) {
            rewrite(0);
        }
        pending(0);
    }

    /**
     * Removes a mutex the thread is about to release (musl's unlock, before its swap).
     *
     * @param m the mutex block's segment
     * @return false when it is not on the list (it was locked through another mapping of the
     *     same memory; see {@link #purge})
     */
    boolean unlink(final MemorySegment m) {
        final long address = m.address();
        int i = size - 1;
        while (i >= 0 && held[i].address() != address) {
            i--;
        }
        if (i < 0) {
            return false;
        }
        final int n = size;
        final MemorySegment newer = i == n - 1 ? null : held[i + 1];
        final MemorySegment older = i == 0 ? null : held[i - 1];
        System.arraycopy(held, i + 1, held, i, n - 1 - i);
        held[n - 1] = null;
        size = n - 1;
        try {
            final long successor = older == null ? headAddress : node(older);
            if (newer == null) {
                Block.LONG.setRelease(head, HEAD_NEXT, successor);
            } else {
                Block.LONG.setRelease(newer, (long) MutexLayout.NEXT, successor);
            }
            if (older != null) {
                Block.LONG.setRelease(older, (long) MutexLayout.PREV, newer == null ? headAddress : node(newer));
            }
        } catch (final IllegalStateException closed) {
            rewrite(0);
        }
        return true;
    }

    /**
     * Drops every entry this thread no longer owns (its lock word names another owner) or whose
     * memory was closed, and rewrites the list. Called after an unlock that found its mutex
     * missing: it had been locked through another mapping of the same memory, whose entry is
     * stale once the word is released.
     */
    void purge() {
        rewrite(tid);
    }

    /**
     * Rewrites every link from the mirror, first dropping entries whose memory is closed and,
     * when {@code owner != 0}, entries whose lock word does not name {@code owner}.
     */
    private void rewrite(final int owner) {
        for (;;) {
            int kept = 0;
            for (int i = 0; i < size; i++) {
                final MemorySegment s = held[i];
                if (s.scope().isAlive() && (owner == 0 || owned(s, owner))) {
                    held[kept++] = s;
                }
            }
            Arrays.fill(held, kept, size, null);
            size = kept;
            try {
                long next = headAddress;
                for (int i = 0; i < size; i++) {
                    Block.LONG.setRelease(held[i], (long) MutexLayout.NEXT, next);
                    Block.LONG.setRelease(held[i], (long) MutexLayout.PREV,
                        i == size - 1 ? headAddress : node(held[i + 1]));
                    next = node(held[i]);
                }
                Block.LONG.setRelease(head, HEAD_NEXT, next);
                restoreWhenEmpty();
                return;
            } catch (final IllegalStateException closedMeanwhile) {
                // another entry's memory closed during the rewrite: drop it too
            }
        }
    }

    private static boolean owned(final MemorySegment s, final int owner) {
        try {
            return ((int) Block.INT.getVolatile(s, (long) MutexLayout.LOCK) & MutexLayout.OWNER_MASK) == owner;
        } catch (final IllegalStateException closed) {
            return false;
        }
    }

    /**
     * The head the kernel holds for the calling thread ({@code get_robust_list(0)}), for tests
     * and diagnostics.
     *
     * @return {head address, length}
     */
    static long[] kernelHead() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment out = arena.allocate(16, 8);
            final long r = Syscall.call(Syscall.SYS_GET_ROBUST_LIST, 0, out.address(), out.address() + 8, 0, 0, 0);
            if (r < 0) {
                throw new IllegalStateException("get_robust_list: " + Errno.name((int) -r));
            }
            return new long[] {out.get(ValueLayout.JAVA_LONG, 0), out.get(ValueLayout.JAVA_LONG, 8)};
        }
    }
}
