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
 * A reader's fast path that drops bit 31 never strands the woken writer, under either sleep
 * protocol (see {@link RwLock}). A writer blocks behind a read lock; the other thread releases
 * the read lock and at once, twice, takes and releases a read lock again through the fast path,
 * whose CAS from 0 drops bit 31 while the woken writer may still be on its way. The writer must
 * not be left asleep on a free lock. Rotates through every private backend (the parking protocol
 * on the parking backend, musl's on the kernel ones) and a process-shared lock (musl's).
 */
@JCStressTest(Mode.Termination)
@Description("RwLock bit rule: a reader's fast path that drops bit 31 never strands the woken writer")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the writer got the lock")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup: the writer sleeps on a free lock")
@State
public class RwLockBitRuleTest {
    static final List<RwLockAttr> CONFIGS = List.of(
        RwLockAttr.privateOn(Futexes.parking()), RwLockAttr.privateOn(Futexes.linux()),
        RwLockAttr.privateOn(Futexes.linuxNoPrivate()), RwLockAttr.builder().pshared(true).build());
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final RwLock rw = next();

    /** @return a new rwlock on the next of {@link #CONFIGS}, in turn (one rotation for every rwlock test) */
    static RwLock next() {
        return new RwLock(StressBlocks.take(), CONFIGS.get(Math.floorMod(NEXT.getAndIncrement(), CONFIGS.size())));
    }

    /**
     * Releases a write lock, then takes and releases it again {@code again} times through
     * {@code trywrlock}, whose CAS from 0 carries no bit 31.
     */
    static void unlockAndWriteAgain(final RwLock rw, final int again) {
        rw.unlock();
        for (int i = 0; i < again; i++) {
            if (rw.tryWrLock() == 0) {
                rw.unlock();
            }
        }
    }

    /** Starts read-locked, by no thread in particular: the rwlock has no owner. */
    public RwLockBitRuleTest() {
        rw.rdLock();
    }

    @Actor
    public void writer() {
        rw.wrLock();
        rw.unlock();
    }

    @Signal
    public void unlockAndReadAgainTwice() {
        rw.unlock();
        rw.rdLock();
        rw.unlock();
        rw.rdLock();
        rw.unlock();
    }
}
