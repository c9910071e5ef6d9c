package org.pthread4j.juc;

import org.pthread4j.MutexAttr;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.testing.Sleepers;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the adapter tests share. */
final class JucTestSupport {
    /** Liveness bound for anything that should happen: generous, never a speed assertion. */
    static final Duration LIVENESS = Duration.ofSeconds(Long.getLong("pthread4j.test.liveness", 60));

    private JucTestSupport() {
    }

    /** @return RECURSIVE attributes on a backend */
    static MutexAttr recursive(final Futex f) {
        return MutexAttr.builder().type(MutexAttr.RECURSIVE).futex(f).build();
    }

    /** @return ERRORCHECK attributes on a backend */
    static MutexAttr errorcheck(final Futex f) {
        return MutexAttr.builder().type(MutexAttr.ERRORCHECK).futex(f).build();
    }

    /** @return whether a blocked thread on this backend parks (and so shows WAITING) */
    static boolean parks(final Futex f) {
        return f instanceof ParkingFutex;
    }

    /**
     * Asserts that a blocked thread shows {@code state} (polled within the liveness bound: a
     * parked thread may run for a moment after a spurious return from {@code park}).
     */
    static void assertShows(final Thread thread, final Thread.State state) {
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (thread.getState() != state && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        assertEquals(state, thread.getState(), thread.getName());
    }

    /** Holds a lock (read or write) on another thread until released. */
    static final class Holder implements AutoCloseable {
        private final CountDownLatch release = new CountDownLatch(1);
        private final Call<Void> call;

        Holder(final Lock lock) throws Exception {
            final CountDownLatch held = new CountDownLatch(1);
            call = Call.start("holder", () -> {
                lock.lock();
                held.countDown();
                release.await();
                lock.unlock();
                return null;
            });
            assertTrue(held.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
        }

        /** @return the holding thread */
        Thread thread() {
            return call.thread;
        }

        void release() throws Exception {
            release.countDown();
            call.assertResult(null);
        }

        @Override
        public void close() {
            release.countDown();
        }
    }

    /**
     * Rounds of: a waiter takes {@code lock} and awaits {@code cond}; this thread, blocked in
     * {@code lock()} meanwhile, gets the lock only once the waiter released it inside the await,
     * and must then read the waiter in {@code length} and {@code hasWaiters} at once.
     */
    static void countsTheWaiterRightAfterItsRelease(final Lock lock, final Condition cond,
                                                    final ToIntFunction<Condition> length,
                                                    final Predicate<Condition> hasWaiters) throws Exception {
        final int rounds = 200;
        final Semaphore arrived = new Semaphore(0);
        final AtomicInteger signalled = new AtomicInteger();
        final Call<Void> waiter = Call.start("waiter", () -> {
            for (int r = 1; r <= rounds; r++) {
                lock.lock();
                try {
                    arrived.release();
                    while (signalled.get() < r) {
                        cond.awaitUninterruptibly();
                    }
                } finally {
                    lock.unlock();
                }
            }
            return null;
        });
        for (int r = 1; r <= rounds; r++) {
            assertTrue(arrived.tryAcquire(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            lock.lock(); // granted once the waiter released it inside the await
            try {
                assertEquals(1, length.applyAsInt(cond), "round " + r);
                assertTrue(hasWaiters.test(cond), "round " + r);
                signalled.set(r);
                cond.signal();
            } finally {
                lock.unlock();
            }
        }
        waiter.assertResult(null);
    }

    /**
     * A call running on its own platform thread: its result or exception, when it ended, and
     * whether its interrupt status was set when it ended.
     */
    static final class Call<T> {
        final Thread thread;
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile int tid;
        private volatile T result;
        private volatile Throwable failure;
        private volatile long endNanos;
        private volatile boolean interruptedAtEnd;

        private Call(final String name, final Callable<T> body) {
            this.thread = Thread.ofPlatform().daemon().name(name).unstarted(() -> {
                tid = ThreadIds.current();
                started.countDown();
                try {
                    result = body.call();
                } catch (final Throwable t) {
                    failure = t;
                }
                endNanos = System.nanoTime();
                interruptedAtEnd = Thread.currentThread().isInterrupted();
                done.countDown();
            });
        }

        static <T> Call<T> start(final String name, final Callable<T> body) throws InterruptedException {
            final Call<T> c = new Call<>(name, body);
            c.thread.start();
            assertTrue(c.started.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            return c;
        }

        /**
         * Waits until the call sleeps: the primitive counts at least {@code n} waiters and the
         * thread is parked or inside a futex wait (on {@code address}, or any when 0).
         */
        Call<T> awaitAsleep(final IntSupplier waiters, final int n, final long address) {
            final long end = System.nanoTime() + LIVENESS.toNanos();
            while (waiters.getAsInt() < n) {
                if (System.nanoTime() > end) {
                    throw new AssertionError(thread.getName() + " never counted as a waiter; state " + thread.getState());
                }
                Thread.onSpinWait();
                Thread.yield();
            }
            Sleepers.awaitAsleep(thread, tid, address, LIVENESS);
            return this;
        }

        /** @return whether the call is still running */
        boolean running() {
            return done.getCount() != 0;
        }

        /** Waits (bounded) for the end; fails the test when it does not end. */
        Call<T> awaitEnd() throws InterruptedException {
            assertTrue(done.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS),
                thread.getName() + " did not finish within " + LIVENESS + "; state " + thread.getState());
            return this;
        }

        /** @return the result, after the end; rethrows a failure */
        T get() throws Exception {
            awaitEnd();
            if (failure instanceof Exception e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            return result;
        }

        /** @return the exception the call threw, after the end */
        Throwable failure() throws InterruptedException {
            awaitEnd();
            return failure;
        }

        /** @return when the call ended, by {@link System#nanoTime()} */
        long endNanos() {
            return endNanos;
        }

        boolean interruptedAtEnd() {
            return interruptedAtEnd;
        }

        /**
         * Interrupts the call and checks that it ended with {@link InterruptedException} and its
         * interrupt status cleared, as {@code java.util.concurrent} does.
         *
         * @return the milliseconds from the interrupt to the end of the call (reported, never
         *     asserted: the machine is shared)
         */
        double interruptExpectingInterruptedException() throws InterruptedException {
            final long t0 = System.nanoTime();
            thread.interrupt();
            final Throwable t = failure();
            assertInstanceOf(InterruptedException.class, t, "expected InterruptedException");
            assertFalse(interruptedAtEnd, "the interrupt status must be cleared");
            final double ms = (endNanos - t0) / 1e6;
            System.out.printf("interrupt latency: %s answered in %.3f ms%n", thread.getName(), ms);
            return ms;
        }

        /** Asserts the call ended normally with {@code expected}. */
        void assertResult(final T expected) throws Exception {
            assertEquals(expected, get());
            assertNull(failure);
        }
    }
}
