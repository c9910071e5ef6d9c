package org.pthread4j;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.pthread4j.memory.Block;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Once publication: two threads race {@code run}; the initializer runs exactly once and both
 * see its plain write, whether they ran it, slept through it, or took the fast path.
 */
@JCStressTest
@Description("Every caller of Once.run sees the initializer's writes; it runs once")
@Outcome(id = "42, 42, 1", expect = ACCEPTABLE, desc = "ran once, seen by both")
@Outcome(expect = FORBIDDEN, desc = "ran twice, or a caller returned without seeing the initializer's write")
@State
public class OncePublicationTest {
    private final Block block = StressBlocks.take();
    private final Once once = new Once(block);
    private int data;
    private int runs;
    private final Runnable init = () -> {
        data = 42;
        runs++;
    };

    @Actor
    public void first(final III_Result r) {
        once.run(init);
        r.r1 = data;
    }

    @Actor
    public void second(final III_Result r) {
        once.run(init);
        r.r2 = data;
    }

    @Arbiter
    public void count(final III_Result r) {
        r.r3 = runs;
        StressBlocks.give(block);
    }
}
