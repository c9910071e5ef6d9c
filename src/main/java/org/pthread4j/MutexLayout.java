package org.pthread4j;

/**
 * Interim stand-in for the mutex branch's layout class (musl's x86_64 {@code pthread_mutex_t}).
 * Replaced wholesale when the mutex lands.
 */
public final class MutexLayout {
    /** Size of {@code pthread_mutex_t}. */
    public static final int SIZE = 40;
    /** {@code _m_type}. */
    public static final int TYPE = 0;
    /** {@code _m_lock}. */
    public static final int LOCK = 4;
    /** {@code _m_waiters}. */
    public static final int WAITERS = 8;
    /** {@code _m_count}. */
    public static final int COUNT = 20;
    /** {@code _m_prev}. */
    public static final int PREV = 24;
    /** {@code _m_next}. */
    public static final int NEXT = 32;
    /** Kind bits of {@code _m_type}. */
    public static final int KIND_MASK = 3;
    /** NORMAL kind. */
    public static final int NORMAL = 0;
    /** RECURSIVE kind. */
    public static final int RECURSIVE = 1;
    /** ERRORCHECK kind. */
    public static final int ERRORCHECK = 2;
    /** Robust bit. */
    public static final int ROBUST = 4;
    /** Process-shared bit. */
    public static final int PSHARED = 128;
    /** Owner id bits of {@code _m_lock}. */
    public static final int OWNER_MASK = 0x3fffffff;
    /** Owner-died bit. */
    public static final int OWNER_DIED = 0x40000000;
    /** Waiters bit. */
    public static final int WAITERS_BIT = 0x80000000;

    private MutexLayout() {
    }
}
