package org.pthread4j;

import org.pthread4j.futex.Timespec;

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
 * No lost wakeup on the path without the spin: the waiter first returns from a wait on the
 * condvar (an expired deadline), so its next wait on it, made without having signaled in between,
 * skips the parking protocol's spin and starts its barrier CONTENDED, musl's way (see "Sleeping"
 * in {@link Cond}). The signaler sets the flag under the mutex and signals after unlocking, racing
 * that second wait. Rotates through every configuration of {@link CondStressSupport}.
 */
@JCStressTest(Mode.Termination)
@Description("Cond: a wait that skips the spin (a re-wait) still never misses a signal")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the waiter returned")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the waiter missed the signal")
@State
public class CondRewaitWakeupTest {
    private static final Timespec PAST = new Timespec(1, 0);

    private final CondStressSupport.Config config = CondStressSupport.CONFIGS.get(CondStressSupport.nextConfig());
    private final CondStressSupport.Slot slot = CondStressSupport.fresh();
    private final Mutex m = new Mutex(slot.mutex(), config.mutex());
    private final Cond c = new Cond(slot.cond(), config.cond());
    private boolean flag;

    @Actor
    public void waiter() {
        m.lock();
        c.timedAwait(m, PAST);
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
