package org.pthread4j.futex;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * An absolute deadline as POSIX writes it: seconds and nanoseconds on a clock
 * ({@link #CLOCK_REALTIME} or {@link #CLOCK_MONOTONIC}, Linux's clock ids).
 *
 * <p>The record accepts any values, as a C {@code struct timespec} does; the operation that
 * receives one validates it and answers {@link Errno#EINVAL} when {@code nsec} is outside
 * {@code [0, 1e9)}, exactly as musl does (and only where musl does: a lock that can be taken
 * without waiting never looks at its deadline).
 *
 * <p>On Linux, {@link #CLOCK_REALTIME} is read with {@link Instant#now()} and
 * {@link #CLOCK_MONOTONIC} with {@link System#nanoTime()}; HotSpot reads both with
 * {@code clock_gettime}, so the figures are the kernel's own.
 *
 * @param sec  seconds since the clock's epoch
 * @param nsec nanoseconds, valid in {@code [0, 999_999_999]}
 */
public record Timespec(long sec, long nsec) {
    /** Wall-clock time; a deadline on it follows clock steps. */
    public static final int CLOCK_REALTIME = 0;
    /** Time since boot; never steps. */
    public static final int CLOCK_MONOTONIC = 1;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** {@return whether {@code nsec} is in {@code [0, 1e9)}, the only check POSIX asks for.} */
    public boolean isValid() {
        return nsec >= 0 && nsec < NANOS_PER_SECOND;
    }

    /** {@return the deadline in nanoseconds on its clock, saturated at {@code Long.MAX_VALUE}.} */
    public long toNanos() {
        if (sec >= Long.MAX_VALUE / NANOS_PER_SECOND) {
            return Long.MAX_VALUE;
        }
        if (sec <= Long.MIN_VALUE / NANOS_PER_SECOND) {
            return Long.MIN_VALUE;
        }
        return sec * NANOS_PER_SECOND + nsec;
    }

    /**
     * {@return whether the clock is one this library knows}
     *
     * @param clock {@link #CLOCK_REALTIME} or {@link #CLOCK_MONOTONIC}
     */
    public static boolean isClock(final int clock) {
        return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC;
    }

    /**
     * Reads a clock.
     *
     * @param clock {@link #CLOCK_REALTIME} or {@link #CLOCK_MONOTONIC}
     * @return the clock's time in nanoseconds
     * @throws IllegalArgumentException for any other clock
     */
    public static long nowNanos(final int clock) {
        return switch (clock) {
            case CLOCK_MONOTONIC -> System.nanoTime();
            case CLOCK_REALTIME -> {
                final Instant now = Instant.now();
                yield now.getEpochSecond() * NANOS_PER_SECOND + now.getNano();
            }
            default -> throw new IllegalArgumentException("unknown clock " + clock);
        };
    }

    /**
     * {@return the clock's current time as a timespec}
     *
     * @param clock the clock
     */
    public static Timespec now(final int clock) {
        return ofNanos(nowNanos(clock));
    }

    /**
     * The deadline {@code timeout} from now on {@code clock}, saturated rather than overflowing.
     *
     * @param clock   the clock
     * @param timeout the relative timeout; negative means already passed
     * @param unit    its unit
     * @return the absolute deadline
     */
    public static Timespec after(final int clock, final long timeout, final TimeUnit unit) {
        final long now = nowNanos(clock);
        final long rel = unit.toNanos(timeout);
        final long abs = rel > 0 && now > Long.MAX_VALUE - rel ? Long.MAX_VALUE : now + rel;
        return ofNanos(abs);
    }

    /**
     * {@return the same instant as a valid timespec}
     *
     * @param nanos nanoseconds since a clock's epoch
     */
    public static Timespec ofNanos(final long nanos) {
        return new Timespec(Math.floorDiv(nanos, NANOS_PER_SECOND), Math.floorMod(nanos, NANOS_PER_SECOND));
    }
}
