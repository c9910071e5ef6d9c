package org.pthread4j.juc;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

/**
 * jcstress's {@code ReentrantLockInterruptiblyTest} for {@link PthreadLock}: a thread blocked in
 * {@code lockInterruptibly} on a lock another thread holds must end when it is interrupted. The
 * state rotates through the private backends and a process-shared lock, each in its own memory
 * (the lock stays held by the thread that made the state; the memory is freed with the lock).
 */
@JCStressTest(Mode.Termination)
@Description("lockInterruptibly answers Thread.interrupt()")
@Outcome(id = "TERMINATED", expect = Expect.ACCEPTABLE, desc = "The blocked thread answered the interrupt.")
@Outcome(id = "STALE", expect = Expect.FORBIDDEN, desc = "The blocked thread did not answer the interrupt.")
@State
public class PthreadLockInterruptiblyTest {
    private final PthreadLock lock = new PthreadLock(JucStress.lockAttr(JucStress.next()));

    /** Held by the thread that makes the state, as in jcstress's test. */
    public PthreadLockInterruptiblyTest() {
        lock.lock();
    }

    @Actor
    public void actor1() {
        try {
            lock.lockInterruptibly();
        } catch (final InterruptedException e) {
            // expected
        }
    }

    @Signal
    public void signal(final Thread actor1) {
        actor1.interrupt();
    }
}
