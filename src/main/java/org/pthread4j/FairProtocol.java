package org.pthread4j;

import org.pthread4j.futex.Errno;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Timespec;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

/**
 * The fair protocol: a ticket lock on futex words, for a lock made fair (a {@link Mutex} with
 * {@link MutexLayout#FAIR} in its type word), private or process-shared, on every backend. It
 * is not musl's: musl has no fair mutex, and a C process cannot share a fair mutex's word. A
 * thread takes the lock in the order it took a ticket (FIFO); an unlock hands the lock to the
 * next ticket, and a newcomer never takes a lock that a queued thread is owed.
 *
 * <h2>Implementation overview</h2>
 *
 * <p>Three more words of the lock's block (their offsets are the lock's: for a mutex
 * {@link MutexLayout#TICKET}, {@link MutexLayout#SERVING}, {@link MutexLayout#SKIP}):
 * <pre>
 *   ticket   the next ticket to hand out (taken by getAndAdd; tickets are its low 30 bits)
 *   serving  bits 0-29: the ticket that may hold the lock; bit 30: a release is reading the
 *            skip map; bit 31: a thread sleeps on this word
 *   skip     4 words, 128 bits: bit (t mod 128) set means ticket t was abandoned
 * </pre>
 * The lock is free when {@code serving == ticket} (low 30 bits), held by the thread whose
 * ticket {@code serving} names otherwise. The lock's own word (the mutex's {@code _m_lock})
 * keeps recording the owner, written by the served thread, so that ownership, recursion and
 * the errorcheck rules are the mutex's as usual; the waiter count counts the threads that hold
 * a ticket and are not yet served (the queue length).
 * <ul>
 * <li><b>Acquire</b>: {@code t = getAndAdd(ticket, 1)}; served at once when {@code serving == t}.
 *     A try ({@link #tryAcquire}) takes a ticket only by CAS from the value {@code serving}
 *     holds: it succeeds only on a free lock with nobody queued (a fair lock does not let a try
 *     barge past the queue).</li>
 * <li><b>Wait</b>: spin on {@code serving} for {@link Tuning#fairSpinNanos()} (pausing while it is
 *     next in line, yielding its CPU otherwise, so that on a machine with fewer CPUs than threads
 *     the holder and the next in line run), then sleep: CAS bit 31 into the value seen and
 *     futex-wait on exactly that value, as musl's waiters do on a lock word.</li>
 * <li><b>Release</b> of ticket {@code s} (an unlock, or a served thread that gives up): set bit 30
 *     of {@code serving} (RELEASING); the next ticket is {@code s+1}, or past it while the skip
 *     map says those were abandoned (each skipped bit cleared); then
 *     {@code getAndSet(serving, next)} hands the lock over and clears bit 30, and if the
 *     swapped-out value had bit 31 every sleeper is woken (each looks at its ticket and sleeps
 *     again, setting the bit, if it is not next). The skip map is read before the handing
 *     swap, and after it only the futex is touched, so the lock may be destroyed at once.</li>
 * <li><b>Leave</b> (timeout, interrupt, bad deadline) with ticket {@code t}: if it is served
 *     already, it releases {@code t} (hands on). Otherwise it sets skip bit {@code t mod 128},
 *     then looks at {@code serving} again. The race is with a release that reads the map before
 *     the bit is set and then hands the lock to {@code t}: a release marks {@code serving}
 *     RELEASING before it reads the map, and the leaver sets its bit before it looks, so either
 *     the release sees the bit, or the leaver sees the mark (or the hand-over itself). Seeing the
 *     mark, the leaver waits (a few steps of a running thread) until that release has handed
 *     the lock on; then, if {@code serving} is {@code t}, whichever of the two clears the bit
 *     (one atomic and-not, which returns the old bits) owns the grant of {@code t}: the releaser
 *     skips it; the leaver, clearing it itself, releases {@code t}. Without the mark the release
 *     could read the map, the leaver set its bit and look at the old {@code serving}, and the
 *     release then hand the lock to a ticket nobody holds: the queue would stall. A ticket 128 or more
 *     behind {@code serving} cannot be mapped (its bit could be another abandoned ticket's): it
 *     waits, uninterruptibly, until it is within 128, then leaves; so with 128 or more threads
 *     queued a timeout or an interrupt can be answered late, never lost, and the queue never
 *     stalls.</li>
 * </ul>
 * The map is unambiguous because a bit is set only for a ticket {@code t} with
 * {@code t - serving < 128} at that moment, {@code serving} only grows, and it cannot pass a
 * mapped ticket without clearing its bit: the set bits always name tickets in
 * {@code [serving, serving + 128)}, which are distinct modulo 128.
 *
 * <p>The musl-loop call points of {@link Protocol} ({@link #spin}, {@link #mark}, {@link #sleep})
 * are never called on a fair lock: its lock, trylock and unlock call {@link #acquire},
 * {@link #tryAcquire} and {@link #release} instead.
 */
