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
 * FIFO order of the fair mutex: a holder that unlocks while another thread is queued, and locks
 * again at once, is served after the queued thread. The holder locks, waits until the other is
 * queued (or done, when the other got in first), unlocks and locks again; the other locks once.
 * Each records the order of its (last) acquisition: the other must always come first, whatever
 * the interleaving, on every backend. A non-fair mutex lets the holder's relock barge (r2 = 1).
 * r3 = configuration ({@link FairStressSupport#CONFIGS}), r4 = 0 when the words end at rest.
 */
@JCStressTest
@Description("Fair mutex: a queued thread is served before the holder that unlocks and locks again")
@Outcome(id = "1, 2, \\d+, 0", expect = ACCEPTABLE, desc = "the queued thread first")
@Outcome(expect = FORBIDDEN, desc = "the holder's relock barged past the queued thread, or the words not at rest")
@State
public class FairMutexFifoTest {
    private final int config = FairStressSupport.next(FairStressSupport.CONFIGS);
    private final Mutex m = new Mutex(StressBlocks.take(), FairStressSupport.CONFIGS.get(config));
    private final AtomicInteger seq = new AtomicInteger();
    private volatile boolean otherDone;

    @Actor
    public void queued(final IIII_Result r) {
        m.lock();
        r.r1 = seq.incrementAndGet();
        m.unlock();
        otherDone = true;
    }

    @Actor
    public void holder(final IIII_Result r) {
        m.lock();
        while (m.waiterCount() == 0 && !otherDone) {
            Thread.onSpinWait();
        }
        m.unlock();
        m.lock();
        r.r2 = seq.incrementAndGet();
        m.unlock();
    }

    @Arbiter
    public void check(final IIII_Result r) {
        r.r3 = config;
        r.r4 = FairStressSupport.rest(m);
    }
}
