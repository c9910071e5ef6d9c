package org.pthread4j;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.pthread4j.memory.Memory;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Sem permit conservation and post-to-wait publication: one post, two competing trywaits. At
 * most one takes the permit, the permit is either taken or still counted, and the taker sees
 * the poster's write. Private semaphore on the default backend.
 */
@JCStressTest
@Description("One post, two trywaits: the permit is taken once or stays, and the taker sees the data")
@Outcome(id = {"42, -1, 0", "-1, 42, 0"}, expect = ACCEPTABLE, desc = "one waiter took the permit and saw the data")
@Outcome(id = "-1, -1, 1", expect = ACCEPTABLE, desc = "both tried before the post; the permit remains")
@Outcome(expect = FORBIDDEN, desc = "a permit was duplicated or lost, or the taker missed the poster's write")
@State
public class SemPermitTest {
    private final Memory memory = Memory.allocate(SemLayout.SIZE);
    private final Sem sem = new Sem(memory.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT), false, 0);
    private int data;

    @Actor
    public void poster() {
        data = 42;
        sem.post();
    }

    @Actor
    public void waiter1(final III_Result r) {
        r.r1 = sem.trywait() == 0 ? data : -1;
    }

    @Actor
    public void waiter2(final III_Result r) {
        r.r2 = sem.trywait() == 0 ? data : -1;
    }

    @Arbiter
    public void value(final III_Result r) {
        r.r3 = sem.getvalue();
        memory.close();
    }
}
