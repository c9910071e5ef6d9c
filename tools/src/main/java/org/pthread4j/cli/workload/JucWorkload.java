package org.pthread4j.cli.workload;

import org.pthread4j.Cond;
import org.pthread4j.CondAttr;
import org.pthread4j.CondLayout;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.RwLock;
import org.pthread4j.RwLockAttr;
import org.pthread4j.RwLockLayout;
import org.pthread4j.futex.Timespec;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.juc.PthreadReadWriteLock;
import org.pthread4j.memory.Memory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * {@code bench juc}: the {@code java.util.concurrent} adapters against the JDK classes they
 * replace, the JDK class being each group's reference (ratio 1.0; above 1.0 the adapter is
 * faster). Every adapter is measured on the parking backend (the default for private locks) and
 * on the kernel backend.
 * <ul>
 * <li><b>lock/unlock stress</b> (seed 000): T threads lock and unlock one lock with an empty
 *     critical section; Kiter/s of all threads, and the least and the most any one thread did
 *     ({@link Shares}). {@code PthreadLock} vs {@code ReentrantLock}; the one-thread row is the
 *     uncontended cost.</li>
 * <li><b>fair lock/unlock stress</b>: the same loop on fair locks, {@code PthreadLock(true)} (the
 *     ticket lock, on the parking backend, the kernel backend, and process-shared) vs
 *     {@code ReentrantLock(true)}, with the non-fair locks for scale; two figures: Kiter/s, and
 *     the share, the fewest iterations of a thread over the most (1.0: equal shares), both
 *     counted over the last nine tenths of each run, after every thread has started.</li>
 * <li><b>condvar ping-pong</b> (seed 002, Timo Teräs's test): two threads take turns under one
 *     lock, each waiting on one condition until it is its turn, then passing the turn and
 *     calling {@code signalAll}; thousands of turns per second. {@code PthreadCondition} vs a
 *     {@code ReentrantLock}'s {@code Condition}.</li>
 * <li><b>read-mostly rwlock mix</b>: T threads, each doing one write (two stores) in every ten
 *     operations and otherwise a read of the pair, under the write or read lock; Kops/s.
 *     {@code PthreadReadWriteLock} vs {@code ReentrantReadWriteLock}.</li>
 * </ul>
 * Each group ends with the bare primitive on the parking backend ("no adapter": {@code Mutex},
 * {@code Mutex} + {@code Cond}, {@code RwLock} called directly, with no hold counts or owner
 * bookkeeping), so the table separates what the adapter costs from what the primitive costs.
 */
public final class JucWorkload implements Workload {
    /** What closing a fixture of the adapters or the JDK does: nothing (their memory is freed by the GC). */
    private static final AutoCloseable NOTHING = () -> { };

    /** One write in this many rwlock operations. */
    static final int WRITE_EVERY = 10;

    /** Creates the workload. */
    public JucWorkload() {
    }

    @Override
    public String name() {
        return "juc";
    }

    @Override
    public String description() {
        return "the java.util.concurrent adapters vs the JDK: seed 000 lock stress (PthreadLock vs ReentrantLock), "
            + "fair lock stress with shares (PthreadLock(true) vs ReentrantLock(true)), seed 002 condvar ping-pong (PthreadCondition vs Condition), read-mostly mix "
            + "(PthreadReadWriteLock vs ReentrantReadWriteLock)";
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final List<Group> groups = new ArrayList<>();
        for (final int t : settings.threadsOr(List.of(1, 2, 4), List.of(1, 2, 3, 4, 8, 16, 32))) {
            final List<Case> cases = new ArrayList<>();
            cases.add(Case.of("ReentrantLock", "j.u.c", () -> lockStress(new ReentrantLock(), t, NOTHING)));
            cases.addAll(perBackend("PthreadLock", f -> () -> lockStress(pthreadLock(f), t, NOTHING)));
            cases.add(Case.of("Mutex RECURSIVE, no adapter", "parking", () -> {
                final Memory mem = Memory.allocate(64);
                return lockStress(rawMutex(mem), t, mem);
            }));
            groups.add(new Group("lock/unlock stress", Shares.withShares("lock/unlock stress", "Kiter/s"), t, cases,
                true));
        }

        for (final int t : settings.threadsOr(List.of(2, 4), List.of(2, 3, 4, 8, 16))) {
            final List<Case> cases = new ArrayList<>();
            cases.add(Case.of("ReentrantLock(true)", "j.u.c", () -> fairStress(new ReentrantLock(true), t, NOTHING)));
            cases.addAll(perBackend("PthreadLock(true)", f -> () -> fairStress(new PthreadLock(
                MutexAttr.builder().type(MutexAttr.RECURSIVE).fair(true).futex(f).build()), t, NOTHING)));
            if (BenchBackends.kernel()) {
                cases.add(Case.of("PthreadLock(true), process-shared", "linux", () -> {
                    final Memory mem = Memory.allocate(64);
                    return fairStress(new PthreadLock(mem.block(0, MutexLayout.SIZE, MutexLayout.ALIGNMENT),
                        MutexAttr.builder().type(MutexAttr.RECURSIVE).fair(true).pshared(true).build()), t, mem);
                }));
            } else {
                cases.add(Case.skipped("PthreadLock(true), process-shared", "linux", BenchBackends.NO_KERNEL));
            }
            cases.add(Case.of("ReentrantLock, not fair", "j.u.c", () -> fairStress(new ReentrantLock(), t, NOTHING)));
            cases.add(Case.of("PthreadLock, not fair", "parking", () -> fairStress(pthreadLock(Futexes.parking()), t,
                NOTHING)));
            groups.add(new Group("fair lock/unlock stress", List.of(
                Measure.rate("fair lock/unlock stress", "Kiter/s"),
                Measure.rate("share: fewest over most iterations of a thread", "min/max")), t, cases, true));
        }

        final List<Case> pingPong = new ArrayList<>();
        pingPong.add(Case.of("ReentrantLock + Condition", "j.u.c", () -> {
            final ReentrantLock lock = new ReentrantLock();
            return pingPong(lock, lock.newCondition(), NOTHING);
        }));
        pingPong.addAll(perBackend("PthreadLock + PthreadCondition", f -> () -> {
            final PthreadLock lock = pthreadLock(f);
            return pingPong(lock, lock.newCondition(), NOTHING);
        }));
        pingPong.add(Case.of("Mutex + Cond, no adapter", "parking", JucWorkload::rawPingPong));
        groups.add(Group.of("condvar ping-pong", Measure.rate("condvar ping-pong", "Kturns/s"), 2, pingPong));

        for (final int t : settings.threadsOr(List.of(2, 4), List.of(1, 2, 4, 8, 16))) {
            final List<Case> cases = new ArrayList<>();
            cases.add(Case.of("ReentrantReadWriteLock", "j.u.c", () ->
                readMostly(new ReentrantReadWriteLock(), t, NOTHING)));
            cases.addAll(perBackend("PthreadReadWriteLock", f -> () ->
                readMostly(new PthreadReadWriteLock(RwLockAttr.privateOn(f)), t, NOTHING)));
            cases.add(Case.of("RwLock, no adapter", "parking", () -> {
                final Memory mem = Memory.allocate(64);
                return readMostly(rawRwLock(mem), t, mem);
            }));
            groups.add(Group.of("read-mostly rwlock mix, 1 write in " + WRITE_EVERY,
                Measure.rate("read-mostly rwlock mix", "Kops/s"), t, cases));
        }
        return groups;
    }

    /** The adapter on the parking backend and on the kernel backend (skipped where there is none). */
    private static List<Case> perBackend(final String impl, final Function<Futex, Case.Opener> make) {
        final List<Case> cases = new ArrayList<>();
        cases.add(Case.of(impl, "parking", make.apply(Futexes.parking())));
        if (BenchBackends.kernel()) {
            cases.add(Case.of(impl, "linux", () -> make.apply(Futexes.linux()).open()));
        } else {
            cases.add(Case.skipped(impl, "linux", BenchBackends.NO_KERNEL));
        }
        return cases;
    }

    private static PthreadLock pthreadLock(final Futex f) {
        return new PthreadLock(MutexAttr.builder().type(MutexAttr.RECURSIVE).futex(f).build());
    }

    /**
     * The primitive the adapter wraps, as a {@link Lock} with no bookkeeping at all: the rows
     * marked "no adapter" show what the adapter itself costs.
     */
    private static Lock rawMutex(final Memory mem) {
        final Mutex m = new Mutex(mem.block(0, MutexLayout.SIZE, MutexLayout.ALIGNMENT),
            MutexAttr.builder().type(MutexAttr.RECURSIVE).futex(Futexes.parking()).build());
        return new RawLock(m::lock, m::unlock);
    }

    /** The bare rwlock: its read and write locks without per-thread holds or owner. */
    private static ReadWriteLock rawRwLock(final Memory mem) {
        final RwLock rw = new RwLock(mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT),
            RwLockAttr.privateOn(Futexes.parking()));
        final Lock read = new RawLock(rw::rdLock, rw::unlock);
        final Lock write = new RawLock(rw::wrLock, rw::unlock);
        return new ReadWriteLock() {
            @Override
            public Lock readLock() {
                return read;
            }

            @Override
            public Lock writeLock() {
                return write;
            }
        };
    }

    /** Seed 002's test on the bare mutex and condvar. */
    private static Fixture rawPingPong() {
        final Memory mem = Memory.allocate(128);
        final Mutex m = new Mutex(mem.block(0, MutexLayout.SIZE, MutexLayout.ALIGNMENT),
            MutexAttr.builder().type(MutexAttr.RECURSIVE).futex(Futexes.parking()).build());
        final Cond c = new Cond(mem.block(64, CondLayout.SIZE, CondLayout.ALIGNMENT),
            CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).futex(Futexes.parking()).build());
        final Lock lock = new RawLock(m::lock, m::unlock);
        return pingPong(lock, new Condition() {
            @Override
            public void await() {
                c.await(m);
            }

            @Override
            public void signalAll() {
                c.broadcast();
            }

            @Override
            public void awaitUninterruptibly() {
                throw new UnsupportedOperationException();
            }

            @Override
            public long awaitNanos(final long nanos) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean await(final long time, final java.util.concurrent.TimeUnit unit) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean awaitUntil(final java.util.Date deadline) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void signal() {
                c.signal();
            }
        }, mem);
    }

    /** A {@link Lock} that is two calls of a primitive; only lock and unlock are used. */
    private record RawLock(IntSupplier acquire, IntSupplier release) implements Lock {
        @Override
        public void lock() {
            acquire.getAsInt();
        }

        @Override
        public void unlock() {
            release.getAsInt();
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
        public boolean tryLock(final long time, final java.util.concurrent.TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }

    private static Fixture lockStress(final Lock lock, final int threads, final AutoCloseable close) {
        final Stress.Body loop = Isolated.copy(JucLockLoop.class, lock);
        return Stress.sharesFixture(threads, loop, close);
    }

    /**
     * The lock/unlock stress with two figures: Kiter/s of all threads, and the share, the
     * fewest iterations of a thread over the most (1.0: every thread took the lock as often);
     * both over the run's last nine tenths ({@link Stress#windowed}).
     */
    private static Fixture fairStress(final Lock lock, final int threads, final AutoCloseable close) {
        final long[] live = new long[threads * Stress.STRIDE];
        final Stress.Body loop = Isolated.copy(FairLockLoop.class, lock, live);
        return new Fixture() {
            @Override
            public double[] trial(final long budgetNanos) throws Exception {
                final Stress.Result c = Stress.windowed(threads, budgetNanos, loop, live);
                return new double[] {c.opsPerSecond() / 1000.0, c.fewestOverMost()};
            }

            @Override
            public void close() {
                Fixture.closeAll(close);
            }
        };
    }

    /**
     * Seed 002's test: the turn goes 0, 1, 0, 1...; a thread waits while it is not its turn,
     * counts, passes the turn and broadcasts. Each thread's count is its turns.
     */
    private static Fixture pingPong(final Lock lock, final Condition cond, final AutoCloseable close) {
        final int[] turn = new int[1];
        final Runnable wakeAll = () -> {
            lock.lock();
            try {
                cond.signalAll();
            } finally {
                lock.unlock();
            }
        };
        return Fixture.of(budget -> Stress.run(2, budget, (me, stop) -> {
            long n = 0;
            lock.lock();
            try {
                while (!stop.stopped()) {
                    while (turn[0] != me && !stop.stopped()) {
                        cond.await();
                    }
                    n++;
                    turn[0] = 1 - me;
                    cond.signalAll();
                }
            } finally {
                lock.unlock();
            }
            return n;
        }, wakeAll) / 1000.0, close);
    }

    /** T threads; one operation in {@link #WRITE_EVERY} writes a pair, the others read it. */
    private static Fixture readMostly(final ReadWriteLock rw, final int threads, final AutoCloseable close) {
        final Stress.Body loop = Isolated.copy(ReadMostlyLoop.class, rw, new long[2], WRITE_EVERY);
        return Fixture.of(budget -> Stress.opsPerSecond(threads, budget, loop) / 1000.0, close);
    }
}
