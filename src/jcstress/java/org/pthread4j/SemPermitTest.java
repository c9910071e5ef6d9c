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
 * Sem permit conservation and post-to-wait publication. One permit is posted; the poster and
 * another thread then race to take it with {@code trywait}. Exactly one gets it (the poster
 * always tries after its own post, so the permit is never left over), the count ends at 0, and
 * a taker in the other thread sees the poster's write. Private semaphore on the default
 * backend.
 */
@JCStressTest
@Description("One post, two racing trywaits: the permit is taken exactly once, and the data is seen")
@Outcome(id = "1, -1, 0", expect = ACCEPTABLE, desc = "the poster took its own permit back")
@Outcome(id = "0, 42, 0", expect = ACCEPTABLE, desc = "the other thread took the permit and saw the data")
@Outcome(expect = FORBIDDEN, desc = "a permit was duplicated or lost, or the taker missed the poster's write")
@State
public class SemPermitTest {
    private final Block block = StressBlocks.take();
    private final Sem sem = new Sem(block, false, 0);
    private int data;

    @Actor
    public void poster(final III_Result r) {
        data = 42;
        sem.post();
        r.r1 = sem.tryAwait() == 0 ? 1 : 0;
    }

    @Actor
    public void taker(final III_Result r) {
        r.r2 = sem.tryAwait() == 0 ? data : -1;
    }

    @Arbiter
    public void value(final III_Result r) {
        r.r3 = sem.getValue();
        StressBlocks.give(block);
    }
}
