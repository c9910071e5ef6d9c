package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Visibility across wait: plain writes made under the mutex before signal are seen by the
 * waiter after its wait returns. r1, r2: what the waiter read; r3: errors (bit 0 a wait missed
 * its wakeup until the liveness deadline, bit 1 another error result, bit 2 the slot was not
 * clean afterwards); r4: the configuration.
 */
@JCStressTest
@Description("Cond: writes before signal under the mutex are visible after the wait returns")
@Outcome(id = "1, 2, 0, \\d+", expect = ACCEPTABLE, desc = "both writes seen")
@Outcome(expect = FORBIDDEN, desc = "a stale read, a missed wakeup or an error result")
@State
public class CondVisibilityTest {
    private final int config = CondStressSupport.nextConfig();
    private final CondStressSupport.Slot slot = CondStressSupport.take();
    private final Mutex m = new Mutex(slot.mutex(), CondStressSupport.CONFIGS.get(config).mutex());
    private final Cond c = new Cond(slot.cond(), CondStressSupport.CONFIGS.get(config).cond());
    private int x;
    private int y;
    private boolean ready;
    private int errors;

    @Actor
    public void waiter(final IIII_Result r) {
        if (m.lock() != 0) {
            errors |= 2;
            return;
        }
        while (!ready) {
            final int e = c.timedAwait(m, CondStressSupport.liveness());
            if (e != 0) {
                errors |= e == Errno.ETIMEDOUT ? 1 : 2;
                break;
            }
        }
        r.r1 = x;
        r.r2 = y;
        m.unlock();
    }

    @Actor
    public void signaler() {
        if (m.lock() != 0) {
            errors |= 2;
            return;
        }
        x = 1;
        y = 2;
        ready = true;
        c.signal();
        m.unlock();
    }

    @Arbiter
    public void check(final IIII_Result r) {
        r.r3 = errors | CondStressSupport.give(slot, m, c) << 2;
        r.r4 = config;
    }
}
