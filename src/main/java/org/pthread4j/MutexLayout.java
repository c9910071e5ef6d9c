package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.pthread4j.memory.Block;

/**
 * The byte layout of musl's x86_64 {@code pthread_mutex_t} (a union of {@code int[10]}, 40
 * bytes; {@code src/internal/pthread_impl.h}), and the bits of its type and lock words.
 * {@link Mutex} uses these names and never a raw offset, so a reader can hold it next to
 * musl's {@code src/thread/pthread_mutex_*.c}, and a C process linked with musl can share a
 * mutex with a JVM through a mapped file.
 *
 * <pre>
 *  offset  field        meaning
 *   0      _m_type      attribute bits, written once by init: kind | ROBUST | PSHARED
 *   4      _m_lock      the futex word: owner tid, OWNER_DIED, WAITERS_BIT (NORMAL: 0 / EBUSY)
 *   8      _m_waiters   threads in the sleeping phase of lock
 *  20      _m_count     extra recursive acquisitions (0 = held once)
 *  24      _m_prev      robust list: address of the slot that points at this node
 *  32      _m_next      robust list: this field IS the node; the next node or the list head
 * </pre>
 *
 * <p>A <em>fair</em> mutex ({@link #FAIR} in {@code _m_type}, an extension of this library that
 * musl does not know) is never robust and never on a robust list, and uses the words musl leaves
 * unused and the list fields as a ticket lock ({@link FairProtocol}):
 * <pre>
 *  offset  field        meaning (fair mutex only)
 *   4      _m_lock      the owner, as for any mutex (written by the served thread; no bit 31)
 *   8      _m_waiters   threads holding a ticket not yet served: the queue length
 *  12      ticket       the next ticket to hand out (tickets are its low 30 bits)
 *  16      serving      bits 0-29 the ticket that holds the lock; bit 30 a release is in
 *                       progress; bit 31 someone sleeps on it
 *  24..39  skip         4 words, 128 bits: bit (t mod 128) set when ticket t was abandoned
 * </pre>
 *
 * <p>See {@code docs/02-mutex.md}: the words, the states, the races and the tests that prove them.
 */
public final class MutexLayout {
    /** Size of {@code pthread_mutex_t} on LP64: 40 bytes. */
    public static final int SIZE = 40;
    /** Required alignment of a mutex block: 8, for the two pointer fields. */
    public static final int ALIGNMENT = 8;

    /** {@code _m_type} ({@code __i[0]}): the attribute bits, copied from the attributes at init. */
    public static final int TYPE = 0;
    /** {@code _m_lock} ({@code __vi[1]}): the lock word and futex. */
    public static final int LOCK = TYPE + 4;
    /** {@code _m_waiters} ({@code __vi[2]}): how many threads sleep (or are about to) in lock. */
    public static final int WAITERS = LOCK + 4;
    /** {@code _m_count} ({@code __i[5]}): recursive acquisitions beyond the first. */
    public static final int COUNT = 20;
    /** {@code _m_prev} ({@code __p[3]}): robust-list back link, the slot that points at this node. */
    public static final int PREV = 24;
    /** {@code _m_next} ({@code __p[4]}): robust-list forward link; its address is the list node. */
    public static final int NEXT = PREV + 8;
    /**
     * The kernel robust list's {@code futex_offset}: lock word minus node ({@code &_m_lock -
     * &_m_next}), -28 on LP64, as musl registers it.
     */
    public static final int ROBUST_FUTEX_OFFSET = LOCK - NEXT;

