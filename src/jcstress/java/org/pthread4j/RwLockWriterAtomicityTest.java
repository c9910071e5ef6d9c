package org.pthread4j;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * RwLock exclusion and publication: a reader under the read lock sees both of a writer's
 * writes or neither, never half. Private lock on the kernel futex backend.
 */
@JCStressTest
@Description("A reader never sees half of a writer's two writes")
@Outcome(id = {"0, 0", "1, 1"}, expect = ACCEPTABLE, desc = "the reader ran before or after the writer")
@Outcome(expect = FORBIDDEN, desc = "the reader saw half a write: exclusion or publication is broken")
@State
public class RwLockWriterAtomicityTest {
    private final Block block = StressBlocks.take();
    private final RwLock lock = new RwLock(block, RwLockAttr.privateOn(Futexes.linux()));
    private int x;
    private int y;

    @Actor
    public void writer() {
        lock.wrLock();
        x = 1;
        y = 1;
        lock.unlock();
    }

    @Actor
    public void reader(final II_Result r) {
        lock.rdLock();
        r.r1 = x;
        r.r2 = y;
        lock.unlock();
    }

    @Arbiter
    public void close() {
        StressBlocks.give(block);
    }
}
