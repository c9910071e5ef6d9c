package org.pthread4j.ipc;

import org.agrona.concurrent.IdleStrategy;
import org.pthread4j.futex.Timespec;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * An Agrona {@link IdleStrategy} that spins, then yields, then sleeps on a
 * {@link FutexDoorbell} until a producer rings it: a consumer of a ring buffer in shared memory
 * costs no CPU while the buffer stays empty, and wakes within one futex wake-up of the next
 * message, in this process or another.
 *
 * <p>The states, one step per {@link #idle()} call without work: a spin of
 * {@link Thread#onSpinWait()} calls, then {@code yields} calls of {@link Thread#yield()}, then one
 * call that registers as a sleeper on the doorbell and returns, so the caller polls once more
 * after registering (this poll is what makes a lost wake-up impossible, see
 * {@link FutexDoorbell}), then calls that each sleep until the doorbell's sequence moves.
 * {@link #reset()}, or {@link #idle(int)} with work, leaves the sleeper registration and starts
 * over.
 *
 * <p>How long the spin lasts:
 * <ul>
 * <li>{@link #FutexIdleStrategy(FutexDoorbell)} and {@link #FutexIdleStrategy(FutexDoorbell, Duration)}
 *     adapt it to the traffic. Each idle period that ends with work measures the gap it waited
 *     (from its first {@code idle} call to the work). When that gap was at most half the
 *     maximum spin, the next spin lasts at least twice the gap, so a consumer whose messages
 *     come at a steady rate sees the next one while spinning, as a busy-spinning consumer
 *     would, and makes the producer's {@link FutexDoorbell#ring()} no system call. After a
 *     longer gap the next spin lasts half as long as the last one, down to
 *     {@link #MIN_SPIN_NANOS} (about what a sleep and a wake cost): one late message costs the
 *     next one a sleep at most, and traffic sparser than the maximum allows, or an idle ring,
 *     soon costs no CPU. The price: while messages come at most half a maximum spin apart, the
 *     consumer uses a CPU, as a busy-spinning one does.</li>
 * <li>{@link #FutexIdleStrategy(FutexDoorbell, int, int)} spins a fixed number of
 *     {@link Thread#onSpinWait()} calls and never adapts.</li>
 * </ul>
 *
 * <p>A sleeping consumer answers {@link Thread#interrupt()} within 20 ms: {@code idle} returns
 * with the interrupt status set, as an Agrona agent runner expects when it closes. A strategy is
 * used by one consumer thread; each consumer has its own.
 */
public final class FutexIdleStrategy implements IdleStrategy {
    /** Spins before yielding of the fixed-count constructor's usual value. */
    public static final int DEFAULT_SPINS = 100;
    /** Default yields before sleeping. */
    public static final int DEFAULT_YIELDS = 10;
    /**
     * The adaptive strategy's default longest spin, 4 ms: messages up to 2 ms apart (500 a
     * second or more) are seen while spinning.
     */
    public static final Duration DEFAULT_MAX_SPIN = Duration.ofMillis(4);
    /** The adaptive strategy's shortest spin, 20 µs, about the cost of a sleep and a wake across CPUs. */
    public static final long MIN_SPIN_NANOS = 20_000;

    private static final int NOT_IDLE = 0;
    private static final int SPINNING = 1;
    private static final int YIELDING = 2;
    private static final int ARMED = 3;

    private final FutexDoorbell doorbell;
    private final int maxSpins;
    private final int maxYields;
    private final long maxSpinNanos;
    private final LongSupplier clock;
    private int state = NOT_IDLE;
    private int count;
    private int seen;
    private long idleStart;
    private long spinNanos = MIN_SPIN_NANOS;
    private volatile long sleeps;

    /**
     * An adaptive idle strategy with the default longest spin ({@link #DEFAULT_MAX_SPIN}) and
     * yields.
     *
     * @param doorbell the doorbell producers ring
     */
    public FutexIdleStrategy(final FutexDoorbell doorbell) {
        this(doorbell, DEFAULT_MAX_SPIN);
    }

    /**
     * An adaptive idle strategy: it spins for at least twice the last gap between two pieces of
     * work when that gap was at most half of {@code maxSpin}, else for half its last spin (at
     * least {@link #MIN_SPIN_NANOS}), then yields {@link #DEFAULT_YIELDS} times, then sleeps on
     * the doorbell.
     *
     * @param doorbell the doorbell producers ring
     * @param maxSpin  the longest spin, at least {@link #MIN_SPIN_NANOS} and at most one second
     * @throws IllegalArgumentException for a {@code maxSpin} outside those bounds
     */
    public FutexIdleStrategy(final FutexDoorbell doorbell, final Duration maxSpin) {
        this(doorbell, -1, DEFAULT_YIELDS, maxSpinNanos(maxSpin), System::nanoTime);
    }

    /**
     * An idle strategy that spins a fixed number of times, then yields, then sleeps on the
     * doorbell; it does not adapt to the traffic.
     *
     * @param doorbell  the doorbell producers ring
     * @param maxSpins  spins before yielding, at least 0
     * @param maxYields yields before sleeping, at least 0
     * @throws IllegalArgumentException for a negative count
     */
    public FutexIdleStrategy(final FutexDoorbell doorbell, final int maxSpins, final int maxYields) {
        this(doorbell, checked(maxSpins, maxYields), maxYields, 0, System::nanoTime);
    }

    /** The adaptive strategy on another clock, for tests. */
    FutexIdleStrategy(final FutexDoorbell doorbell, final Duration maxSpin, final LongSupplier clock) {
        this(doorbell, -1, DEFAULT_YIELDS, maxSpinNanos(maxSpin), clock);
    }

    private FutexIdleStrategy(final FutexDoorbell doorbell, final int maxSpins, final int maxYields,
                              final long maxSpinNanos, final LongSupplier clock) {
        this.doorbell = Objects.requireNonNull(doorbell, "doorbell");
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.maxSpinNanos = maxSpinNanos;
        this.clock = clock;
    }

    private static int checked(final int maxSpins, final int maxYields) {
        if (maxSpins < 0 || maxYields < 0) {
            throw new IllegalArgumentException("negative spins or yields: " + maxSpins + ", " + maxYields);
        }
        return maxSpins;
    }

    private static long maxSpinNanos(final Duration maxSpin) {
        Objects.requireNonNull(maxSpin, "maxSpin");
        if (maxSpin.compareTo(Duration.ofNanos(MIN_SPIN_NANOS)) < 0 || maxSpin.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("maxSpin " + maxSpin + " must be between " + MIN_SPIN_NANOS
                + " ns and 1 s");
        }
        return maxSpin.toNanos();
    }

    private boolean adaptive() {
        return maxSpins < 0;
    }

    @Override
    public void idle(final int workCount) {
        if (workCount > 0) {
            reset();
        } else {
            idle();
        }
    }

    @Override
    @SuppressWarnings("fallthrough")
    public void idle() {
        switch (state) {
            case NOT_IDLE:
                state = SPINNING;
                count = 0;
                if (adaptive()) {
                    idleStart = clock.getAsLong();
                }
                // fall through
            case SPINNING:
                if (adaptive() ? clock.getAsLong() - idleStart < spinNanos : count++ < maxSpins) {
                    Thread.onSpinWait();
                    return;
                }
                state = YIELDING;
                count = 0;
                // fall through
            case YIELDING:
                if (count++ < maxYields) {
                    Thread.yield();
                    return;
                }
                doorbell.block().getAndAdd(FutexDoorbell.SLEEPERS_OFFSET, 1);
                seen = doorbell.seq();
                state = ARMED;
                return;
            default:
                if (doorbell.seq() == seen) {
                    sleeps++;
                    doorbell.futex().timedWait(doorbell.block().segment(), FutexDoorbell.SEQ_OFFSET, seen,
                        doorbell.priv(), Timespec.CLOCK_MONOTONIC, null, true);
                }
                seen = doorbell.seq();
        }
    }

    /**
     * Ends an idle period: leaves the doorbell's sleepers if registered, and, for the adaptive
     * strategy, sets the next spin from the gap this period waited.
     */
    @Override
    public void reset() {
        if (state == ARMED) {
            doorbell.block().getAndAdd(FutexDoorbell.SLEEPERS_OFFSET, -1);
        }
        if (state != NOT_IDLE && adaptive()) {
            final long gap = clock.getAsLong() - idleStart;
            spinNanos = gap <= maxSpinNanos / 2 ? Math.max(MIN_SPIN_NANOS, Math.max(spinNanos, 2 * gap))
                : Math.max(MIN_SPIN_NANOS, spinNanos / 2);
        }
        state = NOT_IDLE;
    }

    /** {@return how many times this strategy went to sleep on the futex} */
    public long sleeps() {
        return sleeps;
    }

    /**
     * {@return how long the next idle period spins, in nanoseconds, before it yields and sleeps
     * (the fixed-count strategy: -1)}
     */
    public long spinNanos() {
        return adaptive() ? spinNanos : -1;
    }

    @Override
    public String alias() {
        return "futex";
    }

    @Override
    public String toString() {
        return "FutexIdleStrategy{alias=futex, " + (adaptive() ? "maxSpin=" + Duration.ofNanos(maxSpinNanos)
            + ", spinNanos=" + spinNanos : "maxSpins=" + maxSpins) + ", maxYields=" + maxYields + ", " + doorbell + "}";
    }
}