final class FairProtocol extends Protocol {
    /** Tickets are the low 30 bits of the ticket word and of {@code serving}. */
    static final int MASK = 0x3fffffff;
    /** Bit 30 of {@code serving}: a release is reading the skip map before it hands the lock on. */
    static final int RELEASING = 0x40000000;
    /** Bit 31 of {@code serving}: a thread sleeps on it. */
    static final int SLEEPING = Integer.MIN_VALUE;
    /** The skip map's size in tickets: 4 words. */
    static final int WINDOW = 128;
    /** A waiter further back than this in the queue yields its CPU between looks instead of pausing. */
    static final int NEAR = 1;

    private final long ticket;
    private final long serving;
    private final long skip;
    private final Tuning tuning;

    /**
     * @param futex   the backend the serving word sleeps on
     * @param priv    whether the words are process-private
     * @param seg     the lock's segment
     * @param word    the lock's own word (the owner)
     * @param waiters the waiter count's offset (the queue length)
     * @param ticket  the ticket word's offset
     * @param serving the serving word's offset
     * @param skip    the first of the four skip words' offset
     * @param tuning  the spin's bound
     */
    FairProtocol(final Futex futex, final boolean priv, final MemorySegment seg, final long word, final long waiters,
                 final long ticket, final long serving, final long skip, final Tuning tuning) {
        super(futex, priv, seg, word, waiters);
        this.ticket = ticket;
        this.serving = serving;
        this.skip = skip;
        this.tuning = tuning;
    }

    @Override
    SleepProtocol kind() {
        return SleepProtocol.FAIR;
    }

    // ---------------------------------------------------------------------------------------
    // acquire

    /**
     * Takes the lock if it is free and nobody is queued: one CAS of the ticket word.
     *
     * @return whether the caller now holds the lock's ticket
     */
    boolean tryAcquire() {
        final int t = get(ticket);
        return (t & MASK) == (get(serving) & MASK) && (int) Block.INT.compareAndExchange(seg, ticket, t, t + 1) == t;
    }

    /**
     * Takes a ticket and waits until it is served, or gives it up.
     *
     * @param clock         the deadline's clock
     * @param at            the absolute deadline, or {@code null}
     * @param interruptible whether an interrupt ends the wait
     * @return 0 (served: the caller holds the lock), or ETIMEDOUT, EINTR, EINVAL (the ticket was
     *     given up, and handed on if it was served meanwhile)
     */
    int acquire(final int clock, final Timespec at, final boolean interruptible) {
        final int t = (int) Block.INT.getAndAdd(seg, ticket, 1) & MASK;
        if ((get(serving) & MASK) == t) {
            return 0;
        }
        count(1);
        try {
            return await(t, clock, at, interruptible);
        } finally {
            count(-1);
        }
    }

    private int await(final int t, final int clock, final Timespec at, final boolean interruptible) {
        final long start = System.nanoTime();
        boolean checked = false;
        long end = 0;
        for (;;) {
            final int sv = get(serving);
            final int s = sv & MASK;
            if (s == t) {
                return 0;
            }
            if (interruptible && Thread.currentThread().isInterrupted()) {
                return leave(t, Errno.EINTR);
            }
            if (at != null) {
                if (!checked) {
                    if (!Timespec.isClock(clock) || !at.isValid()) {
                        return leave(t, Errno.EINVAL);
                    }
                    end = at.toNanos();
                    checked = true;
                }
                if (Timespec.nowNanos(clock) - end >= 0) {
                    return leave(t, Errno.ETIMEDOUT);
                }
            }
            if (System.nanoTime() - start < tuning.fairSpinNanos()) {
                if (((t - s) & MASK) <= NEAR) {
                    for (int i = 0; i < Tuning.MAX_STEP && (get(serving) & MASK) != t; i++) {
                        Thread.onSpinWait();
                    }
                } else {
                    Thread.yield();
                }
                continue;
            }
            if ((sv & SLEEPING) == 0 && (int) Block.INT.compareAndExchange(seg, serving, sv, sv | SLEEPING) != sv) {
                continue;
            }
            final int r = futex.timedWait(seg, serving, sv | SLEEPING, priv, clock, at, interruptible);
            if (r == Errno.ETIMEDOUT || r == Errno.EINTR || r == Errno.EINVAL) {
                return leave(t, r);
            }
        }
    }

