package org.pthread4j.cli.workload;

import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bench cond}: seed 002's two condvar benchmarks, for the library's {@code Cond} (private
 * on each backend, and process-shared in {@code /dev/shm}), the reference
 * {@code ReentrantLock}+{@code Condition}, and the same programs in C against glibc's and musl's
 * {@code pthread_cond} (private and process-shared).
 * <ul>
 * <li><b>ping-pong</b> (Timo Teras's test): two threads take turns through one mutex and one
 *     condvar; each waits until it is its turn, counts, hands the turn over and broadcasts. The
 *     seed ran it for 2 s and printed the count; here each run lasts the trial time and the
 *     figure is round trips (two turns) per second. The seed's code as posted inverts the turn
 *     test ({@code while (run == my_id) wait}, then {@code run} = the other id), so one thread
 *     keeps the turn and loops on lock/broadcast/unlock while the other sleeps in the wait and is
 *     woken by every broadcast; that loop is measured too, as turns per second of the looping
 *     thread (the seed's count over its time).</li>
 * <li><b>cvb2</b> (Rich Felker's {@code cvb2.c}): 5 waiters, each taking 100,000 items, one at a
 *     time, that one broadcaster makes available to all five at once under the mutex; it prints
 *     the waiters' wake count. Here each run repeats the whole program (thread creation included)
 *     with fewer items per waiter until the trial time is spent, and the figures are the time per
 *     item and the wakes per item (the seed's run is 500,000 items: 1.9 s to 2.2 s there).</li>
 * <li><b>cvb2 with {@value #MANY_WAITERS} waiters</b>: the same program with more waiters than
 *     the machine has cores (Java rows only: the C baseline keeps the seed's 5).</li>
 * <li><b>mixed signal/broadcast</b>: {@value #MIXED_THREADS} threads share {@value #MIXED_TOKENS}
 *     tokens guarded by the monitor: each takes a token (waiting while there is none), releases
 *     the mutex, then gives it back and wakes one waiter, or, every fourth time, all of them;
 *     the figure is tokens taken and given back per second (Java rows only).</li>
 * </ul>
 */
public final class CondWorkload implements Workload {
    /** cvb2's waiter count. */
    static final int WAITERS = 5;
    /** The waiter count of the cvb2 shape with more waiters than cores. */
    static final int MANY_WAITERS = 16;
    /** The mixed signal/broadcast shape's threads. */
    static final int MIXED_THREADS = 8;
    /** The mixed signal/broadcast shape's tokens. */
    static final int MIXED_TOKENS = 2;

    /** Creates the workload. */
    public CondWorkload() {
    }

    @Override
    public String name() {
        return "cond";
    }

    @Override
    public String description() {
        return "seed 002 condvar ping-pong (alternating, and the seed's code as written) and cvb2 broadcast "
            + "(5 waiters; 16 waiters), mixed signal/broadcast (8 threads): Cond per backend and pshared, "
            + "ReentrantLock+Condition, C pthread_cond (glibc, musl)";
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final int items = settings.pick(200, 2_000);
        final List<Group> groups = new ArrayList<>();
        groups.add(Group.of("condvar ping-pong", Measure.rate("condvar ping-pong", "round trips/s"), 2,
            cases(settings.cCache(), p -> () -> perSecond(new TakingTurns(p.open(), true)), "pingpong")));
        groups.add(Group.of("seed-002 ping-pong code as written (one thread loops, one waits)",
            Measure.rate("seed-002 ping-pong code as written (one thread loops, one waits)", "turns/s"), 2,
            cases(settings.cCache(), p -> () -> perSecond(new TakingTurns(p.open(), false)), "asis")));
        groups.add(new Group("cvb2 broadcast", List.of(
            Measure.time("cvb2 broadcast, 5 waiters: time", "ns/item"),
            new Measure("cvb2 broadcast, 5 waiters: wakes", "wakes/item", false)),
            WAITERS + 1, cases(settings.cCache(), p -> () -> new Cvb2(p.open(), items, WAITERS), "cvb2",
            Integer.toString(items)), true));
        groups.add(new Group("cvb2 broadcast, " + MANY_WAITERS + " waiters", List.of(
            Measure.time("cvb2 broadcast, " + MANY_WAITERS + " waiters: time", "ns/item"),
            new Measure("cvb2 broadcast, " + MANY_WAITERS + " waiters: wakes", "wakes/item", false)),
            MANY_WAITERS + 1, javaCases(p -> () -> new Cvb2(p.open(), items, MANY_WAITERS)), true));
        groups.add(Group.of("mixed signal/broadcast, " + MIXED_THREADS + " threads, " + MIXED_TOKENS + " tokens",
            Measure.rate("mixed signal/broadcast", "tokens/s"), MIXED_THREADS,
            javaCases(p -> () -> new Mixed(p.open()))));
        return groups;
    }

    /** Opens a {@link Monitor}. */
    @FunctionalInterface
    private interface MonitorMaker {
        Monitor open() throws Exception;
    }

    /** What a case does with the monitor it is given. */
    @FunctionalInterface
    private interface Bench {
        Case.Opener with(MonitorMaker monitor);
    }

    /**
     * The cases of one benchmark: the reference, the library per backend and shared, then C.
     *
     * @param cache the directory of compiled C programs
     * @param bench what runs on a monitor
     * @param mode  the C program's mode
     * @param args  its further arguments
     * @return the cases
     */
    private static List<Case> cases(final Path cache, final Bench bench, final String mode, final String... args) {
        final List<Case> cases = new ArrayList<>();
        cases.add(Case.of("ReentrantLock+Condition", "j.u.c", bench.with(Monitor::juc)));
        cases.addAll(BenchBackends.perPlace("Cond", BenchBackends.privateAndShared(),
            place -> bench.with(() -> Monitor.of(place))));
        for (final String sharing : List.of("private", "shared")) {
            final String[] cArgs = new String[args.length + 2];
            cArgs[0] = mode;
            cArgs[1] = sharing;
            System.arraycopy(args, 0, cArgs, 2, args.length);
            cases.addAll(CPrograms.each(cache, "cond_bench", sharing.equals("shared") ? "pthread_cond, pshared"
                : "pthread_cond", cArgs));
        }
        return cases;
    }

    /**
     * The cases of a shape without a C baseline: the reference, then the library per backend and
     * shared.
     */
    private static List<Case> javaCases(final Bench bench) {
        final List<Case> cases = new ArrayList<>();
        cases.add(Case.of("ReentrantLock+Condition", "j.u.c", bench.with(Monitor::juc)));
        cases.addAll(BenchBackends.perPlace("Cond", BenchBackends.privateAndShared(),
            place -> bench.with(() -> Monitor.of(place))));
        return cases;
    }

    /**
     * The mixed signal/broadcast shape: {@link #MIXED_THREADS} threads take a token under the
     * monitor (waiting while there is none), then give it back and signal, or broadcast every
     * fourth time.
     */
    private static final class Mixed implements Fixture {
        private final Monitor monitor;
        /** Guarded by the monitor. */
        private int tokens = MIXED_TOKENS;

        Mixed(final Monitor monitor) {
            this.monitor = monitor;
        }

        @Override
        public double[] trial(final long budgetNanos) throws Exception {
            return new double[] {Stress.run(MIXED_THREADS, budgetNanos, this::loop, this::release)};
        }

        private long loop(final int index, final Stress.Stop stop) {
            long n = 0;
            while (!stop.stopped()) {
                monitor.lock();
                try {
                    while (tokens == 0 && !stop.stopped()) {
                        monitor.await();
                    }
                    if (tokens == 0) {
                        break;
                    }
                    tokens--;
                } finally {
                    monitor.unlock();
                }
                monitor.lock();
                try {
                    tokens++;
                    if ((++n & 3) == 0) {
                        monitor.signalAll();
                    } else {
                        monitor.signal();
                    }
                } finally {
                    monitor.unlock();
                }
            }
            return n;
        }

        private void release() {
            monitor.lock();
            try {
                monitor.signalAll();
            } finally {
                monitor.unlock();
            }
        }

        @Override
        public void close() {
            monitor.close();
        }
    }

    /**
     * @param f a fixture measuring nanoseconds per operation
     * @return one measuring operations per second
     */
    private static Fixture perSecond(final Fixture f) {
        return new Fixture() {
            @Override
            public double[] trial(final long budgetNanos) throws Exception {
                return new double[] {1e9 / f.trial(budgetNanos)[0]};
            }

            @Override
            public void warmUp(final long budgetNanos) throws Exception {
                f.warmUp(budgetNanos);
            }

            @Override
            public void close() {
                f.close();
            }
        };
    }

    /**
     * The ping-pong: the measuring thread is thread 2 of the seed, the partner thread 1, and
     * {@code run} starts at 1. Taking turns, a thread waits while {@code run} names the other
     * thread and hands the turn over by naming it, so one {@link #mainOp} is a round trip. As
     * the seed's code is written, a thread waits while {@code run} names itself and names the
     * other after its turn, so thread 2 loops and thread 1 sleeps, woken by each broadcast.
     * {@code run} = 0 stops both.
     */
    private static final class TakingTurns extends PingPong {
        private static final int MAIN = 2;
        private static final int PARTNER = 1;

        private final Monitor monitor;
        private final boolean alternate;
        /** Whose turn (or, as the seed wrote it, who waits); 0 to stop. Guarded by the monitor. */
        private int run = PARTNER;
        /** The seed's count. Guarded by the monitor. */
        private long count;

        TakingTurns(final Monitor monitor, final boolean alternate) {
            this.monitor = monitor;
            this.alternate = alternate;
            start();
        }

        private void turn(final int me, final int other) {
            monitor.lock();
            try {
                final int waitWhile = alternate ? other : me;
                while (run == waitWhile) {
                    monitor.await();
                }
                count++;
                if (run != 0) {
                    run = other;
                }
                monitor.signalAll();
            } finally {
                monitor.unlock();
            }
        }

        @Override
        void mainOp() {
            turn(MAIN, PARTNER);
        }

        @Override
        void partnerOp() {
            turn(PARTNER, MAIN);
        }

        @Override
        void partnerFirstWait() {
            // the turn test does the waiting
        }

        private void stopAll() {
            monitor.lock();
            try {
                run = 0;
                monitor.signalAll();
            } finally {
                monitor.unlock();
            }
        }

        @Override
        void releasePartner() {
            stopAll();
        }

        @Override
        void releaseMain() {
            stopAll();
        }

        @Override
        public void close() {
            super.close();
            monitor.close();
        }
    }

    /**
     * {@code cvb2.c}: per repetition of the program, 5 fresh waiter threads each consume
     * {@code items} items; the measuring thread is the broadcaster.
     */
    private static final class Cvb2 implements Fixture {
        private static final long JOIN_MILLIS = 30_000;

        private final Monitor monitor;
        private final int items;
        private final int waiters;
        // Guarded by the monitor, as in the seed.
        private final int[] left;
        private final int[] avail;
        private long wakes;
        private volatile Throwable failure;

        Cvb2(final Monitor monitor, final int items, final int waiters) {
            this.monitor = monitor;
            this.items = items;
            this.waiters = waiters;
            this.left = new int[waiters];
            this.avail = new int[waiters];
        }

        @Override
        public double[] trial(final long budgetNanos) throws InterruptedException {
            final long t0 = System.nanoTime();
            long done = 0;
            long wakesBefore;
            monitor.lock();
            wakesBefore = wakes;
            monitor.unlock();
            long elapsed;
            do {
                once();
                done += (long) waiters * items;
                elapsed = System.nanoTime() - t0;
            } while (elapsed < budgetNanos);
            monitor.lock();
            final long w = wakes - wakesBefore;
            monitor.unlock();
            return new double[] {(double) elapsed / done, (double) w / done};
        }

        /** One run of the seed's program. */
        private void once() throws InterruptedException {
            final Thread[] threads = new Thread[waiters];
            monitor.lock();
            for (int i = 0; i < waiters; i++) {
                left[i] = items;
                avail[i] = 0;
            }
            monitor.unlock();
            for (int i = 0; i < waiters; i++) {
                final int index = i;
                threads[i] = Thread.ofPlatform().daemon().name("bench-cvb2-waiter-" + i).start(() -> waiter(index));
            }
            monitor.lock();
            try {
                for (;;) {
                    if (failure != null) {
                        throw new IllegalStateException("a waiter failed: " + failure, failure);
                    }
                    int total = 0;
                    for (int i = 0; i < waiters; i++) {
                        total += left[i];
                    }
                    if (total == 0) {
                        break;
                    }
                    for (int i = 0; i < waiters; i++) {
                        avail[i] = 1;
                    }
                    monitor.signalAll();
                    monitor.unlock();
                    monitor.lock();
                }
            } finally {
                monitor.unlock();
            }
            for (final Thread t : threads) {
                Threads.join(t, JOIN_MILLIS);
                if (t.isAlive()) {
                    throw new IllegalStateException(t.getName() + " did not finish within " + JOIN_MILLIS + " ms");
                }
            }
        }

        private void waiter(final int i) {
            try {
                monitor.lock();
                try {
                    while (left[i] != 0) {
                        while (avail[i] == 0) {
                            monitor.await();
                            wakes++;
                        }
                        left[i]--;
                        avail[i]--;
                    }
                } finally {
                    monitor.unlock();
                }
            } catch (final Throwable t) {
                failure = t;
            }
        }

        @Override
        public void close() {
            monitor.close();
        }
    }
}
