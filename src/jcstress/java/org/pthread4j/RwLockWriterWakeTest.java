package org.pthread4j;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A private rwlock's writer wakes one sleeper (see {@link RwLock}, the readers' chain), and
 * only when bit 31 was set. A reader blocks behind a write lock; the other thread releases the
 * write lock and at once takes and releases it again, a thousand times, through
 * {@code trywrlock}, whose CAS from 0 carries no bit 31 while the woken reader may still be on
 * its way. The reader must not be left asleep on a free lock: either it sleeps again, setting
 * the bit, and the writer's next unlock wakes it, or it gets in. On the kernel backends the
 * reader sleeps on the wake sequence. Rotates through the configurations of
 * {@link RwLockBitRuleTest}, a process-shared lock (musl's wake-all) among them.
 */
@JCStressTest(Mode.Termination)
@Description("RwLock: a writer's one wake, then write locks through the fast path, never strand the woken reader")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the reader got the lock")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup: the reader sleeps on a free lock")
@State
public class RwLockWriterWakeTest {
    /**
     * Write locks after the release: a few tens of microseconds of them, about a wakeup's
     * latency on 2 cores, so the woken reader often meets one on its way.
     */
    private static final int AGAIN = 1_000;
    private final RwLock rw = RwLockBitRuleTest.next();

    /** Starts write-locked, by no thread in particular: the rwlock has no owner. */
    public RwLockWriterWakeTest() {
        rw.wrLock();
    }

    @Actor
    public void reader() {
        rw.rdLock();
        rw.unlock();
    }

    @Signal
    public void unlockAndWriteAgain() {
        RwLockBitRuleTest.unlockAndWriteAgain(rw, AGAIN);
    }
}
