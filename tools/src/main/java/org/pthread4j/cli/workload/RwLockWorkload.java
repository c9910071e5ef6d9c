package org.pthread4j.cli.workload;

import org.pthread4j.RwLock;
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
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.StampedLock;

/**
 * {@code bench rwlock}: T threads read or write two counters under one read-write lock in a
 * loop, each operation drawn at random: a read-mostly mix (95% reads, 5% writes) and a
 * write-heavy mix (50/50). A read takes the read lock and checks that both counters are equal
 * (a torn read fails the run); a write takes the write lock and increments both. The figure is
 * thousands of operations per second of all threads. Reference: {@code ReentrantReadWriteLock}
 * (non-fair); beside it {@code StampedLock} with its read lock and with an optimistic read
 * (validated, falling back to the read lock), and the library's {@code RwLock} (musl's
 * reader-preferring lock) on the parking and linux backends.
 */
public final class RwLockWorkload implements Workload {
    /** The mixes, as percentages of writes. */
    private static final int[] WRITE_PERCENTS = {5, 50};

    /** Creates the workload. */
    public RwLockWorkload() {
    }

    @Override
    public String name() {
        return "rwlock";
    }

    @Override
    public String description() {
        return "read-mostly (95/5) and write-heavy (50/50) mixes: RwLock (parking, linux) vs "
            + "ReentrantReadWriteLock and StampedLock (read lock, optimistic read)";
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final List<Group> groups = new ArrayList<>();
        for (final int writes : WRITE_PERCENTS) {
            final String section = "rwlock " + (100 - writes) + "% reads / " + writes + "% writes";
            for (final int t : settings.threadsOr(List.of(4), List.of(2, 4, 8, 16))) {
                final List<Case> cases = new ArrayList<>();
                cases.add(Case.of("ReentrantReadWriteLock", "j.u.c", () -> mix(new OnReentrant(), t, writes)));
                cases.add(Case.of("StampedLock, read lock", "j.u.c", () -> mix(new OnStamped(), t, writes)));
                cases.add(Case.of("StampedLock, optimistic read", "j.u.c", () -> mix(new OnStampedOptimistic(), t, writes)));
                cases.addAll(BenchBackends.perPlace("RwLock", List.of("parking", "linux"),
                    place -> () -> mix(new OnRwLock(place), t, writes)));
                groups.add(Group.of(section, Measure.rate(section, "Kops/s"), t, cases));
            }
        }
        return groups;
    }

    private static Fixture mix(final Guarded data, final int threads, final int writePercent) {
        return Fixture.of(budget -> Stress.opsPerSecond(threads, budget, (index, stop) -> {
            int x = 0x9e3779b9 * (index + 1);
            long n = 0;
            while (!stop.stopped()) {
                x ^= x << 13;
                x ^= x >>> 17;
                x ^= x << 5;
                if (Integer.remainderUnsigned(x, 100) < writePercent) {
                    data.write();
                } else {
                    data.read();
                }
                n++;
            }
            return n;
        }) / 1000.0, data);
    }

    /** Two counters a lock guards; writers keep them equal. */
    private abstract static class Guarded implements AutoCloseable {
        long a;
        long b;

        abstract void readLock();

        abstract void readUnlock();

        abstract void writeLock();

        abstract void writeUnlock();

        /** @return the counter, read under the read lock */
        long read() {
            readLock();
            try {
                return checked(a, b);
            } finally {
                readUnlock();
            }
        }

        /** Increments both counters under the write lock. */
        void write() {
            writeLock();
            try {
                a++;
                b++;
            } finally {
                writeUnlock();
            }
        }

        static long checked(final long x, final long y) {
            if (x != y) {
                throw new IllegalStateException("torn read under the read lock: " + x + " != " + y);
            }
            return x;
        }

        @Override
        public void close() {
        }
    }

    private static final class OnReentrant extends Guarded {
        private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        private final ReentrantReadWriteLock.ReadLock r = lock.readLock();
        private final ReentrantReadWriteLock.WriteLock w = lock.writeLock();

        @Override
        void readLock() {
            r.lock();
        }

        @Override
        void readUnlock() {
            r.unlock();
        }

        @Override
        void writeLock() {
            w.lock();
        }

        @Override
        void writeUnlock() {
            w.unlock();
        }
    }

    private static class OnStamped extends Guarded {
        final StampedLock lock = new StampedLock();
        private final Lock r = lock.asReadLock();
        private final Lock w = lock.asWriteLock();

        @Override
        void readLock() {
            r.lock();
        }

        @Override
        void readUnlock() {
            r.unlock();
        }

        @Override
        void writeLock() {
            w.lock();
        }

        @Override
        void writeUnlock() {
            w.unlock();
        }
    }

    private static final class OnStampedOptimistic extends OnStamped {
        @Override
        long read() {
            final long stamp = lock.tryOptimisticRead();
            final long x = a;
            final long y = b;
            if (stamp != 0 && lock.validate(stamp)) {
                return checked(x, y);
            }
            return super.read();
        }
    }

    private static final class OnRwLock extends Guarded {
        private final Memory memory;
        private final RwLock lock;

        OnRwLock(final BenchBackends.Place place) throws IOException {
            this.memory = place.memory(64);
            this.lock = place.rwlock(memory, 0);
        }

        @Override
        void readLock() {
            BenchBackends.check(lock.rdLock(), "pthread_rwlock_rdlock");
        }

        @Override
        void readUnlock() {
            BenchBackends.check(lock.unlock(), "pthread_rwlock_unlock");
        }

        @Override
        void writeLock() {
            BenchBackends.check(lock.wrLock(), "pthread_rwlock_wrlock");
        }

        @Override
        void writeUnlock() {
            BenchBackends.check(lock.unlock(), "pthread_rwlock_unlock");
        }

        @Override
        public void close() {
            memory.close();
        }
    }
}
