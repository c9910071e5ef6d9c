package org.pthread4j.futex;

import org.pthread4j.internal.ThreadTable;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@link ThreadTable}'s claim: without any ordering between threads, a lookup returns only the
 * caller's own entry or nothing. A table of one slot, which both threads share: actor 1 stores
 * its entry and looks up; actor 2 looks up first (it may find actor 1's entry in the slot),
 * then stores its own and looks up. Results: 0 nothing found, 1 the thread's own entry, 2 the
 * other thread's entry.
 */
@JCStressTest
@Description("ThreadTable: racing plain stores into a shared slot never give a thread another thread's entry")
@Outcome(id = {"1, 0, 1", "0, 0, 1", "1, 0, 0", "0, 0, 0"}, expect = ACCEPTABLE,
    desc = "each found its own entry, or nothing where the other's store took the slot")
@Outcome(expect = FORBIDDEN, desc = "a thread took the other thread's entry for its own")
@State
public class ThreadTableTest {
    static final class Mine extends ThreadTable.Entry {
    }

    private final Mine[] table = new Mine[ThreadTable.length(1)];

    private static int seen(final Mine got, final Mine own) {
        return got == null ? 0 : got == own ? 1 : 2;
    }

    @Actor
    public void storesThenLooksUp(final III_Result r) {
        final Mine own = ThreadTable.put(table, new Mine());
        r.r1 = seen(ThreadTable.get(table), own);
    }

    @Actor
    public void looksUpThenStores(final III_Result r) {
        final Mine own = new Mine();
        r.r2 = seen(ThreadTable.get(table), own);
        ThreadTable.put(table, own);
        r.r3 = seen(ThreadTable.get(table), own);
    }
}
