package org.pthread4j.ipc;

import org.agrona.concurrent.IdleStrategy;
import org.pthread4j.futex.Timespec;

import java.util.Objects;

/**
 * An Agrona {@link IdleStrategy} that spins, then yields, then sleeps on a
 * {@link FutexDoorbell} until a producer rings it: a consumer of a ring buffer in shared memory
 * costs no CPU while the buffer stays empty, and wakes within one futex wake-up of the next
 * message, in this process or another.
 *
 * <p>The states, one step per {@link #idle()} call without work: {@code spins} calls of
 * {@link Thread#onSpinWait()}, then {@code yields} calls of {@link Thread#yield()}, then one call
 * that registers as a sleeper on the doorbell and returns, so the caller polls once more after
 * registering (this poll is what makes a lost wake-up impossible, see {@link FutexDoorbell}),
 * then calls that each sleep until the doorbell's sequence moves. {@link #reset()}, or
 * {@link #idle(int)} with work, leaves the sleeper registration and starts over.
 *
 * <p>A sleeping consumer answers {@link Thread#interrupt()} within 20 ms: {@code idle} returns
 * with the interrupt status set, as an Agrona agent runner expects when it closes. A strategy is
 * used by one consumer thread; each consumer has its own.
 */
public final class FutexIdleStrategy implements IdleStrategy {
    /** Default spins before yielding. */
    public static final int DEFAULT_SPINS = 100;
    /** Default yields before sleeping. */
    public static final int DEFAULT_YIELDS = 10;

    private static final int NOT_IDLE = 0;
    private static final int SPINNING = 1;
    private static final int YIELDING = 2;
    private static final int ARMED = 3;

    private final FutexDoorbell doorbell;
    private final int maxSpins;
    private final int maxYields;
    private int state = NOT_IDLE;
    private int count;
    private int seen;
    private volatile long sleeps;

    /**
     * An idle strategy with the default spins and yields before it sleeps on the doorbell.
     *
     * @param doorbell the doorbell producers ring
     */
    public FutexIdleStrategy(final FutexDoorbell doorbell) {
        this(doorbell, DEFAULT_SPINS, DEFAULT_YIELDS);
    }

    /**
     * An idle strategy that spins, then yields, then sleeps on the doorbell.
     *
     * @param doorbell  the doorbell producers ring
     * @param maxSpins  spins before yielding, at least 0
     * @param maxYields yields before sleeping, at least 0
     */
    public FutexIdleStrategy(final FutexDoorbell doorbell, final int maxSpins, final int maxYields) {
        this.doorbell = Objects.requireNonNull(doorbell, "doorbell");
        if (maxSpins < 0 || maxYields < 0) {
            throw new IllegalArgumentException("negative spins or yields: " + maxSpins + ", " + maxYields);
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
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
                // fall through
            case SPINNING:
                if (count++ < maxSpins) {
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

    @Override
    public void reset() {
        if (state == ARMED) {
            doorbell.block().getAndAdd(FutexDoorbell.SLEEPERS_OFFSET, -1);
        }
        state = NOT_IDLE;
    }

    /** {@return how many times this strategy went to sleep on the futex} */
    public long sleeps() {
        return sleeps;
    }

    @Override
    public String alias() {
        return "futex";
    }

    @Override
    public String toString() {
        return "FutexIdleStrategy{alias=futex, maxSpins=" + maxSpins + ", maxYields=" + maxYields + ", " + doorbell + "}";
    }
}
