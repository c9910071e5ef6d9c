package org.pthread4j;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import java.util.concurrent.atomic.AtomicInteger;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Exactly one of two non-blocking acquisitions wins: one thread calls {@code trylock}, the
 * other {@code timedlock} with a deadline already passed. Each holds what it got until both
 * have tried, then unlocks. Both winning, or neither, is forbidden.
 */
@JCStressTest
@Description("Mutex: trylock against an expired timedlock, exactly one acquires")
@Outcome(id = "0, 110, 0, \\d+", expect = ACCEPTABLE, desc = "trylock won, timedlock timed out")
@Outcome(id = "16, 0, 0, \\d+", expect = ACCEPTABLE, desc = "timedlock won, trylock got EBUSY")
@Outcome(expect = FORBIDDEN, desc = "both or neither acquired, or an error result")
@State
public class MutexTryPairTest {
    private final int config = MutexStressSupport.nextConfig();
    private final Mutex m = new Mutex(MutexStressSupport.take(), MutexStressSupport.CONFIGS.get(config));
    private final AtomicInteger tried = new AtomicInteger();
    private int errors;

    /** Holds a won lock until the other actor has tried too, so it cannot win afterwards. */
    private void settle(final int result, final int bit) {
        tried.incrementAndGet();
        if (result == 0) {
            while (tried.get() < 2) {
                Thread.onSpinWait();
            }
            if (m.unlock() != 0) {
                errors |= bit;
            }
        }
    }

    @Actor
    public void trier(final IIII_Result r) {
        final int got = m.tryLock();
        r.r1 = got;
        settle(got, 1);
    }

    @Actor
    public void expiredTimedlock(final IIII_Result r) {
        final int got = m.timedLock(MutexStressSupport.PAST);
        r.r2 = got;
        settle(got, 2);
    }

    @Arbiter
    public void check(final IIII_Result r) {
        r.r3 = errors | MutexStressSupport.give(m) << 4;
        r.r4 = config;
    }
}
