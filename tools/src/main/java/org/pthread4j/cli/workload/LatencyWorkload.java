package org.pthread4j.cli.workload;

import org.HdrHistogram.Histogram;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.internal.Syscall;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.memory.Memory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code bench latency}: what a lock's waiters pay, beside what its throughput hides. Every
 * trial has two phases, each half of the trial's time.
 * <ul>
 * <li><b>Contention</b>: T threads take one lock in a loop; each acquisition is timed from just
 *     before {@code lock()} to just after it returns (an HdrHistogram per thread, merged), the
 *     critical section runs {@value Sections#INSIDE} steps of a multiply-add chain on a guarded
 *     word, and {@value Sections#OUTSIDE} steps on a word of the thread's own follow before the
 *     next lock. Figures: the wait's p50, p99, p99.9 and max; the least and the most
 *     acquisitions any one thread made, as shares of an equal split ({@link Shares}: 1.0 each
 *     when all made as many; a thread starved by barging shows as a least share near 0); and the
 *     acquisitions of all threads per second.</li>
 * <li><b>Handoff</b>: the measuring thread holds the lock while a second thread calls
 *     {@code lock()}; once that waiter has slept for {@value #ASLEEP_MICROS} µs and is seen
 *     asleep ({@link Sleepers}: parked in Java, or in state {@code S} in
 *     {@code /proc/self/task/TID/stat}), the holder reads the clock and unlocks, and the waiter
 *     reads the clock when its {@code lock()} returns; round after round. Figures: p50, p99 and
 *     max of the difference, the latency from {@code unlock()} to a blocked waiter's return.</li>
 * </ul>
 * Reference: non-fair {@code ReentrantLock}. Rows: fair {@code ReentrantLock},
 * {@code synchronized}, the library's {@code Mutex} (NORMAL) on every private backend and
 * process-shared, {@code PthreadLock} on the parking and the kernel backend, and C's
 * {@code pthread_mutex} (glibc, musl: {@code tools/src/main/c/lock_latency.c}, the same phases).
 */
public final class LatencyWorkload implements Workload {
    /** How long the holder lets the waiter sleep before it unlocks, at least. */
    static final long ASLEEP_MICROS = 100;
    /** Fewest handoff rounds in a trial, however short. */
    static final int MIN_ROUNDS = 3;
    /** The largest latency a histogram keeps apart; longer ones count as this. */
    static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** The unit of the latencies. */
    static final String NS = "ns";
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final AutoCloseable NOTHING = () -> { };

    /** Creates the workload. */
    public LatencyWorkload() {
    }

    @Override
    public String name() {
        return "latency";
    }

    @Override
    public String description() {
        return "lock wait p50/p99/p99.9/max and each thread's share of the acquisitions under contention, and the "
            + "handoff from unlock() to a blocked waiter's return: Mutex per backend and pshared, PthreadLock, "
            + "ReentrantLock (the reference) and fair, synchronized, C pthread_mutex (glibc, musl)";
    }

    /** The figures of one trial, in the order {@link #figures} returns them and the C program prints them. */
    static List<Measure> measures() {
        return List.of(
            Measure.time("lock wait p50", NS),
            Measure.time("lock wait p99", NS),
            Measure.time("lock wait p99.9", NS),
            Measure.time("lock wait max", NS),
            Measure.time("handoff unlock to blocked waiter p50", NS),
            Measure.time("handoff unlock to blocked waiter p99", NS),
            Measure.time("handoff unlock to blocked waiter max", NS),
            new Measure("least thread's share of acquisitions", Shares.UNIT, true),
            new Measure("most thread's share of acquisitions", Shares.UNIT, false),
            Measure.rate("acquisitions under contention", "Kacq/s"));
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final List<Group> groups = new ArrayList<>();
        for (final int t : settings.threadsOr(List.of(2, 4), List.of(2, 4, 8, 16))) {
            final List<Case> cases = new ArrayList<>();
            cases.add(Case.of("ReentrantLock", "j.u.c", () -> onLock(new ReentrantLock(), t, NOTHING)));
            cases.add(Case.of("ReentrantLock(true)", "j.u.c", () -> onLock(new ReentrantLock(true), t, NOTHING)));
            cases.add(Case.of("synchronized", "JVM monitor", () ->
                new Latency(Isolated.copy(MonitorSections.class, new Object()), t, NOTHING)));
            cases.addAll(BenchBackends.perPlace("Mutex", BenchBackends.privateAndShared(), p -> () -> {
                final Memory memory = p.memory(64);
                return onLock(new PrimitiveLock(p.mutex(memory, 0)), t, memory);
            }));
            cases.add(Case.of("PthreadLock", "parking", () -> onLock(pthreadLock(Futexes.parking()), t, NOTHING)));
            if (BenchBackends.kernel()) {
                cases.add(Case.of("PthreadLock", "linux", () -> onLock(pthreadLock(Futexes.linux()), t, NOTHING)));
            } else {
                cases.add(Case.skipped("PthreadLock", "linux", BenchBackends.NO_KERNEL));
            }
            cases.addAll(CPrograms.each(settings.cCache(), "lock_latency", "pthread_mutex", Integer.toString(t)));
            groups.add(new Group("lock latency", measures(), t, cases, true));
        }
        return groups;
    }

    private static PthreadLock pthreadLock(final Futex f) {
        return new PthreadLock(MutexAttr.builder().type(MutexAttr.RECURSIVE).futex(f).build());
    }

    private static Fixture onLock(final Lock lock, final int threads, final AutoCloseable close) {
        return new Latency(Isolated.copy(LockSections.class, lock), threads, close);
    }

    /**
     * One trial's figures.
     *
     * @param waits    every acquisition's wait under contention
     * @param handoffs every handoff
     * @param counts   each contending thread's acquisitions
     * @param elapsedNanos how long the contention phase ran
     * @return the figures of {@link #measures()}
     */
    static double[] figures(final Histogram waits, final Histogram handoffs, final long[] counts,
                            final long elapsedNanos) {
        long total = 0;
        for (final long c : counts) {
            total += c;
        }
        return new double[] {
            waits.getValueAtPercentile(50), waits.getValueAtPercentile(99), waits.getValueAtPercentile(99.9),
            waits.getMaxValue(),
            handoffs.getValueAtPercentile(50), handoffs.getValueAtPercentile(99), handoffs.getMaxValue(),
            Shares.min(counts), Shares.max(counts),
            total * 1e6 / elapsedNanos};
    }

    /** Both phases on one lock. */
    static final class Latency implements Fixture {
        private final Sections sections;
        private final int threads;
        private final AutoCloseable close;
        private final Histogram[] histograms;
        private final Stress.Body loop;

        Latency(final Sections sections, final int threads, final AutoCloseable close) {
            this.sections = sections;
            this.threads = threads;
            this.close = close;
            this.histograms = new Histogram[threads];
            for (int i = 0; i < threads; i++) {
                histograms[i] = new Histogram(HIGHEST_NANOS, 3);
            }
            this.loop = Isolated.copy(LatencyLoop.class, sections, histograms, new long[threads]);
        }

        @Override
        public double[] trial(final long budgetNanos) throws Exception {
            for (final Histogram h : histograms) {
                h.reset();
            }
            final Stress.Result r = Stress.counts(threads, budgetNanos / 2, loop);
            final Histogram waits = new Histogram(HIGHEST_NANOS, 3);
            for (final Histogram h : histograms) {
                waits.add(h);
            }
            return figures(waits, handoffs(sections, budgetNanos / 2), r.counts(), r.elapsedNanos());
        }

        @Override
        public void close() {
            Fixture.closeAll(close);
        }
    }

    /**
     * The handoff phase: rounds of hold, let a waiter fall asleep, unlock, until the budget has
     * passed (at least {@link #MIN_ROUNDS}).
     *
     * @param sections the lock
     * @param budget   how long, in nanoseconds
     * @return the handoffs
     * @throws Exception when the waiter fails, never sleeps, or never returns
     */
    static Histogram handoffs(final Sections sections, final long budget) throws Exception {
        final Histogram h = new Histogram(HIGHEST_NANOS, 3);
        final Handoff state = new Handoff();
        final Thread waiter = Thread.ofPlatform().daemon().name("bench-latency-waiter")
            .start(() -> state.waiterLoop(sections));
        try {
            final long end = System.nanoTime() + budget;
            int round = 0;
            do {
                final int r = ++round;
                final long released = sections.holdThenRelease(() -> state.awaitAsleep(r, waiter));
                state.awaitDone(r);
                h.recordValue(Math.max(0, Math.min(state.returned - released, HIGHEST_NANOS)));
            } while (System.nanoTime() - end < 0 || round < MIN_ROUNDS);
        } finally {
            state.stop = true;
            waiter.join(GIVE_UP_NANOS / 1_000_000);
        }
        if (state.failure != null) {
            throw new IllegalStateException("the waiter failed: " + state.failure, state.failure);
        }
        return h;
    }

    /** What the holder and the waiter of the handoff phase tell each other. */
    private static final class Handoff {
        volatile int go;
        volatile int announced;
        volatile int done;
        volatile long returned;
        volatile int tid;
        volatile boolean stop;
        volatile Throwable failure;

        void waiterLoop(final Sections sections) {
            try {
                tid = Syscall.AVAILABLE ? Syscall.gettid() : 0;
                for (int r = 1;; r++) {
                    while (go < r) {
                        if (stop) {
                            return;
                        }
                        Thread.onSpinWait();
                    }
                    announced = r;
                    returned = sections.acquireAndStamp();
                    done = r;
                }
            } catch (final Throwable t) {
                failure = t;
            }
        }

        /** Run by the holder, holding the lock: lets round {@code r} begin and waits until its waiter sleeps. */
        void awaitAsleep(final int r, final Thread waiter) {
            go = r;
            final long giveUp = System.nanoTime() + GIVE_UP_NANOS;
            while (announced != r) {
                check(giveUp, "call lock()");
                Thread.onSpinWait();
            }
            LockSupport.parkNanos(ASLEEP_MICROS * 1000);
            while (!Sleepers.asleep(waiter, tid)) {
                check(giveUp, "go to sleep in lock()");
                LockSupport.parkNanos(20_000);
            }
        }

        void awaitDone(final int r) {
            final long giveUp = System.nanoTime() + GIVE_UP_NANOS;
            while (done != r) {
                check(giveUp, "return from lock() after the unlock");
                Thread.onSpinWait();
            }
        }

        private void check(final long giveUp, final String what) {
            if (failure != null) {
                throw new IllegalStateException("the waiter failed: " + failure, failure);
            }
            if (System.nanoTime() - giveUp > 0) {
                throw new IllegalStateException("the waiter did not " + what + " within "
                    + TimeUnit.NANOSECONDS.toSeconds(GIVE_UP_NANOS) + " s");
            }
        }
    }

    /** A library {@link Mutex} as a {@link Lock} of two calls; only lock and unlock are used. */
    private record PrimitiveLock(Mutex mutex) implements Lock {
        @Override
        public void lock() {
            BenchBackends.check(mutex.lock(), "pthread_mutex_lock");
        }

        @Override
        public void unlock() {
            BenchBackends.check(mutex.unlock(), "pthread_mutex_unlock");
        }

        @Override
        public void lockInterruptibly() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock(final long time, final TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }
}