    /** {@code _m_type} bits 0-1: the kind. */
    public static final int KIND_MASK = 3;
    /** Kind 0: no owner tracking; relock deadlocks; any thread may unlock (POSIX DEFAULT). */
    public static final int NORMAL = 0;
    /** Kind 1: the owner may lock again; as many unlocks release it. */
    public static final int RECURSIVE = 1;
    /** Kind 2: relock answers EDEADLK, unlock by a non-owner EPERM. */
    public static final int ERRORCHECK = 2;
    /** {@code _m_type} bit 2: robust; the next locker after the owner's death gets EOWNERDEAD. */
    public static final int ROBUST = 4;
    /** {@code _m_type} bit 3: priority inheritance. Not supported here: refused by {@link #checkType}. */
    public static final int PRIO_INHERIT = 8;
    /** {@code _m_type} bits 0-3: nonzero means owner-tracked (anything but a plain NORMAL mutex). */
    public static final int OWNER_TRACKED_MASK = 15;
    /** {@code _m_type} bit 7: process-shared; futex calls omit the private flag. */
    public static final int PSHARED = 128;
    /**
     * {@code _m_type} bit 6, this library's and not musl's: fair (FIFO), a ticket lock on the
     * words {@link #TICKET}, {@link #SERVING} and {@link #SKIP}. Never with {@link #ROBUST}.
     */
    public static final int FAIR = 64;

    /** Fair mutex: the next ticket to hand out ({@code __i[3]}, unused by musl). */
    public static final int TICKET = 12;
    /**
     * Fair mutex: the ticket being served (bits 0-29), bit 30 while a release reads the skip map,
     * bit 31 when a thread sleeps on it ({@code __i[4]}, unused by musl).
     */
    public static final int SERVING = 16;
    /** Fair mutex: the first of the four skip-map words (over {@code _m_prev} and {@code _m_next}). */
    public static final int SKIP = PREV;

    /** {@code _m_lock} bits 0-29: the owner's thread id; 0 when free or when the owner died. */
    public static final int OWNER_MASK = 0x3fffffff;
    /** {@code _m_lock} bit 30 ({@code FUTEX_OWNER_DIED}): the owner died; inconsistent until {@code consistent}. */
    public static final int OWNER_DIED = 0x40000000;
    /** {@code _m_lock} bit 31 ({@code FUTEX_WAITERS}): a thread may sleep on the word. */
    public static final int WAITERS_BIT = 0x80000000;
    /** {@code _m_lock} value of a robust mutex unlocked while inconsistent: never acquirable again. */
    public static final int UNRECOVERABLE = 0x7fffffff;
    /** {@code _m_lock} value of a locked NORMAL mutex (musl stores EBUSY so trylock can return it). */
    public static final int NORMAL_LOCKED = Errno.EBUSY;

    private MutexLayout() {
    }

    /**
     * Refuses a block a mutex cannot live in.
     *
     * @param block the block
     * @throws IllegalArgumentException when it is smaller than {@link #SIZE} bytes or its
     *                                  address is not {@link #ALIGNMENT}-aligned
     */
    public static void checkBlock(final Block block) {
        if (block.size() < SIZE) {
            throw new IllegalArgumentException("a mutex needs " + SIZE + " bytes, " + block + " has " + block.size());
        }
        if ((block.address(0) & (ALIGNMENT - 1)) != 0) {
            throw new IllegalArgumentException("a mutex needs " + ALIGNMENT + "-byte alignment, " + block
                + " starts at 0x" + Long.toHexString(block.address(0)));
        }
    }

    /**
     * Refuses an {@code _m_type} value this library does not implement: an unknown kind (3),
     * priority inheritance, fair and robust together, or any bit musl does not define but
     * {@link #FAIR}.
     *
     * @param type the {@code _m_type} word
     * @return {@code type}
     * @throws IllegalArgumentException when it is not a supported combination
     */
    public static int checkType(final int type) {
        if ((type & PRIO_INHERIT) != 0) {
            throw new IllegalArgumentException("_m_type 0x" + Integer.toHexString(type)
                + ": priority-inheritance mutexes are not supported");
        }
        if ((type & ~(KIND_MASK | ROBUST | PSHARED | FAIR)) != 0 || (type & KIND_MASK) == 3) {
            throw new IllegalArgumentException("_m_type 0x" + Integer.toHexString(type)
                + " is not a mutex type (kind 0-2, robust 4, fair 64, pshared 128): not an initialized mutex?");
        }
        if ((type & (FAIR | ROBUST)) == (FAIR | ROBUST)) {
            throw new IllegalArgumentException("_m_type 0x" + Integer.toHexString(type)
                + ": a fair mutex cannot be robust (a dead owner's ticket would stall the queue)");
        }
        return type;
    }
}
