package org.pthread4j.juc;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZI_Result;
import org.pthread4j.Sem;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;

/**
 * Permit counts of {@link PthreadSemaphore} are taken all or nothing: with 3 permits, two
 * {@code tryAcquire(2)} cannot both succeed, one of them must, and the permits left are exactly
 * what was not taken. Private semaphores on the backends in turn.
 */
@JCStressTest
@Description("tryAcquire(n) takes all n permits in one step")
@Outcome(id = {"true, false, 1", "false, true, 1"}, expect = Expect.ACCEPTABLE, desc = "one took two of three")
@Outcome(expect = Expect.FORBIDDEN, desc = "both took two, neither did, or permits were lost or made up")
@State
public class PthreadSemaphorePermitCountTest {
    private final Block block = JucStress.take();
    private final PthreadSemaphore sem = PthreadSemaphore.of(new Sem(block, false, 3,
        switch (JucStress.next() % 3) {
            case 0 -> Futexes.parking();
            case 1 -> Futexes.linux();
            default -> Futexes.linuxNoPrivate();
        }));

    @Actor
    public void actor1(final ZZI_Result r) {
        r.r1 = sem.tryAcquire(2);
    }

    @Actor
    public void actor2(final ZZI_Result r) {
        r.r2 = sem.tryAcquire(2);
    }

    @Arbiter
    public void arbiter(final ZZI_Result r) {
        r.r3 = sem.availablePermits();
        JucStress.give(block);
    }
}
