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
 * An rwlock writer whose spin sees the lock taken back at once polls uncounted, without bit 31,
 * before its first sleep ({@link Backoff#pollUncounted}). A writer blocks behind a write lock;
 * the other thread releases it and at once takes and releases it again ten thousand times
 * through {@code trywrlock}, none of which carries bit 31. The blocked writer's spin mostly ends
 * on those relocks and it polls; since no unlock will wake a poller, it must not be left asleep
 * once the lock is free for good: each poll ends by its deadline and tries again, and a writer
 * that goes on to sleep sets the bit for the next unlock. Rotates through the configurations of
 * {@link RwLockBitRuleTest}, a process-shared lock among them.
 */
@JCStressTest(Mode.Termination)
@Description("RwLock: a writer polling without bit 31 gets the lock once it is free")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the writer got the lock")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup: the writer sleeps on a free lock")
@State
public class RwLockWriterPollTest {
    /** Relocks after the release: a few hundred microseconds of them on 2 cores, several polls. */
    private static final int AGAIN = 10_000;
    private final RwLock rw = RwLockBitRuleTest.next();

    /** Starts write-locked, by no thread in particular: the rwlock has no owner. */
    public RwLockWriterPollTest() {
        rw.wrLock();
    }

    @Actor
    public void writer() {
        rw.wrLock();
        rw.unlock();
    }

    @Signal
    public void unlockAndWriteAgain() {
        RwLockBitRuleTest.unlockAndWriteAgain(rw, AGAIN);
    }
}
