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
 * No lost wakeup in the fair mutex: a thread blocks in {@code lock} on a held NORMAL fair mutex
 * while another unlocks it. The unlock's handing swap of the serving word may land before the
 * locker takes its ticket, during its spin, between its look at the serving word and its CAS of
 * bit 31, between that CAS and the futex wait, or after it fell asleep: the locker must always
 * get the lock. States rotate through the private backends and a process-shared mutex.
 */
@JCStressTest(Mode.Termination)
@Description("Fair mutex: an unlock racing a new waiter never leaves it asleep")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the locker got the lock")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup: the locker sleeps on a lock handed to it")
@State
public class FairMutexWakeupTest {
    private final Mutex m = new Mutex(StressBlocks.take(),
        FairStressSupport.NORMAL.get(FairStressSupport.next(FairStressSupport.NORMAL)));

    /** Starts held, by no thread in particular: a NORMAL mutex may be unlocked by any thread. */
    public FairMutexWakeupTest() {
        m.lock();
    }

    @Actor
    public void locker() {
        m.lock();
    }

    @Signal
    public void unlocker() {
        m.unlock();
    }
}
