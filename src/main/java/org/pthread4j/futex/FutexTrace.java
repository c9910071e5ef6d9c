package org.pthread4j.futex;


import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A switch that records every futex-layer operation (thread, word, operation, expected
 * value, result, time) into a bounded in-memory ring, for teaching and debugging: it shows
 * the fast paths making no futex call at all, the waiters bit turning a release into a wake,
 * and a requeue moving a waiter without waking it.
 *
 * <p>Off by default. Turn it on with {@link #enable(int)} or the system property
 * {@value #PROPERTY} (a ring capacity, or {@code true} for {@value #DEFAULT_CAPACITY}). When off,
 * each futex operation pays one volatile read of a static field; the uncontended paths of the
 * primitives make no futex operation, so they pay nothing. Recording never changes what an
 * operation does or returns.
 *
 * <p>See {@code docs/01-futex.md}: the words, the states, the races and the tests that prove them.
 */
public final class FutexTrace {
    /** System property that enables the trace at start-up. */
    public static final String PROPERTY = "pthread4j.trace";
    /** Ring capacity used when none is given. */
    public static final int DEFAULT_CAPACITY = 4096;

    /**
     * One recorded operation.
     *
     * <p>The sequence number and the time are taken together, under the ring's lock, so the
     * times of the events are in the order of their numbers. A wake or requeue is stamped when
     * it is issued and recorded when it returns, so it comes before every wait it ended. A wait
     * is recorded when it returns; with {@link #enable(int, boolean)}'s {@code sleeps}, also when
     * it starts sleeping (an event with {@link #sleeping()} true: on the parking backend at the
     * moment it is queued, under the bucket lock; on the kernel backend just before it enters
     * the kernel, which may still turn it away).
     *
     * @param seq      order of recording (global, gap-free while the ring does not wrap)
     * @param nanos    {@link System#nanoTime()} when the wake or requeue was issued, the wait
     *                 started sleeping, or the wait returned
     * @param thread   the calling thread's name
     * @param backend  the backend's name
     * @param op       {@code wait}, {@code wake}, {@code requeue}, {@code cmp_requeue}, and on the parking
     *                 backend {@code set_wait}, {@code set_bit_wait}, {@code set_bit_wait_join} and
     *                 {@code swap} (the kernel backend composes those from a read or CAS, a wake and a
     *                 wait, and records the wait and the wake)
     * @param address  the word's address
     * @param priv     the private flag the caller asked for
     * @param value    the expected value (waits), the bit (set-bit waits) or the count (wakes)
     * @param address2 the second word (requeue, swap), or 0
     * @param result   what the operation returned (errno for waits, count or -errno otherwise); 0 for
     *                 a {@link #sleeping()} event
     * @param sleeping whether this event marks a wait starting to sleep rather than returning
     * @param from     for a wait that returned 0 on the parking backend: the word it was queued on
     *                 when it was woken ({@code address}, or the word a requeue moved it to); else 0
     *                 (the kernel does not say)
     */
    public record Event(long seq, long nanos, String thread, String backend, String op, long address, boolean priv,
                        long value, long address2, int result, boolean sleeping, long from) {
        /** {@return the event as one timeline line, times relative to {@code origin}} */
        String format(final long origin) {
            final String res = sleeping ? "sleeps"
                : op.equals("wait") || op.startsWith("set_") || op.equals("swap")
                ? Errno.name(result) + (from != 0 && from != address ? String.format(" from=%#x", from) : "")
                : (result < 0 ? Errno.name(result) : Integer.toString(result));
            return String.format("%10.3f us  %-14s %-8s %-12s word=%#x%s val=%d -> %s",
                (nanos - origin) / 1e3, thread, backend, op + (priv ? "" : "(shared)"), address,
                address2 != 0 ? " to=" + String.format("%#x", address2) : "", value, res);
        }
    }

    /**
     * When a wake or requeue was issued: its sequence number and time, taken together.
     *
     * @param ring  the ring the number belongs to
     * @param seq   the sequence number reserved for the operation
     * @param nanos the time it was issued
     */
    record Stamp(Object ring, long seq, long nanos) {
    }

    private static volatile Ring ring;

    /** The ring: a fixed array written round-robin by a counter. */
    private static final class Ring {
        final AtomicReferenceArray<Event> events;
        final AtomicLong next = new AtomicLong();
        final boolean sleeps;

        Ring(final int capacity, final boolean sleeps) {
            events = new AtomicReferenceArray<>(capacity);
            this.sleeps = sleeps;
        }

        /** A sequence number and a time, taken together so that times follow numbers. */
        synchronized Stamp stamp() {
            return new Stamp(this, next.getAndIncrement(), System.nanoTime());
        }
    }

    static {
        final String p = System.getProperty(PROPERTY);
        if (p != null && !p.isBlank() && !p.equalsIgnoreCase("false")) {
            enable(p.equalsIgnoreCase("true") ? DEFAULT_CAPACITY : Integer.parseInt(p.trim()));
        }
    }

    private FutexTrace() {
    }

    /**
     * Starts recording into a new, empty ring.
     *
     * @param capacity how many of the latest operations to keep, at least 1
     */
    public static void enable(final int capacity) {
        enable(capacity, false);
    }

    /**
     * Starts recording into a new, empty ring.
     *
     * @param capacity how many of the latest operations to keep, at least 1
     * @param sleeps   whether a wait is also recorded when it starts sleeping (an event with
     *                 {@link Event#sleeping()} true), besides when it returns
     */
    public static void enable(final int capacity, final boolean sleeps) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        ring = new Ring(capacity, sleeps);
    }

    /** Stops recording and drops what was recorded. */
    public static void disable() {
        ring = null;
    }

    /** {@return whether operations are being recorded} */
    public static boolean isEnabled() {
        return ring != null;
    }

    /** Empties the ring, keeping the trace on. */
    public static void clear() {
        final Ring r = ring;
        if (r != null) {
            ring = new Ring(r.events.length(), r.sleeps);
        }
    }

    /** Records an operation that returned just now: a wait's return, or any operation not stamped when issued. */
    static void record(final Futex backend, final String op, final long address, final boolean priv, final long value,
                       final long address2, final int result) {
        returned(backend, op, address, priv, value, address2, result, 0);
    }

    /** Records a wait that returned just now; {@code from} is the word it was woken from, or 0. */
    static void returned(final Futex backend, final String op, final long address, final boolean priv,
                         final long value, final long address2, final int result, final long from) {
        final Ring r = ring;
        if (r == null) {
            return;
        }
        put(r, r.stamp(), backend, op, address, priv, value, address2, result, false, from);
    }

    /**
     * Records, if asked for, that a wait starts sleeping now. A backend calls it only for a wait
     * that found the trace on when it started ({@link #isEnabled()}), so a wait with the trace
     * off reads the switch once, as every other operation does.
     */
    static void sleeping(final Futex backend, final String op, final long address, final boolean priv,
                         final long value, final long address2) {
        final Ring r = ring;
        if (r == null || !r.sleeps) {
            return;
        }
        put(r, r.stamp(), backend, op, address, priv, value, address2, 0, true, 0);
    }

    /** {@return the stamp of an operation issued now (a wake, a requeue), or null when the trace is off} */
    static Stamp issued() {
        final Ring r = ring;
        return r == null ? null : r.stamp();
    }

    /** Records an operation stamped by {@link #issued()} when it was issued; nothing if it was off then. */
    static void record(final Stamp stamp, final Futex backend, final String op, final long address,
                       final boolean priv, final long value, final long address2, final int result) {
        if (stamp == null) {
            return; // off when the operation was issued: nothing more is read
        }
        final Ring r = ring;
        if (r == null || stamp.ring() != r) {
            return;
        }
        put(r, stamp, backend, op, address, priv, value, address2, result, false, 0);
    }

    private static void put(final Ring r, final Stamp stamp, final Futex backend, final String op,
                            final long address, final boolean priv, final long value, final long address2,
                            final int result, final boolean sleeping, final long from) {
        r.events.set((int) (stamp.seq() % r.events.length()), new Event(stamp.seq(), stamp.nanos(),
            Thread.currentThread().getName(), backend.name(), op, address, priv, value, address2, result,
            sleeping, from));
    }

    /** {@return the recorded operations, oldest first} */
    public static List<Event> snapshot() {
        final Ring r = ring;
        final List<Event> out = new ArrayList<>();
        if (r == null) {
            return out;
        }
        final long end = r.next.get();
        final int cap = r.events.length();
        for (long s = Math.max(0, end - cap); s < end; s++) {
            final Event e = r.events.get((int) (s % cap));
            if (e != null && e.seq() == s) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * Prints the recorded operations as a timeline, times relative to the first.
     *
     * @param out where to print
     */
    public static void print(final PrintStream out) {
        final List<Event> events = snapshot();
        if (events.isEmpty()) {
            out.println("(no futex operations recorded)");
            return;
        }
        final long origin = events.getFirst().nanos();
        for (final Event e : events) {
            out.println(e.format(origin));
        }
    }
}
