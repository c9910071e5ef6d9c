package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A robust mutex whose owner died is inherited exactly once: the word starts as the kernel
 * leaves it after the owner's death (owner 0, {@code OWNER_DIED}), two threads lock it at once;
 * exactly one gets EOWNERDEAD (and repairs it with {@code consistent} before unlocking), the other
 * then gets the mutex normally. Thread and process death themselves are proved by JUnit
 * (MutexRobustTest, MutexKillTest); this proves the race between two heirs.
 */
@JCStressTest
@Description("Two lockers race for a robust mutex marked owner-died: exactly one inherits it.")
@Outcome(id = {"0, 130, 0", "130, 0, 0"}, expect = ACCEPTABLE, desc = "one heir repaired it, the other locked it normally")
@Outcome(expect = FORBIDDEN, desc = "EOWNERDEAD seen twice or never, or the mutex left broken")
@State
public class MutexOwnerDeadOnceTest {
    private final Mutex m = new Mutex(MutexStressSupport.take(),
        MutexAttr.builder().type(MutexAttr.NORMAL).robust(true).build());

    public MutexOwnerDeadOnceTest() {
        m.block().set(MutexLayout.LOCK, MutexLayout.OWNER_DIED); // what the kernel's robust-list walk leaves
    }

    private int heir() {
        final int r = m.lock();
        if (r == Errno.EOWNERDEAD) {
            m.consistent();
        }
        m.unlock();
        return r;
    }

    @Actor
    public void heir1(final III_Result r) {
        r.r1 = heir();
    }

    @Actor
    public void heir2(final III_Result r) {
        r.r2 = heir();
    }

    @Arbiter
    public void after(final III_Result r) {
        r.r3 = m.tryLock(); // 0 unless the mutex was left locked or unrecoverable
        if (r.r3 == 0) {
            m.unlock();
        }
        MutexStressSupport.give(m);
    }
}
