package org.pthread4j.cli.workload;

import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.futex.Futexes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code bench lock}: seed 000's lock/unlock stress. T threads take and release one lock in
 * a loop with an empty critical section; the figure is thousands of iterations per second of
 * all threads together (the seed's Kiter/s), with the least and the most any one thread did, as
 * shares of an equal split ({@link Shares}). Reference: {@code ReentrantLock}. The 1-thread
 * group is the uncontended cost (its ratio is the inverse of the time ratio).
 *
 * <p>To add a lock (a library mutex kind), add one {@link LockImpl} to {@link #IMPLS}.
 */
public final class LockWorkload implements Workload {
    /**
     * A lock the stress measures.
     *
     * @param impl        the impl column
     * @param backend     the backend column
     * @param needsKernel whether it needs the Linux futex backend
     * @param maker       makes a fresh lock
     */
    public record LockImpl(String impl, String backend, boolean needsKernel, StressLock.Maker maker) {
    }

    /**
     * The locks measured, the reference first: the JVM's locks, the library's {@code Mutex}
     * (NORMAL) on every private backend and process-shared, then seed 000's own 3-state lock
     * with its plain wait and its set-and-wait.
     */
    public static final List<LockImpl> IMPLS = impls();

    private static List<LockImpl> impls() {
        final List<LockImpl> impls = new ArrayList<>();
        impls.add(new LockImpl("ReentrantLock", "j.u.c", false, LockWorkload::reentrantLock));
        impls.add(new LockImpl("synchronized", "JVM monitor", false, LockWorkload::monitor));
        for (final String place : BenchBackends.privateAndShared()) {
            impls.add(new LockImpl("Mutex", place, BenchBackends.needsKernel(place),
                () -> new MutexLock(BenchBackends.Place.named(place))));
        }
        impls.add(new LockImpl("seed-000 lock, wait", "parking", false,
            () -> new SampleFutexLock(Futexes.parking(), false, true)));
        impls.add(new LockImpl("seed-000 lock, set-wait", "parking", false,
            () -> new SampleFutexLock(Futexes.parking(), true, true)));
        impls.add(new LockImpl("seed-000 lock, wait", "linux", true,
            () -> new SampleFutexLock(Futexes.linux(), false, true)));
        impls.add(new LockImpl("seed-000 lock, set-wait (CAS+wait)", "linux", true,
            () -> new SampleFutexLock(Futexes.linux(), true, true)));
        return List.copyOf(impls);
    }

    /** Creates the workload. */
    public LockWorkload() {
    }

    @Override
    public String name() {
        return "lock";
    }

    @Override
    public String description() {
        return "seed 000 lock/unlock stress at 1 (uncontended), 2, 4... threads: Mutex per backend and pshared, "
            + "ReentrantLock, synchronized, the seed's futex lock (wait and set-and-wait), C pthread_mutex (glibc, musl)";
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final List<Group> groups = new ArrayList<>();
        for (final int t : settings.threadsOr(List.of(1, 2, 4), List.of(1, 2, 3, 4, 8, 16, 32, 64))) {
            final List<Case> cases = new ArrayList<>();
            for (final LockImpl l : IMPLS) {
                if (l.needsKernel() && !BenchBackends.kernel()) {
                    cases.add(Case.skipped(l.impl(), l.backend(), BenchBackends.NO_KERNEL));
                } else {
                    cases.add(Case.of(l.impl(), l.backend(), () -> stress(l.maker().make(), t)));
                }
            }
            cases.add(CPrograms.of(settings.cCache(), "futex_lock", "seed-000 lock, wait", "wait", Integer.toString(t)));
            cases.addAll(CPrograms.each(settings.cCache(), "futex_lock", "pthread_mutex", "pthread", Integer.toString(t)));
            groups.add(new Group("lock/unlock stress", Shares.withShares("lock/unlock stress", "Kiter/s"), t, cases,
                true));
        }
        return groups;
    }

    private static Fixture stress(final StressLock lock, final int threads) {
        final Stress.Body loop = Isolated.copy(LockLoop.class, lock);
        return Stress.sharesFixture(threads, loop, lock);
    }

    private static StressLock reentrantLock() {
        final ReentrantLock lock = new ReentrantLock();
        return () -> {
            lock.lock();
            lock.unlock();
        };
    }

    private static StressLock monitor() {
        final Object monitor = new Object();
        return () -> {
            synchronized (monitor) {
                // empty, as the seed's critical section; the JIT keeps a monitor that other threads share
            }
        };
    }
}
