package org.pthread4j;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;
import org.pthread4j.futex.Futexes;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * No lost wakeup in the mutex (docs/sources.md, "musl: the mutex"): a thread blocks in {@code lock} on
 * a held NORMAL mutex while another thread unlocks it. The unlock may land anywhere in the
 * locker's path: before its trylock, during its spin, between its count of {@code _m_waiters}
 * and its CAS of the waiters bit, between that CAS and the futex wait, or after it fell asleep.
 * The locker must always get the lock. States rotate through the private backends (parking,
 * linux, linux-noprivate) and a process-shared mutex.
 */
@JCStressTest(Mode.Termination)
@Description("Mutex: an unlock racing a blocking lock never leaves the locker asleep")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the locker got the lock")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup: the locker sleeps on a free mutex")
@State
public class MutexWakeupTest {
    private static final List<MutexAttr> CONFIGS = List.of(
        MutexAttr.builder().futex(Futexes.parking()).build(),
        MutexAttr.builder().futex(Futexes.linux()).build(),
        MutexAttr.builder().futex(Futexes.linuxNoPrivate()).build(),
        MutexAttr.builder().pshared(true).build());
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final Mutex m = new Mutex(StressBlocks.take(), CONFIGS.get(Math.floorMod(NEXT.getAndIncrement(),
        CONFIGS.size())));

    /** Starts held, by no thread in particular: a NORMAL mutex may be unlocked by any thread. */
    public MutexWakeupTest() {
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
