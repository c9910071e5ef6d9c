package org.pthread4j.cli.workload;

import org.pthread4j.Sem;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.memory.Memory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;

/**
 * {@code bench sem}: the library's {@code Sem} (musl's semaphore) against
 * {@code java.util.concurrent.Semaphore} (non-fair), on the parking and linux backends and
 * process-shared in {@code /dev/shm}.
 * <ul>
 * <li><b>handoff</b>: two threads and two semaphores at 0; each posts the other's and waits on
 *     its own, so every wait sleeps until the partner's post (the futex swap test's round trip,
 *     made of semaphores). Figure: ns per round trip.</li>
 * <li><b>pool</b>: T threads (4 in quick mode) share a semaphore of P permits (2), each taking
 *     and returning a permit in a loop, as threads sharing a pool of connections do with an
 *     empty critical section. Figure: thousands of acquire/release pairs per second.</li>
 * </ul>
 */
public final class SemWorkload implements Workload {
    /** The pool's permits. */
    static final int PERMITS = 2;
    /** Where the library's semaphore is measured. */
    private static final List<String> PLACES = List.of("parking", "linux", BenchBackends.PSHARED);

    /** Creates the workload. */
    public SemWorkload() {
    }

    @Override
    public String name() {
        return "sem";
    }

    @Override
    public String description() {
        return "semaphore handoff ping-pong and a " + PERMITS + "-permit pool (4 threads): Sem (parking, linux, "
            + "pshared) vs java.util.concurrent.Semaphore";
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final List<Group> groups = new ArrayList<>();
        final List<Case> handoff = new ArrayList<>();
        handoff.add(Case.of("Semaphore", "j.u.c", () -> new Handoff(new OnSemaphore(0), new OnSemaphore(0))));
        handoff.addAll(BenchBackends.perPlace("Sem", PLACES,
            place -> () -> new Handoff(new OnSem(place, 0), new OnSem(place, 0))));
        groups.add(Group.of("semaphore handoff", Measure.time("semaphore handoff", "ns/round-trip"), 2, handoff));
        for (final int t : settings.threadsOr(List.of(4), List.of(4, 8, 16))) {
            final String section = "semaphore pool, " + PERMITS + " permits";
            final List<Case> pool = new ArrayList<>();
            pool.add(Case.of("Semaphore", "j.u.c", () -> pool(new OnSemaphore(PERMITS), t)));
            pool.addAll(BenchBackends.perPlace("Sem", PLACES, place -> () -> pool(new OnSem(place, PERMITS), t)));
            groups.add(Group.of(section, Measure.rate(section, "Kiter/s"), t, pool));
        }
        return groups;
    }

    private static Fixture pool(final Permits permits, final int threads) {
        return Fixture.of(budget -> Stress.opsPerSecond(threads, budget, (i, stop) -> {
            long n = 0;
            while (!stop.stopped()) {
                permits.acquire();
                permits.release();
                n++;
            }
            return n;
        }) / 1000.0, permits);
    }

    /** A counting semaphore as the benchmarks use it. */
    private interface Permits extends AutoCloseable {
        /** Takes a permit, sleeping until one is there. */
        void acquire();

        /** Returns a permit. */
        void release();

        @Override
        default void close() {
        }
    }

    private static final class OnSemaphore implements Permits {
        private final Semaphore semaphore;

        OnSemaphore(final int permits) {
            this.semaphore = new Semaphore(permits);
        }

        @Override
        public void acquire() {
            semaphore.acquireUninterruptibly();
        }

        @Override
        public void release() {
            semaphore.release();
        }
    }

    private static final class OnSem implements Permits {
        private final Memory memory;
        private final Sem sem;

        OnSem(final BenchBackends.Place place, final int value) throws IOException {
            this.memory = place.memory(64);
            this.sem = place.sem(memory, 0, value);
        }

        @Override
        public void acquire() {
            BenchBackends.check(sem.await(), "sem_wait");
        }

        @Override
        public void release() {
            BenchBackends.check(sem.post(), "sem_post");
        }

        @Override
        public void close() {
            memory.close();
        }
    }

    /** The round trip: the measuring thread posts the partner's semaphore and waits on its own. */
    private static final class Handoff extends PingPong {
        private final Permits main;
        private final Permits partner;

        Handoff(final Permits main, final Permits partner) {
            this.main = main;
            this.partner = partner;
            start();
        }

        @Override
        void mainOp() {
            partner.release();
            main.acquire();
        }

        @Override
        void partnerOp() {
            main.release();
            partner.acquire();
        }

        @Override
        void partnerFirstWait() {
            partner.acquire();
        }

        @Override
        void releasePartner() {
            partner.release();
        }

        @Override
        void releaseMain() {
            main.release();
        }

        @Override
        public void close() {
            super.close();
            main.close();
            partner.close();
        }
    }
}
