package org.pthread4j.juc;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.pthread4j.memory.Block;

/**
 * Write-to-read downgrade of {@link PthreadReadWriteLock} lets no writer in between: actor 1
 * writes 1 under the write lock, takes the read lock, releases the write lock and reads; actor 2
 * writes 2 under the write lock. Actor 1 must read its own 1. Actor 2 reports what it found
 * first (0 or 1). The state rotates through the private backends and a process-shared lock.
 */
@JCStressTest
@Description("No writer slips in between a write-lock release and the read lock it downgrades to")
@Outcome(id = {"1, 0", "1, 1"}, expect = Expect.ACCEPTABLE, desc = "the downgraded reader saw its own write")
@Outcome(expect = Expect.FORBIDDEN, desc = "another writer got in during the downgrade, or a write was lost")
@State
public class PthreadReadWriteLockDowngradeTest {
    private final Block block = JucStress.take();
    private final PthreadReadWriteLock rw = new PthreadReadWriteLock(block, JucStress.rwAttr(JucStress.next()));
    private int x;

    @Actor
    public void downgrader(final II_Result r) {
        rw.writeLock().lock();
        x = 1;
        rw.readLock().lock();
        rw.writeLock().unlock();
        r.r1 = x;
        rw.readLock().unlock();
    }

    @Actor
    public void writer(final II_Result r) {
        rw.writeLock().lock();
        r.r2 = x;
        x = 2;
        rw.writeLock().unlock();
    }

    @Arbiter
    public void arbiter() {
        if (!rw.isWriteLocked() && rw.getReadLockCount() == 0 && !rw.hasQueuedThreads()) {
            JucStress.give(block);
        }
    }
}
