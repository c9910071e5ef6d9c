package org.pthread4j.ipc;

/**
 * What a slot of a sync file holds, with the code stored in its directory entry and the size
 * of musl's x86_64 type. {@link #RAW} is a block of any size for the caller's own use (an
 * Agrona ring buffer next to the primitives that guard it, for example).
 */
public enum SlotType {
    /** {@code pthread_mutex_t}, 40 bytes. */
    MUTEX(1, "mutex", 40),
    /** {@code pthread_cond_t}, 48 bytes. */
    COND(2, "cond", 48),
    /** {@code pthread_rwlock_t}, 56 bytes. */
    RWLOCK(3, "rwlock", 56),
    /** {@code sem_t}, 32 bytes. */
    SEM(4, "sem", 32),
    /** {@code pthread_barrier_t}, 32 bytes. */
    BARRIER(5, "barrier", 32),
    /** {@code pthread_once_t}, 4 bytes. */
    ONCE(6, "once", 4),
    /** {@code pthread_spinlock_t}, 4 bytes. */
    SPIN(7, "spin", 4),
    /** Raw bytes of any size of at least 4. */
    RAW(8, "raw", 0),
    /** A {@link FutexDoorbell}, 8 bytes. */
    DOORBELL(9, "doorbell", FutexDoorbell.SIZE);

    /** Smallest raw slot. */
    public static final int MIN_RAW_SIZE = 4;

    private static final SlotType[] BY_CODE = new SlotType[10];

    static {
        for (final SlotType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final String label;
    private final int size;

    SlotType(final int code, final String label, final int size) {
        this.code = code;
        this.label = label;
        this.size = size;
    }

    /** {@return the code stored in a directory entry} */
    public int code() {
        return code;
    }

    /** {@return the lower-case name used in messages and by {@code inspect}} */
    public String label() {
        return label;
    }

    /** {@return the size of musl's type in bytes, or 0 for {@link #RAW} (any size)} */
    public int size() {
        return size;
    }

    /**
     * {@return whether a slot of this type may have that size}
     *
     * @param size a slot size
     */
    public boolean accepts(final long size) {
        return this == RAW ? size >= MIN_RAW_SIZE && size <= Integer.MAX_VALUE : size == this.size;
    }

    /**
     * {@return the type, or null for an unknown code}
     *
     * @param code a stored type code
     */
    public static SlotType ofCode(final int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
