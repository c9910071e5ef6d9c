package org.pthread4j.cli.workload;

import org.pthread4j.cli.bench.Fixture;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a loop body on T fresh platform threads for a fixed time and counts the iterations:
 * the shape of seed 000's stress test and of {@code perf bench futex hash}. Threads start
 * together (a latch), run until the main thread raises the stop flag, and report their
 * counts when they end.
 */
final class Stress {
    /** One thread's loop: runs until {@code stop} says so, returns its iteration count. */
    @FunctionalInterface
    interface Body {
        /**
         * @param index the thread's index, from 0
         * @param stop  the flag to poll
         * @return the iterations done
         * @throws Exception on failure
         */
        long run(int index, Stop stop) throws Exception;
    }

    /** The stop flag. */
    static final class Stop {
        private volatile boolean stopped;

        /** @return whether the threads should stop */
        boolean stopped() {
            return stopped;
        }
    }

    private Stress() {
    }

    /**
     * @param threads how many threads
     * @param budget  how long, in nanoseconds
     * @param body    each thread's loop
     * @return the total iterations per second
     * @throws Exception when a thread failed or did not stop within 30 s
     */
    static double opsPerSecond(final int threads, final long budget, final Body body) throws Exception {
        return run(threads, budget, body, null) / 1.0;
    }

    /**
     * What a stress run counted: every thread's iterations and how long the run took.
     *
     * @param counts       each thread's iterations, by index
     * @param elapsedNanos from the start signal to the stop flag
     */
    record Result(long[] counts, long elapsedNanos) {
        /** @return every thread's iterations together, per second */
        double opsPerSecond() {
            long total = 0;
            for (final long c : counts) {
                total += c;
            }
            return total * 1e9 / elapsedNanos;
        }

        /** @return the least any thread did, as a share of an equal split ({@link Shares}) */
        double minShare() {
            return Shares.min(counts);
        }

        /** @return the most any thread did, as a share of an equal split ({@link Shares}) */
        double maxShare() {
            return Shares.max(counts);
        }

        /** @return throughput in thousands a second, then the least and the most share */
        double[] kiloOpsAndShares() {
            return new double[] {opsPerSecond() / 1000.0, minShare(), maxShare()};
        }
    }

    /**
     * A fixture whose trial runs {@code body} on {@code threads} threads and returns
     * {@link Result#kiloOpsAndShares()}, the figures of {@link Shares#withShares}.
     *
     * @param threads how many threads
     * @param body    each thread's loop
     * @param close   what closing the fixture does
     * @return the fixture
     */
    static Fixture sharesFixture(final int threads, final Body body, final AutoCloseable close) {
        return new Fixture() {
            @Override
            public double[] trial(final long budgetNanos) throws Exception {
                return counts(threads, budgetNanos, body).kiloOpsAndShares();
            }

            @Override
            public void close() {
                try {
                    close.close();
                } catch (final RuntimeException e) {
                    throw e;
                } catch (final Exception e) {
                    throw new IllegalStateException("closing failed: " + e, e);
                }
            }
        };
    }

    /**
     * @param threads how many threads
     * @param budget  how long, in nanoseconds
     * @param body    each thread's loop
     * @return each thread's count and the run's length
     * @throws Exception when a thread failed or did not stop within 30 s
     */
    static Result counts(final int threads, final long budget, final Body body) throws Exception {
        return runCounting(threads, budget, body, null);
    }

    /**
     * @param threads how many threads
     * @param budget  how long, in nanoseconds
     * @param body    each thread's loop
     * @param onStop  run by the main thread after raising the stop flag, again every 10 ms
     *                until every thread ended (to release threads that sleep), or {@code null}
     * @return the total iterations per second
     * @throws Exception when a thread failed or did not stop within 30 s
     */
    static double run(final int threads, final long budget, final Body body, final Runnable onStop) throws Exception {
        return runCounting(threads, budget, body, onStop).opsPerSecond();
    }

    private static Result runCounting(final int threads, final long budget, final Body body, final Runnable onStop)
        throws Exception {
        final Stop stop = new Stop();
        final long[] counts = new long[threads];
        final Throwable[] failures = new Throwable[threads];
        final CountDownLatch ready = new CountDownLatch(threads);
        final CountDownLatch go = new CountDownLatch(1);
        final Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            final int index = i;
            ts[i] = Thread.ofPlatform().daemon().name("bench-stress-" + i).start(() -> {
                ready.countDown();
                try {
                    go.await();
                    counts[index] = body.run(index, stop);
                } catch (final Throwable t) {
                    failures[index] = t;
                }
            });
        }
        ready.await();
        final long t0 = System.nanoTime();
        go.countDown();
        long left;
        while ((left = budget - (System.nanoTime() - t0)) > 0) {
            LockSupport.parkNanos(left);
        }
        stop.stopped = true;
        final long elapsed = System.nanoTime() - t0;
        final long joinEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int i = 0; i < threads; i++) {
            while (ts[i].isAlive() && System.nanoTime() - joinEnd < 0) {
                if (onStop != null) {
                    onStop.run();
                }
                ts[i].join(10);
            }
            if (ts[i].isAlive()) {
                throw new IllegalStateException("thread " + i + " did not stop within 30 s (a lost wakeup?)");
            }
            if (failures[i] != null) {
                throw new IllegalStateException("thread " + i + " failed: " + failures[i], failures[i]);
            }
        }
        return new Result(counts, elapsed);
    }
}
