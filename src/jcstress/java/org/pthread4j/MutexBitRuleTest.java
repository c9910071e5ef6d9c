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
 * A fast-path relock that drops bit 31 never strands the woken locker, under either sleep
 * protocol. A thread blocks in {@code lock} on a held mutex; the other releases it and at once,
 * twice, takes and releases it again through the fast path, whose CAS from 0 drops bit 31 while
 * the woken locker may still be on its way. Under the parking protocol's bit rule such an unlock
 * wakes nobody: the locker must not be asleep when it lands; it is either still running (and
 * retries), or asleep without the bit for at most its poll (a woken thread that lost the race),
 * or asleep having set the bit again. Under musl's protocol the locker's count makes the unlocks
 * wake. Rotates through the NORMAL configurations on every private backend (the parking
 * protocol on the parking backend, musl's on the kernel ones) and a process-shared one.
 */
@JCStressTest(Mode.Termination)
@Description("Mutex bit rule: a fast-path relock that drops bit 31 never strands the woken locker")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the locker got the lock")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup: the locker sleeps on a free mutex")
@State
public class MutexBitRuleTest {
    private final Mutex m = new Mutex(MutexStressSupport.take(),
        MutexStressSupport.CONFIGS.get(MutexStressSupport.nextNormalConfig()));

    /** Starts held, by no thread in particular: a NORMAL mutex may be unlocked by any thread. */
    public MutexBitRuleTest() {
        m.lock();
    }

    @Actor
    public void locker() {
        m.lock();
        m.unlock();
    }

    @Signal
    public void unlockAndRelockTwice() {
        m.unlock();
        m.lock();
        m.unlock();
        m.lock();
        m.unlock();
    }
}
