package org.pthread4j.juc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.Sem;
import org.pthread4j.SemLayout;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.juc.JucTestSupport.LIVENESS;

/** {@link PthreadSemaphore}: every overridden method's results, on every private backend. */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PthreadSemaphoreTest {
    /** A semaphore placed in test memory, so its futex word's address is known. */
    static final class Fixture implements AutoCloseable {
        final Memory memory = Memory.allocate(64);
        final Block block = memory.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
        final PthreadSemaphore sem;

        Fixture(final Futex f, final int permits) {
            sem = PthreadSemaphore.of(new Sem(block, false, permits, f));
        }

        <T> JucTestSupport.Call<T> blocked(final String name, final int waiters, final Callable<T> body)
            throws InterruptedException {
            return JucTestSupport.Call.start(name, body).awaitAsleep(sem::getWaiterCount, waiters,
                block.address(SemLayout.VALUE));
        }

        @Override
        public void close() {
            memory.close();
        }
    }

    /** A subclass, to reach the protected methods. */
    static final class Reducible extends PthreadSemaphore {
        private static final long serialVersionUID = 1L;

        Reducible(final int permits, final Futex f) {
            super(permits, f);
        }

        void reduce(final int n) {
            reducePermits(n);
        }

        int queued() {
            return getQueuedThreads().size();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void singlePermitsAreTakenAndReturned(final Futex f) throws Exception {
        final PthreadSemaphore s = new PthreadSemaphore(2, f);
        assertEquals(2, s.availablePermits());
        s.acquire();
        s.acquireUninterruptibly();
        assertEquals(0, s.availablePermits());
        assertFalse(s.tryAcquire());
        assertFalse(s.tryAcquire(0, TimeUnit.SECONDS));
        final long t0 = System.nanoTime();
        assertFalse(s.tryAcquire(20, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(20), "returned before the timeout");
        s.release();
        assertTrue(s.tryAcquire());
        s.release();
        assertTrue(s.tryAcquire(1, TimeUnit.SECONDS));
        s.release();
        s.release();
        s.release(); // a release needs no acquire, as in the JDK
        assertEquals(3, s.availablePermits());
        assertEquals(3, s.drainPermits());
        assertEquals(0, s.drainPermits());
        assertEquals(0, s.availablePermits());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void permitCountsAreTakenAllOrNothing(final Futex f) throws Exception {
        final PthreadSemaphore s = new PthreadSemaphore(5, f);
        assertFalse(s.tryAcquire(6));
        assertEquals(5, s.availablePermits());
        assertTrue(s.tryAcquire(3));
        assertEquals(2, s.availablePermits());
        assertFalse(s.tryAcquire(3, 10, TimeUnit.MILLISECONDS));
        assertEquals(2, s.availablePermits(), "a timed-out count takes nothing");
        s.acquire(2);
        assertEquals(0, s.availablePermits());
        s.release(4);
        s.acquireUninterruptibly(4);
        assertTrue(s.tryAcquire(0));
        s.acquire(0);
        s.acquireUninterruptibly(0);
        assertTrue(s.tryAcquire(0, 0, TimeUnit.SECONDS));
        s.release(0);
        assertEquals(0, s.availablePermits());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void negativeCountsAreIllegalArguments(final Futex f) {
        final PthreadSemaphore s = new PthreadSemaphore(1, f);
        assertThrows(IllegalArgumentException.class, () -> s.acquire(-1));
        assertThrows(IllegalArgumentException.class, () -> s.acquireUninterruptibly(-1));
        assertThrows(IllegalArgumentException.class, () -> s.tryAcquire(-1));
        assertThrows(IllegalArgumentException.class, () -> s.tryAcquire(-1, 1, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> s.release(-1));
        assertThrows(IllegalArgumentException.class, () -> new Reducible(1, f).reduce(-1));
        assertThrows(IllegalArgumentException.class, () -> new PthreadSemaphore(-1, f));
        assertThrows(NullPointerException.class, () -> s.tryAcquire(1, null));
        assertEquals(1, s.availablePermits());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aReleaseWakesAWaitingAcquirer(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f, 0)) {
            final JucTestSupport.Call<Void> a = fx.blocked("acquire", 1, () -> {
                fx.sem.acquire();
                return null;
            });
            final JucTestSupport.Call<Boolean> b = fx.blocked("timed", 2, () ->
                fx.sem.tryAcquire(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            final JucTestSupport.Call<Void> c = fx.blocked("uninterruptibly", 3, () -> {
                fx.sem.acquireUninterruptibly();
                return null;
            });
            assertTrue(fx.sem.hasWaiters());
            assertEquals(3, fx.sem.getWaiterCount());
            assertFalse(fx.sem.hasQueuedThreads(), "final in Semaphore: reads the unused inherited queue");
            assertEquals(0, fx.sem.getQueueLength());
            fx.sem.release(3);
            a.assertResult(null);
            b.assertResult(true);
            c.assertResult(null);
            assertEquals(0, fx.sem.availablePermits());
            assertEquals(0, fx.sem.getWaiterCount());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aCountWaiterWakesOnlyWhenEnoughArePosted(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f, 1)) {
            final JucTestSupport.Call<Integer> w = fx.blocked("three", 1, () -> {
                fx.sem.acquire(3);
                return fx.sem.availablePermits();
            });
            fx.sem.release();
            // two permits are not enough: the waiter stays asleep
            w.awaitAsleep(fx.sem::getWaiterCount, 1, fx.block.address(SemLayout.VALUE));
            assertTrue(w.running());
            assertEquals(2, fx.sem.availablePermits());
            fx.sem.release(2);
            w.assertResult(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void interruptedCallersGetInterruptedExceptionAtOnceEvenWithPermits(final Futex f) {
        final PthreadSemaphore s = new PthreadSemaphore(5, f);
        final List<Callable<?>> calls = List.of(
            () -> {
                s.acquire();
                return null;
            },
            () -> {
                s.acquire(2);
                return null;
            },
            () -> {
                s.acquire(0);
                return null;
            },
            () -> s.tryAcquire(1, TimeUnit.SECONDS),
            () -> s.tryAcquire(2, 1, TimeUnit.SECONDS));
        for (final Callable<?> c : calls) {
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, c::call);
            assertFalse(Thread.interrupted(), "status cleared");
        }
        assertEquals(5, s.availablePermits());
        // the untimed tryAcquire and the uninterruptible forms ignore the interrupt
        Thread.currentThread().interrupt();
        assertTrue(s.tryAcquire());
        s.acquireUninterruptibly();
        s.acquireUninterruptibly(2);
        assertTrue(Thread.interrupted());
        assertEquals(1, s.availablePermits());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void waitingAcquirersAnswerInterruptsAndTakeNothing(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f, 1)) {
            fx.blocked("acquire", 1, () -> {
                fx.sem.acquire(2);
                return null;
            }).interruptExpectingInterruptedException();
            fx.blocked("timed", 1, () -> fx.sem.tryAcquire(3, LIVENESS.toMillis(), TimeUnit.MILLISECONDS))
                .interruptExpectingInterruptedException();
            assertTrue(fx.sem.tryAcquire());
            fx.blocked("acquire-one", 1, () -> {
                fx.sem.acquire();
                return null;
            }).interruptExpectingInterruptedException();
            fx.blocked("timed-one", 1, () -> fx.sem.tryAcquire(LIVENESS.toMillis(), TimeUnit.MILLISECONDS))
                .interruptExpectingInterruptedException();
            assertEquals(0, fx.sem.availablePermits());
            assertEquals(0, fx.sem.getWaiterCount());
            fx.sem.release();
            assertEquals(1, fx.sem.availablePermits());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void uninterruptibleAcquiresWaitThroughAnInterrupt(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f, 0)) {
            final JucTestSupport.Call<Void> w = fx.blocked("uninterruptibly", 1, () -> {
                fx.sem.acquireUninterruptibly(2);
                return null;
            });
            w.thread.interrupt();
            w.awaitAsleep(fx.sem::getWaiterCount, 1, fx.block.address(SemLayout.VALUE));
            fx.sem.release(2);
            w.assertResult(null);
            assertTrue(w.interruptedAtEnd());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void blockedAcquirersShowAsWaitingOnTheParkingBackend(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f, 0)) {
            final JucTestSupport.Call<Void> a = fx.blocked("acquire", 1, () -> {
                fx.sem.acquire();
                return null;
            });
            final JucTestSupport.Call<Boolean> b = fx.blocked("timed", 2, () ->
                fx.sem.tryAcquire(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            if (JucTestSupport.parks(f)) {
                JucTestSupport.assertShows(a.thread, Thread.State.WAITING);
                JucTestSupport.assertShows(b.thread, Thread.State.TIMED_WAITING);
            }
            fx.sem.release(2);
            a.assertResult(null);
            b.assertResult(true);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void releasePastTheMaximumIsAnError(final Futex f) {
        final PthreadSemaphore s = new PthreadSemaphore(Sem.VALUE_MAX - 1, f);
        s.release();
        assertThrows(Error.class, s::release);
        assertThrows(Error.class, () -> s.release(1));
        assertEquals(Sem.VALUE_MAX, s.availablePermits());
        assertTrue(s.tryAcquire(10));
        assertThrows(Error.class, () -> s.release(11));
        assertEquals(Sem.VALUE_MAX - 10, s.availablePermits());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void reducePermitsTakesWithoutWaitingAndCannotGoBelowZero(final Futex f) {
        final Reducible s = new Reducible(3, f);
        s.reduce(2);
        assertEquals(1, s.availablePermits());
        s.reduce(0);
        assertThrows(IllegalStateException.class, () -> s.reduce(2));
        assertEquals(1, s.availablePermits());
        assertEquals(0, s.queued());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void permitsAreConservedUnderMixedCounts(final Futex f) throws Exception {
        final PthreadSemaphore s = new PthreadSemaphore(6, f);
        final AtomicInteger inUse = new AtomicInteger();
        final AtomicInteger overdrawn = new AtomicInteger();
        final List<JucTestSupport.Call<Void>> calls = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final int n = t % 3 + 1;
            calls.add(JucTestSupport.Call.<Void>start("user-" + t, () -> {
                for (int i = 0; i < 3_000; i++) {
                    switch (i % 3) {
                        case 0 -> s.acquire(n);
                        case 1 -> s.acquireUninterruptibly(n);
                        default -> {
                            if (!s.tryAcquire(n, LIVENESS.toMillis(), TimeUnit.MILLISECONDS)) {
                                throw new AssertionError("timed out");
                            }
                        }
                    }
                    if (inUse.addAndGet(n) > 6) {
                        overdrawn.incrementAndGet();
                    }
                    inUse.addAndGet(-n);
                    if (n == 1) {
                        s.release();
                    } else {
                        s.release(n);
                    }
                }
                return null;
            }));
        }
        for (final JucTestSupport.Call<Void> c : calls) {
            c.assertResult(null);
        }
        assertEquals(0, overdrawn.get());
        assertEquals(6, s.availablePermits());
    }

    @Test
    void aPlacedSemaphoreIsSeenThroughAnAttachedOne() {
        try (Memory m = Memory.allocate(64)) {
            final Block b = m.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
            final PthreadSemaphore s = new PthreadSemaphore(b, false, 2);
            final PthreadSemaphore view = PthreadSemaphore.attach(b);
            assertTrue(view.tryAcquire(2));
            assertEquals(0, s.availablePermits());
            s.release();
            assertEquals(1, view.availablePermits());
            assertThrows(IllegalArgumentException.class, () -> new PthreadSemaphore(b, false, -1));
        }
    }

    /** Serialization: see {@link AdapterSerializationTest}. */
    @Test
    void stringsAndFairness() {
        final PthreadSemaphore s = new PthreadSemaphore(3);
        assertTrue(s.toString().endsWith("[Permits = 3]"), s.toString());
        assertTrue(s.toString().startsWith(PthreadSemaphore.class.getName() + "@"), s.toString());
        assertFalse(s.isFair());
    }
}
