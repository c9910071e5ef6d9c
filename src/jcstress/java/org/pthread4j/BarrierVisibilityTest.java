package org.pthread4j;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.pthread4j.memory.Block;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Barrier visibility: each party's write before {@code await} is seen by the other after it,
 * and exactly one party is the serial thread. Private barrier (per-cycle instance) on the
 * default backend.
 */
@JCStressTest
@Description("Writes before the barrier are seen after it; exactly one SERIAL_THREAD")
@Outcome(id = {"1, 1, 1, 0", "1, 1, 0, 1"}, expect = ACCEPTABLE, desc = "both writes seen, one serial thread")
@Outcome(expect = FORBIDDEN, desc = "a write before the barrier was missed, or not exactly one serial thread")
@State
public class BarrierVisibilityTest {
    private final Block block = StressBlocks.take();
    private final Barrier barrier = new Barrier(block, 2);
    private int a;
    private int b;

    @Actor
    public void first(final IIII_Result r) {
        a = 1;
        r.r3 = barrier.await() == Barrier.SERIAL_THREAD ? 1 : 0;
        r.r1 = b;
    }

    @Actor
    public void second(final IIII_Result r) {
        b = 1;
        r.r4 = barrier.await() == Barrier.SERIAL_THREAD ? 1 : 0;
        r.r2 = a;
    }

    @Arbiter
    public void close() {
        StressBlocks.give(block);
    }
}
