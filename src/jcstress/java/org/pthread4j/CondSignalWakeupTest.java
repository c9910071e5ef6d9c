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
 * No lost wakeup for signal: the waiter loops on a flag under the mutex; the signaler sets the
 * flag under the mutex and signals after unlocking (so the signal may race with the waiter's
 * arrival, and the private condvar's lock-free "nobody waits" check is on the path).
 */
@JCStressTest(Mode.Termination)
@Description("Cond: a signal sent after the flag was set under the mutex always ends the wait")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the waiter returned")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the waiter missed the signal")
@State
public class CondSignalWakeupTest {
    private final CondStressSupport.Config config = CondStressSupport.CONFIGS.get(CondStressSupport.nextConfig());
    private final CondStressSupport.Slot slot = CondStressSupport.fresh();
    private final Mutex m = new Mutex(slot.mutex(), config.mutex());
    private final Cond c = new Cond(slot.cond(), config.cond());
    private boolean flag;

    @Actor
    public void waiter() {
        m.lock();
        while (!flag) {
            c.await(m);
        }
        m.unlock();
    }

    @Signal
    public void signaler() {
        m.lock();
        flag = true;
        m.unlock();
        c.signal();
    }
}
