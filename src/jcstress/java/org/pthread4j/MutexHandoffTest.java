package org.pthread4j;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Unlock wakes a sleeping locker (no lost wake-up) and hands over its writes. The state starts
 * with a NORMAL mutex locked (NORMAL records no owner, so the unlocker may be another thread);
 * one thread writes and unlocks, the other locks (often sleeping first) and reads. A lost
 * wake-up hangs the test; a stale read is forbidden.
 */
@JCStressTest
@Description("Mutex: unlock wakes the sleeping locker, which sees the unlocker's write")
@Outcome(id = "1, 0, \\d+", expect = ACCEPTABLE, desc = "woken (or never slept), write seen")
@Outcome(expect = FORBIDDEN, desc = "write not seen, or an error result")
@State
public class MutexHandoffTest {
    private final int config = MutexStressSupport.nextNormalConfig();
    private final Mutex m = new Mutex(MutexStressSupport.take(), MutexStressSupport.CONFIGS.get(config));
    private final int initial = m.lock();
    private int x;
    private int errors;

    @Actor
    public void unlocker() {
        x = 1;
        if (m.unlock() != 0) {
            errors |= 1;
        }
    }

    @Actor
    public void locker(final III_Result r) {
        if (m.lock() != 0) {
            errors |= 2;
            return;
        }
        r.r1 = x;
        if (m.unlock() != 0) {
            errors |= 4;
        }
    }

    @Arbiter
    public void check(final III_Result r) {
        r.r2 = errors | initial << 3 | MutexStressSupport.give(m) << 4;
        r.r3 = config;
    }
}
