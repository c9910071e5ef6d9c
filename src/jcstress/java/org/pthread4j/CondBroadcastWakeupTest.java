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
 * No lost wakeup for broadcast: the broadcaster sets the flag and broadcasts while holding the
 * mutex, so the woken waiter first meets a held mutex (the relock, and the private condvar's
 * raise and drop of the mutex's waiter count, are on the path).
 */
@JCStressTest(Mode.Termination)
@Description("Cond: a broadcast under the mutex after setting the flag always ends the wait")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the waiter returned")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the waiter missed the broadcast")
@State
public class CondBroadcastWakeupTest {
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
    public void broadcaster() {
        m.lock();
        flag = true;
        c.broadcast();
        m.unlock();
    }
}
