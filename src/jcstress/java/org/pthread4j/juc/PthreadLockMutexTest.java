package org.pthread4j.juc;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.pthread4j.memory.Block;

import java.util.concurrent.TimeUnit;

/**
 * jcstress's {@code ReentrantLockMutexTests} matrix for {@link PthreadLock} in one test: each state
 * picks one pair of acquisitions (lock L, lockInterruptibly LI, tryLock TL, tryLock with a
 * timeout TLt) and one configuration (parking, linux, linux-noprivate, process-shared), round
 * robin. Each actor takes the lock, reports 1 if it saw the protected value still 0 (it went
 * first) or 0 if not, and sets it; a failed tryLock reports -1. The third result is the pair:
 *
 * <pre>
 *   0 LI_LI   1 LI_L   2 LI_TL   3 LI_TLt   4 L_L
 *   5 L_TL    6 L_TLt  7 TL_TL   8 TL_TLt   9 TLt_TLt
 * </pre>
 *
 * Mutual exclusion and the happens-before of unlock to the next lock allow exactly one actor to
 * see 0 ("1, 0" or "0, 1"); only a plain tryLock may fail, and then the other actor went first
 * ("-1, 1" when actor 1 tried, pairs 7 and 8; "1, -1" when actor 2 tried, pairs 2, 5 and 7).
 */
@JCStressTest
@Description("lock, lockInterruptibly, tryLock and timed tryLock exclude each other")
@Outcome(id = {"1, 0, [0-9]", "0, 1, [0-9]"}, expect = Expect.ACCEPTABLE, desc = "one after the other")
@Outcome(id = "-1, 1, [78]", expect = Expect.ACCEPTABLE, desc = "actor 1's tryLock found the lock held")
@Outcome(id = "1, -1, [257]", expect = Expect.ACCEPTABLE, desc = "actor 2's tryLock found the lock held")
@Outcome(expect = Expect.FORBIDDEN, desc = "both entered, neither entered, a blocking form failed, or a tryLock failed on a free lock")
@State
public class PthreadLockMutexTest {
    private static final int L = 0;
    private static final int LI = 1;
    private static final int TL = 2;
    private static final int TLT = 3;
    /** The pairs, in the order of the table above. */
    private static final int[][] PAIRS = {
        {LI, LI}, {LI, L}, {LI, TL}, {LI, TLT}, {L, L}, {L, TL}, {L, TLT}, {TL, TL}, {TL, TLT}, {TLT, TLT}};

    private final int pair;
    private final Block block = JucStress.take();
    private final PthreadLock lock;
    private int value;

    public PthreadLockMutexTest() {
        final int n = JucStress.next();
        pair = n % PAIRS.length;
        lock = new PthreadLock(block, JucStress.lockAttr(n / PAIRS.length));
    }

    private int run(final int op) {
        try {
            switch (op) {
                case L -> lock.lock();
                case LI -> lock.lockInterruptibly();
                case TL -> {
                    if (!lock.tryLock()) {
                        return -1;
                    }
                }
                default -> {
                    if (!lock.tryLock(1, TimeUnit.MINUTES)) {
                        return -3;
                    }
                }
            }
        } catch (final InterruptedException e) {
            return -2;
        }
        try {
            final int r = value == 0 ? 1 : 0;
            value = 1;
            return r;
        } finally {
            lock.unlock();
        }
    }

    @Actor
    public void actor1(final III_Result r) {
        r.r1 = run(PAIRS[pair][0]);
    }

    @Actor
    public void actor2(final III_Result r) {
        r.r2 = run(PAIRS[pair][1]);
    }

    @Arbiter
    public void arbiter(final III_Result r) {
        r.r3 = pair;
        if (!lock.isLocked() && !lock.hasQueuedThreads()) {
            JucStress.give(block);
        }
    }
}
