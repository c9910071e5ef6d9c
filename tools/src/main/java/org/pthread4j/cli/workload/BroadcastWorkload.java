package org.pthread4j.cli.workload;

import org.HdrHistogram.Histogram;
import org.pthread4j.futex.Errno;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code bench broadcast}: seed 004's broadcast latency. W waiters sleep on one futex word,
 * their Java priorities spread over 1..10; one thread wakes them all, and the figure is the
 * time from the broadcast to the moment the last waiter runs, and to the moment the last
 * waiter of the top priority (10) runs. FIFO wakeup (the parking backend, and the kernel)
 * against priority-ordered wakeup (the parking backend created with priority order);
 * reference: {@code Condition.signalAll} of a {@code ReentrantLock}.
 *
 * <p>Each run is a batch of broadcasts (at least three, for the run's length); its figure is
 * the batch's median (an HdrHistogram). Before every broadcast all W waiters are asleep.
 * Java priorities order the priority backend's wake queue; Linux itself schedules all Java
 * threads alike unless the JVM is started with {@code -XX:ThreadPriorityPolicy=1} as root.
 */
public final class BroadcastWorkload implements Workload {
    /** The top Java priority, whose waiters the second measure follows. */
    static final int TOP = Thread.MAX_PRIORITY;

    /** Creates the workload. */
    public BroadcastWorkload() {
    }

    @Override
    public String name() {
        return "broadcast";
    }

    @Override
    public String description() {
        return "seed 004 broadcast latency: W waiters at mixed priorities (100, 1000 with --full), "
            + "FIFO vs priority-ordered wakeup vs Condition.signalAll";
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final int waiters = settings.pick(100, 1000);
        final List<Case> cases = new ArrayList<>();
        cases.add(Case.of("Condition.signalAll", "j.u.c ReentrantLock", () -> new OnCondition(waiters)));
        cases.add(Case.of("wake all (FIFO)", "parking",
            () -> new OnFutex(ParkingFutex.create(ParkingFutex.DEFAULT_BUCKETS, false), waiters)));
        cases.add(Case.of("wake all (priority order)", "parking-prio",
            () -> new OnFutex(ParkingFutex.create(ParkingFutex.DEFAULT_BUCKETS, true), waiters)));
        if (BenchBackends.kernel()) {
            cases.add(Case.of("wake all (FIFO)", "linux", () -> new OnFutex(Futexes.linux(), waiters)));
        } else {
            cases.add(Case.skipped("wake all (FIFO)", "linux", BenchBackends.NO_KERNEL));
        }
        final Group g = new Group("broadcast, " + waiters + " waiters", List.of(
            Measure.time("broadcast to last waiter running, " + waiters + " waiters", "us"),
            Measure.time("broadcast to last top-priority waiter running, " + waiters + " waiters", "us")),
            1, cases, true);
        return List.of(settings.full() ? g.sequential() : g);
    }

    /** W sleeping threads and the broadcasts that wake them. */
    private abstract static class Broadcast implements Fixture {
        private static final long SLEEP_TIMEOUT = 30_000_000_000L;

        final int count;
        final Thread[] threads;
        final int[] tids;
        final long[] stamps;
        final AtomicInteger ready = new AtomicInteger();
        final AtomicInteger arrived = new AtomicInteger();
        volatile boolean closing;
        volatile Thread main;
        volatile Throwable failure;
        int generation;

        Broadcast(final int count) {
            this.count = count;
            this.threads = new Thread[count];
            this.tids = new int[count];
            this.stamps = new long[count];
        }

        /** Starts the waiters; called at the end of a subclass constructor. */
        final void start() {
            for (int i = 0; i < count; i++) {
                final int index = i;
                threads[i] = Thread.ofPlatform().daemon().name("bench-broadcast-waiter-" + i)
                    .priority(Thread.MIN_PRIORITY + i % (Thread.MAX_PRIORITY - Thread.MIN_PRIORITY + 1))
                    .start(() -> waiterLoop(index));
            }
        }

        private void waiterLoop(final int index) {
            try {
                tids[index] = ThreadIds.currentIsKernelTid() ? ThreadIds.current() : 0;
                int seen = 0;
                for (;;) {
                    seen = sleepWhile(seen);
                    if (closing) {
                        return;
                    }
                    stamps[index] = System.nanoTime();
                    if (arrived.incrementAndGet() == count) {
                        LockSupport.unpark(main);
                    }
                }
            } catch (final Throwable t) {
                failure = t;
                arrived.incrementAndGet();
                LockSupport.unpark(main);
            }
        }

        /**
         * Counts the caller in {@link #ready} right before it sleeps, and sleeps while the
         * generation is {@code seen}.
         *
         * @return the new generation
         */
        abstract int sleepWhile(int seen);

        /** Starts the next generation and wakes every waiter. */
        abstract void broadcast(int next);

        @Override
        public double[] trial(final long budgetNanos) {
            main = Thread.currentThread();
            final Histogram all = new Histogram(3);
            final Histogram top = new Histogram(3);
            final long start = System.nanoTime();
            int n = 0;
            while (n < 3 || System.nanoTime() - start < budgetNanos) {
                awaitSleeping();
                arrived.set(0);
                ready.set(0);
                final long t0 = System.nanoTime();
                broadcast(++generation);
                while (arrived.get() < count) {
                    LockSupport.parkNanos(this, 1_000_000L);
                    if (failure != null) {
                        throw new IllegalStateException("a waiter failed: " + failure, failure);
                    }
                }
                long last = t0;
                long lastTop = t0;
                for (int i = 0; i < count; i++) {
                    last = Math.max(last, stamps[i]);
                    if (threads[i].getPriority() == TOP) {
                        lastTop = Math.max(lastTop, stamps[i]);
                    }
                }
                all.recordValue(Math.max(1, last - t0));
                top.recordValue(Math.max(1, lastTop - t0));
                n++;
            }
            return new double[] {all.getValueAtPercentile(50) / 1000.0, top.getValueAtPercentile(50) / 1000.0};
        }

        private void awaitSleeping() {
            final long end = System.nanoTime() + SLEEP_TIMEOUT;
            while (ready.get() < count) {
                if (failure != null) {
                    throw new IllegalStateException("a waiter failed: " + failure, failure);
                }
                if (System.nanoTime() - end > 0) {
                    throw new IllegalStateException("only " + ready.get() + " of " + count + " waiters went back to sleep");
                }
                LockSupport.parkNanos(100_000);
            }
            Sleepers.awaitAll(threads, tids, SLEEP_TIMEOUT);
        }

        @Override
        public void close() {
            closing = true;
            broadcast(++generation);
            for (final Thread t : threads) {
                if (t != null) {
                    Threads.join(t, 10_000);
                }
            }
        }
    }

    /** Waiters on one futex word; the broadcast sets the word and wakes all. */
    private static final class OnFutex extends Broadcast {
        private final Futex futex;
        private final Memory memory;
        private final MemorySegment seg;

        OnFutex(final Futex futex, final int count) {
            super(count);
            this.futex = futex;
            this.memory = Memory.allocate(64);
            this.seg = memory.segment();
            start();
        }

        @Override
        int sleepWhile(final int seen) {
            ready.incrementAndGet();
            int now;
            while ((now = (int) Block.INT.getVolatile(seg, 0L)) == seen) {
                final int r = futex.wait(seg, 0L, seen, true);
                if (r != 0 && r != Errno.EAGAIN) {
                    throw new IllegalStateException("wait returned " + Errno.name(r));
                }
            }
            return now;
        }

        @Override
        void broadcast(final int next) {
            Block.INT.setVolatile(seg, 0L, next);
            final int r = futex.wake(seg, 0L, -1, true);
            if (r < 0) {
                throw new IllegalStateException("wake returned " + Errno.name(-r));
            }
        }

        @Override
        public void close() {
            super.close();
            memory.close();
        }
    }

    /** The reference: waiters in {@code Condition.await}, woken by {@code signalAll}. */
    private static final class OnCondition extends Broadcast {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private int current;

        OnCondition(final int count) {
            super(count);
            start();
        }

        @Override
        int sleepWhile(final int seen) {
            lock.lock();
            try {
                ready.incrementAndGet();
                while (current == seen) {
                    changed.awaitUninterruptibly();
                }
                return current;
            } finally {
                lock.unlock();
            }
        }

        @Override
        void broadcast(final int next) {
            lock.lock();
            try {
                current = next;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
