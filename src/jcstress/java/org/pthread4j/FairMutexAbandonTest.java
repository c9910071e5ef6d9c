package org.pthread4j;

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
 * A waiter that gives its ticket up never breaks the fair mutex's queue. The mutex starts held;
 * one thread makes a timed lock whose deadline has passed (it takes a ticket, finds it not
 * served, and leaves); the other unlocks, then locks and unlocks. The unlock's hand-over may reach
 * the leaver's ticket before it takes it, while it looks at the serving word, before or after
 * it sets its skip bit, or after it left: the leaver either acquires (0) or times out (110,
 * ETIMEDOUT), the other's lock always succeeds (a lost hand-over would leave it queued behind a
 * ticket nobody serves: the test would hang), and the words end at rest: no ticket outstanding,
 * the skip map clear. r4 = configuration ({@link FairStressSupport#NORMAL}).
 */
@JCStressTest
@Description("Fair mutex: a timed-out waiter racing the hand-over neither stalls nor breaks the queue")
@Outcome(id = "0, 0, 0, \\d+", expect = ACCEPTABLE, desc = "the leaver was served before its deadline was looked at")
@Outcome(id = "110, 0, 0, \\d+", expect = ACCEPTABLE, desc = "the leaver timed out; its ticket was skipped or handed on")
@Outcome(expect = FORBIDDEN, desc = "an error result, or the words not at rest")
@State
public class FairMutexAbandonTest {
    private final int config = FairStressSupport.next(FairStressSupport.NORMAL);
    private final Mutex m = new Mutex(StressBlocks.take(), FairStressSupport.NORMAL.get(config));

    /** Starts held, by no thread in particular: a NORMAL mutex may be unlocked by any thread. */
    public FairMutexAbandonTest() {
        m.lock();
    }

    @Actor
    public void leaver(final IIII_Result r) {
        final int got = m.timedLock(MutexStressSupport.PAST);
        r.r1 = got;
        if (got == 0) {
            m.unlock();
        }
    }

    @Actor
    public void other(final IIII_Result r) {
        m.unlock();
        final int got = m.lock();
        r.r2 = got;
        if (got == 0) {
            m.unlock();
        }
    }

    @Arbiter
    public void check(final IIII_Result r) {
        r.r3 = FairStressSupport.rest(m);
        r.r4 = config;
    }
}
