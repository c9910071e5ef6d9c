package org.pthread4j.memory;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/** The memory-model claims of {@link Block}: CAS returns the witness, and volatile words order plain data. */
public class BlockAtomicsTest {
    /** A zeroed 16-byte block of its own for each state, freed by the GC with the state. */
    static Block freshBlock() {
        return new Block(null, java.lang.foreign.Arena.ofAuto().allocate(16, 8), 0);
    }

    @JCStressTest
    @Description("Two CASes 0 -> own id race: exactly one wins, and the loser's witness is the winner's id.")
    @Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "actor 1 won")
    @Outcome(id = "2, 0, 2", expect = ACCEPTABLE, desc = "actor 2 won")
    @Outcome(expect = FORBIDDEN, desc = "both or neither won, or a wrong witness")
    @State
    public static class CasWitness {
        final Block b = freshBlock();

        @Actor
        public void actor1(final III_Result r) {
            r.r1 = b.cas(0, 0, 1);
        }

        @Actor
        public void actor2(final III_Result r) {
            r.r2 = b.cas(0, 0, 2);
        }

        @Arbiter
        public void arbiter(final III_Result r) {
            r.r3 = b.get(0);
        }
    }

    @JCStressTest
    @Description("A plain write published by a volatile word store is seen by whoever sees the store.")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "flag not seen yet")
    @Outcome(id = "0, 42", expect = ACCEPTABLE_INTERESTING, desc = "data seen before the flag (no ordering asked for)")
    @Outcome(id = "1, 42", expect = ACCEPTABLE, desc = "flag and data seen")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "flag seen without the data it publishes")
    @State
    public static class Publication {
        final Block b = freshBlock();

        @Actor
        public void writer() {
            b.segment().set(java.lang.foreign.ValueLayout.JAVA_INT, 8, 42);
            b.set(0, 1);
        }

        @Actor
        public void reader(final II_Result r) {
            r.r1 = b.get(0);
            r.r2 = b.segment().get(java.lang.foreign.ValueLayout.JAVA_INT, 8);
        }
    }

    @JCStressTest
    @Description("Dekker: a store then a load of another word (what every unlock does before reading the waiter"
        + " count) never both miss: volatile words forbid StoreLoad reordering.")
    @Outcome(id = {"0, 1", "1, 0", "1, 1"}, expect = ACCEPTABLE, desc = "at least one saw the other")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "StoreLoad reordering: a lost wakeup in an unlock")
    @State
    public static class StoreLoad {
        final Block b = freshBlock();

        @Actor
        public void unlocker(final II_Result r) {
            b.set(0, 1);          // release the lock word
            r.r1 = b.get(4);      // then read the waiter count
        }

        @Actor
        public void waiter(final II_Result r) {
            b.getAndAdd(4, 1);    // count myself as a waiter
            r.r2 = b.get(0);      // then look at the lock word
        }
    }
}
