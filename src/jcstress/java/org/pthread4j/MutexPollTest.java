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
 * A private mutex's woken thread that finds the lock taken polls without bit 31 (see
 * {@link Mutex}, "A woken thread that loses the race polls"). A thread blocks in {@code lock};
 * the other releases the mutex and at once takes and releases it ten thousand times through
 * {@code trylock}, several wakeup latencies of relocks, none of which carries bit 31. The woken
 * locker mostly meets a held lock and polls; since no unlock will wake it, it must not be left
 * asleep once the lock is free for good: each poll ends by its deadline and tries again.
 * A locker whose spin is still running when the relocks begin sees them and polls uncounted
 * instead ({@link Backoff#pollUncounted}: plain timed sleeps, each followed by a {@code trylock})
 * before its first sleep; no unlock wakes it during those sleeps either. Rotates through the
 * NORMAL configurations of {@link MutexBitRuleTest}, a process-shared one (musl's rule) among
 * them.
 */
@JCStressTest(Mode.Termination)
@Description("Mutex: a woken locker polling without bit 31 gets the lock once it is free")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the locker got the lock")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup: the locker sleeps on a free mutex")
@State
public class MutexPollTest {
    /** Relocks after the release: a few hundred microseconds of them on 2 cores, several wakeup latencies. */
    private static final int AGAIN = 10_000;

    private final Mutex m = new Mutex(MutexStressSupport.take(),
        MutexStressSupport.CONFIGS.get(MutexStressSupport.nextNormalConfig()));

    /** Starts held, by no thread in particular: a NORMAL mutex may be unlocked by any thread. */
    public MutexPollTest() {
        m.lock();
    }

    @Actor
    public void locker() {
        m.lock();
        m.unlock();
    }

    @Signal
    public void unlockAndRelock() {
        m.unlock();
        for (int i = 0; i < AGAIN; i++) {
            if (m.tryLock() == 0) {
                m.unlock();
            }
        }
    }
}
