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
 * Readers run together (musl's pthread_rwlock_tryrdlock.c: only a write-locked word refuses a
 * reader): two readers that each take the read lock and keep it both succeed, in whatever
 * order their CASes meet, and the word then counts two readers.
 */
@JCStressTest
@Description("Two concurrent tryrdlock calls on a free rwlock: both succeed and both are counted.")
@Outcome(id = "0, 0, 2", expect = ACCEPTABLE, desc = "both readers hold the lock together")
@Outcome(expect = FORBIDDEN, desc = "a reader was refused, or a reader was lost from the count")
@State
public class RwLockReadersTogetherTest {
    private final Block block = StressBlocks.take();
    private final RwLock rw = new RwLock(block, RwLockAttr.DEFAULT);

    @Actor
    public void reader1(final III_Result r) {
        r.r1 = rw.tryRdLock();
    }

    @Actor
    public void reader2(final III_Result r) {
        r.r2 = rw.tryRdLock();
    }

    @Arbiter
    public void count(final III_Result r) {
        r.r3 = rw.readerCount();
        rw.unlock();
        rw.unlock();
        StressBlocks.give(block);
    }
}
