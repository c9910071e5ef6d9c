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

        /** @return the fewest iterations of a thread over the most (1: equal shares; 0 when nobody counted) */
        double fewestOverMost() {
            long min = Long.MAX_VALUE;
            long max = 0;
            for (final long c : counts) {
                min = Math.min(min, c);
                max = Math.max(max, c);
            }
            return max == 0 ? 0 : (double) min / max;
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
                Fixture.closeAll(close);
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
        return counts(threads, budget, body, null, null);
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
        return counts(threads, budget, body, onStop, null).opsPerSecond();
    }

    /** The distance between two threads' live counts in a {@link #windowed} array: one per 128 bytes. */
    static final int STRIDE = 16;

    /** Reads a live count. */
    private static final java.lang.invoke.VarHandle LIVE = java.lang.invoke.MethodHandles.arrayElementVarHandle(long[].class);

    /**
     * Publishes a thread's live count for {@link #windowed}: an opaque store into its own
     * 128 bytes of the array, no fence.
     *
     * @param live  the array
     * @param index the thread's index
     * @param n     its count so far
     */
    static void publish(final long[] live, final int index, final long n) {
        LIVE.setOpaque(live, index * STRIDE, n);
    }

    /**
     * {@link #counts} over the middle of the run only: the body publishes its count as it goes
     * ({@link #publish}), and the counts are read a tenth of the budget after the start and again
     * at its end, so that the threads' staggered starts (each wakes from the start latch in turn)
     * do not count. For shares: the fewest iterations of a thread over the most.
     *
     * @param threads how many threads
     * @param budget  how long, in nanoseconds
     * @param body    each thread's loop, publishing into {@code live}
     * @param live    {@code threads * STRIDE} longs
     * @return the counts of the window and its length
     * @throws Exception when a thread failed or did not stop within 30 s
     */
    static Result windowed(final int threads, final long budget, final Body body, final long[] live) throws Exception {
        return counts(threads, budget, body, null, live);
    }

    private static Result counts(final int threads, final long budget, final Body body, final Runnable onStop,
                                 final long[] live) throws Exception {
        final Stop stop = new Stop();
        if (live != null) {
            java.util.Arrays.fill(live, 0); // the last run's threads have all ended
        }
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
        long from = t0;
        final long[] first = new long[threads];
        if (live != null) {
            while ((left = budget / 10 - (System.nanoTime() - t0)) > 0) {
                LockSupport.parkNanos(left);
            }
            for (int i = 0; i < threads; i++) {
                first[i] = (long) LIVE.getOpaque(live, i * STRIDE);
            }
            from = System.nanoTime();
        }
        while ((left = budget - (System.nanoTime() - t0)) > 0) {
            LockSupport.parkNanos(left);
        }
        final long[] last = new long[threads];
        if (live != null) {
            for (int i = 0; i < threads; i++) {
                last[i] = (long) LIVE.getOpaque(live, i * STRIDE) - first[i];
            }
        }
        final long elapsed = System.nanoTime() - from;
        stop.stopped = true;
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
        return new Result(live != null ? last : counts, elapsed);
    }
}
