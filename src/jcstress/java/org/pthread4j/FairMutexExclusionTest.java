package org.pthread4j;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Mutual exclusion and visibility of the fair mutex ({@link FairProtocol}): two threads each
 * increment a plain counter under it; the first also writes {@code x} then {@code y}, the second
 * reads {@code y} then {@code x}. No update may be lost, the sections may not overlap, the reader
 * may not see {@code y} without {@code x}, and the words end at rest (every ticket served, the
 * skip map clear). The second thread rotates through {@code timedlock} (far deadline),
 * {@code lockInterruptibly} and {@code trylock} (then {@code lock} when busy). r5 = configuration
 * ({@link FairStressSupport#CONFIGS}) * 3 + the second thread's operation.
 */
@JCStressTest
@Description("Fair mutex: no lost update, no overlap, unlock-to-lock visibility, words at rest; every kind and backend")
@Outcome(id = "2, 0, 0, 0, \\d+", expect = ACCEPTABLE, desc = "reader's section first")
@Outcome(id = "2, 0, 1, 1, \\d+", expect = ACCEPTABLE, desc = "writer's section first, both writes seen")
@Outcome(expect = FORBIDDEN, desc = "lost update, overlap, y seen without x, an error result or the words not at rest")
@State
public class FairMutexExclusionTest {
    private static final java.util.concurrent.atomic.AtomicInteger OPS = new java.util.concurrent.atomic.AtomicInteger();
    private final int config = FairStressSupport.next(FairStressSupport.CONFIGS);
    private final int op = Math.floorMod(OPS.getAndIncrement(), 3);
    private final Mutex m = new Mutex(StressBlocks.take(), FairStressSupport.CONFIGS.get(config));
    private int counter;
    private int inside;
    private int x;
    private int y;
    private int errors;

    private void enter() {
        if (inside++ != 0) {
            errors |= 64;
        }
        counter++;
    }

    private void leave(final int bit) {
        inside--;
        if (m.unlock() != 0) {
            errors |= bit;
        }
    }

    @Actor
    public void writer() {
        if (m.lock() != 0) {
            errors |= 1;
            return;
        }
        enter();
        x = 1;
        y = 1;
        leave(2);
    }

    @Actor
    public void reader(final IIIII_Result r) {
        final int got = switch (op) {
            case 0 -> m.timedLock(MutexStressSupport.FAR);
            case 1 -> m.lockInterruptibly();
            default -> m.tryLock() == org.pthread4j.futex.Errno.EBUSY ? m.lock() : 0;
        };
        if (got != 0) {
            errors |= 4;
            return;
        }
        enter();
        r.r3 = y;
        r.r4 = x;
        leave(8);
    }

    @Arbiter
    public void check(final IIIII_Result r) {
        r.r1 = counter;
        r.r2 = errors | FairStressSupport.rest(m) << 4;
        r.r5 = config * 3 + op;
    }
}
