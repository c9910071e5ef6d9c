package org.pthread4j.internal;

/**
 * Per-thread objects found without a {@link ThreadLocal} lookup: a table of slots indexed by
 * {@link Thread#threadId()} modulo its size, each holding the entry of the last thread of that
 * index that stored one. A lock's hot path reads its caller's identity or hold count here, and
 * falls back to a {@code ThreadLocal} (then {@link #put}) on a miss.
 *
 * <p>The table is an array of the caller's entry type, made with {@link #length(int)}:
 * {@code new Holds[ThreadTable.length(16)]}. An array rather than an object, so that a table in
 * a {@code static final} field is a constant to the JIT, and of the entry type, so that a lookup
 * needs no cast. Measured with JMH {@code MutexBenchmark -p kind=RECURSIVE -bm avgt -t 1 -f 3}, two
 * runs each: {@code PthreadLock} took 1.08-1.09x {@code ReentrantLock}'s time this way, and
 * 1.13-1.16x through a table object with a generic getter (whose fields the JIT does not fold
 * and whose result needs a cast).
 *
 * <p>Why a table and not a cache of the last caller: a slot is written only on a miss (a
 * thread's first lookup, or after a thread of a colliding index took the slot), so threads that
 * take turns on a lock only read it. A cache of the last caller is rewritten at every handoff,
 * and its cache line then moves between the CPUs: 2 threads on one RECURSIVE mutex ran at 0.42x
 * {@code ReentrantLock}'s throughput with such a cache, 1.22x with this table (JMH
 * {@code MutexBenchmark -t 2}). The slots used lie between unused ones, so that no cache line of
 * the table is shared with another object's fields.
 *
 * <p>Thread safety without ordering: slots are plain array elements, and racing threads of one
 * index may overwrite each other's entry, which only costs a later miss. {@link #get} accepts
 * only an entry whose thread id is the caller's, and {@link #put} stores only entries the caller
 * made, so an entry {@code get} returns was made and stored by the calling thread itself: no
 * entry is ever published to another thread. Thread ids are never reused by the JVM. Entries
 * hold an id, not the thread, so a table keeps no ended thread reachable.
 */
public final class ThreadTable {
    /** Unused slots on each side: 64 bytes of compressed references. */
    private static final int PAD = 16;

    /** What a table holds: an object made by, and belonging to, one thread. */
    public abstract static class Entry {
        final long thread;

        /** Records the calling thread as the entry's thread. */
        protected Entry() {
            this.thread = Thread.currentThread().threadId();
        }

        /** {@return {@link Thread#threadId()} of the thread that made the entry} */
        public final long threadId() {
            return thread;
        }
    }

    private ThreadTable() {
    }

    /**
     * {@return the length of the array that makes a table of {@code size} slots}
     *
     * @param size the number of slots, a power of two
     * @throws IllegalArgumentException when {@code size} is not a positive power of two, or too large
     */
    public static int length(final int size) {
        if (size <= 0 || (size & (size - 1)) != 0 || size > 1 << 24) {
            throw new IllegalArgumentException("a thread table has a power of two of slots, at most 2^24, not " + size);
        }
        return PAD + size + PAD;
    }

    /**
     * {@return the calling thread's entry, or {@code null} when its slot holds another's or none}
     *
     * @param table an array made with {@link #length(int)}
     * @param <T>   the entry type
     * @throws ArrayIndexOutOfBoundsException for an array not made with {@link #length(int)}
     */
    public static <T extends Entry> T get(final T[] table) {
        final long t = Thread.currentThread().threadId();
        final T e = table[PAD + ((int) t & (table.length - 2 * PAD - 1))];
        return e != null && e.thread == t ? e : null;
    }

    /**
     * Stores the calling thread's entry in its slot, replacing whatever was there.
     *
     * @param table an array made with {@link #length(int)}
     * @param entry an entry the calling thread made
     * @param <T>   the entry type
     * @return {@code entry}
     * @throws IllegalArgumentException       when another thread made the entry
     * @throws ArrayIndexOutOfBoundsException for an array not made with {@link #length(int)}
     */
    public static <T extends Entry> T put(final T[] table, final T entry) {
        final long t = Thread.currentThread().threadId();
        if (entry.thread != t) {
            throw new IllegalArgumentException("thread " + t + " cannot store the entry of thread " + entry.thread);
        }
        table[PAD + ((int) t & (table.length - 2 * PAD - 1))] = entry;
        return entry;
    }
}