    /**
     * Gives ticket {@code t} up: hands it on if it is served, else marks it in the skip map (see
     * the class overview).
     *
     * @return {@code r}
     */
    private int leave(final int t, final int r) {
        int s = get(serving) & MASK;
        while (s != t && ((t - s) & MASK) >= WINDOW) {
            // Too far back to be mapped: wait, uninterruptibly, until it is within the window.
            final int sv = get(serving);
            if ((sv & MASK) == s && ((sv & SLEEPING) != 0
                || (int) Block.INT.compareAndExchange(seg, serving, sv, sv | SLEEPING) == sv)) {
                futex.timedWait(seg, serving, sv | SLEEPING, priv, Timespec.CLOCK_MONOTONIC, null, false);
            }
            s = get(serving) & MASK;
        }
        if (s == t) {
            release(t);
            return r;
        }
        final long w = skip + 4L * ((t & (WINDOW - 1)) >>> 5);
        final int bit = 1 << (t & 31);
        Block.INT.getAndBitwiseOr(seg, w, bit);
        // A release that read the map before the bit was set is one that had marked serving RELEASING
        // before this look: wait until it has handed the lock on, then see whether it handed it to t.
        int sv = get(serving);
        if ((sv & RELEASING) != 0) {
            final int from = sv & MASK;
            for (int i = 0; ((sv = get(serving)) & RELEASING) != 0 && (sv & MASK) == from; i++) {
                if (i < Tuning.MAX_STEP) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
        if ((sv & MASK) == t && clearSkip(t)) {
            // That release handed the lock to t without seeing the bit: the grant is ours to hand on.
            release(t);
        }
        return r;
    }

    /** Clears ticket {@code t}'s skip bit; {@return whether it was set (the caller owns t's grant)} */
    private boolean clearSkip(final int t) {
        final long w = skip + 4L * ((t & (WINDOW - 1)) >>> 5);
        final int bit = 1 << (t & 31);
        if ((get(w) & bit) == 0) {
            return false;
        }
        return ((int) Block.INT.getAndBitwiseAnd(seg, w, ~bit) & bit) != 0;
    }

    // ---------------------------------------------------------------------------------------
    // release

    /** {@return the ticket being served (the holder's, while the lock is held)} */
    int serving() {
        return get(serving) & MASK;
    }

    /** {@return whether a ticket is outstanding: the lock is held or handed over, or threads are queued} */
    boolean busy() {
        return (get(ticket) & MASK) != (get(serving) & MASK);
    }

    /**
     * Releases ticket {@code s}: hands the lock to the next ticket not abandoned, then wakes the
     * sleepers if any. After the handing swap it touches nothing but the futex.
     *
     * @param s the ticket being released (the caller holds it)
     */
    void release(final int s) {
        // Marked first: a leaver that sets its skip bit after this release read the map sees the mark.
        Block.INT.getAndBitwiseOr(seg, serving, RELEASING);
        int next = (s + 1) & MASK;
        while (clearSkip(next)) {
            next = (next + 1) & MASK;
        }
        final int old = (int) Block.INT.getAndSet(seg, serving, next);
        if (old < 0) {
            futex.wake(seg, serving, -1, priv);
        }
    }

    /**
     * The threads asleep on the serving word, as the parking backend sees them.
     *
     * @return the serving word's offset
     */
    long sleepWord() {
        return serving;
    }

    private int get(final long off) {
        return (int) Block.INT.getVolatile(seg, off);
    }

    // ---------------------------------------------------------------------------------------
    // the musl loop's call points: not used by a fair lock

    @Override
    boolean spin(final int busy, final boolean yields) {
        throw new IllegalStateException("a fair lock does not run the musl loop");
    }

    @Override
    int mark(final int turns) {
        throw new IllegalStateException("a fair lock does not run the musl loop");
    }

    @Override
    int sleep(final int seen, final int busy, final int turns, final int clock, final Timespec at,
              final boolean interruptible) {
        throw new IllegalStateException("a fair lock does not run the musl loop");
    }

    /** Nothing: a fair waiter that leaves hands its ticket on itself ({@link #leave}). */
    @Override
    void passWake() {
    }

    /** Every sleeper: each looks at its own ticket. */
    @Override
    int wakeCount(final int cnt) {
        return -1;
    }

    /** None: {@link #release} wakes by bit 31 of the serving word. */
    @Override
    int waiters() {
        return 0;
    }
}
