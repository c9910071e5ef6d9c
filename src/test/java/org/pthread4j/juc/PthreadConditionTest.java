package org.pthread4j.juc;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.CondAttr;
import org.pthread4j.CondLayout;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.futex.Timespec;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Backends;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.juc.JucTestSupport.LIVENESS;
import static org.pthread4j.juc.JucTestSupport.recursive;

/** {@link PthreadCondition} of a {@link PthreadLock}: every await form and signal, on every private backend. */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PthreadConditionTest {
    /** The await forms a test can run: each returns whether it was signalled (timed forms: not timed out). */
    enum Form {
        AWAIT, AWAIT_NANOS, AWAIT_TIMED, AWAIT_UNTIL, AWAIT_UNINTERRUPTIBLY;

        boolean interruptible() {
            return this != AWAIT_UNINTERRUPTIBLY;
        }

        /** Waits "forever" (the liveness bound for the timed forms). */
        boolean await(final PthreadCondition c) throws InterruptedException {
            return switch (this) {
                case AWAIT -> {
                    c.await();
                    yield true;
                }
                case AWAIT_NANOS -> c.awaitNanos(LIVENESS.toNanos()) > 0;
                case AWAIT_TIMED -> c.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
                case AWAIT_UNTIL -> c.awaitUntil(new Date(System.currentTimeMillis() + LIVENESS.toMillis()));
                case AWAIT_UNINTERRUPTIBLY -> {
                    c.awaitUninterruptibly();
                    yield true;
                }
            };
        }
    }

    static Stream<Arguments> backendsAndForms() {
        return Backends.privateBackends().flatMap(f -> Stream.of(Form.values()).map(w -> Arguments.of(f, w)));
    }

    static Stream<Arguments> backendsAndInterruptibleForms() {
        return backendsAndForms().filter(a -> ((Form) a.get()[1]).interruptible());
    }

    /** A lock and a condition; {@code flag} is guarded by the lock. */
    static final class Fixture {
        final PthreadLock lock;
        final PthreadCondition cond;
        volatile int flag;

        Fixture(final Futex f) {
            lock = new PthreadLock(recursive(f));
            cond = lock.newCondition();
        }

        int waiting() {
            lock.lock();
            try {
                return lock.getWaitQueueLength(cond);
            } finally {
                lock.unlock();
            }
        }

        /** Starts a waiter that takes the lock {@code holds} times and waits once with {@code form}. */
        JucTestSupport.Call<Integer> waiter(final String name, final int holds, final Form form)
            throws InterruptedException {
            return JucTestSupport.Call.start(name, () -> {
                for (int i = 0; i < holds; i++) {
                    lock.lock();
                }
                try {
                    final boolean signalled = form.await(cond);
                    if (!signalled) {
                        throw new AssertionError("timed out");
                    }
                    return lock.getHoldCount();
                } finally {
                    for (int i = 0; i < holds; i++) {
                        lock.unlock();
                    }
                }
            }).awaitAsleep(this::waiting, 1, 0);
        }

        void signal(final boolean all) {
            lock.lock();
            try {
                flag++;
                if (all) {
                    cond.signalAll();
                } else {
                    cond.signal();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    // ------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndForms")
    void awaitReleasesEveryHoldAndRestoresThemWhenSignalled(final Futex f, final Form form) throws Exception {
        final Fixture fx = new Fixture(f);
        final JucTestSupport.Call<Integer> w = fx.waiter("waiter", 3, form);
        // The lock is completely free while the waiter waits.
        assertTrue(JucTestSupport.Call.start("other", () -> {
            final boolean got = fx.lock.tryLock();
            if (got) {
                fx.lock.unlock();
            }
            return got;
        }).get());
        assertFalse(fx.lock.isLocked());
        fx.signal(false);
        w.assertResult(3);
        assertFalse(fx.lock.isLocked());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndForms")
    void everyFormWithoutTheLockThrowsIllegalMonitorState(final Futex f, final Form form) {
        final Fixture fx = new Fixture(f);
        assertThrows(IllegalMonitorStateException.class, () -> form.await(fx.cond));
        assertThrows(IllegalMonitorStateException.class, fx.cond::signal);
        assertThrows(IllegalMonitorStateException.class, fx.cond::signalAll);
        assertFalse(fx.lock.isLocked());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndInterruptibleForms")
    void interruptOnEntryThrowsAtOnceWithTheLockStillHeld(final Futex f, final Form form) {
        final Fixture fx = new Fixture(f);
        fx.lock.lock();
        fx.lock.lock();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> form.await(fx.cond));
        assertFalse(Thread.interrupted(), "status cleared");
        assertEquals(2, fx.lock.getHoldCount());
        fx.lock.unlock();
        fx.lock.unlock();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndInterruptibleForms")
    void interruptWhileWaitingThrowsAfterTheHoldsAreRestored(final Futex f, final Form form) throws Exception {
        final Fixture fx = new Fixture(f);
        final int[] holdsAtThrow = new int[1];
        final JucTestSupport.Call<Boolean> w = JucTestSupport.Call.start("waiter", () -> {
            fx.lock.lock();
            fx.lock.lock();
            try {
                return form.await(fx.cond);
            } catch (final InterruptedException e) {
                holdsAtThrow[0] = fx.lock.getHoldCount();
                throw e;
            } finally {
                fx.lock.unlock();
                fx.lock.unlock();
            }
        }).awaitAsleep(fx::waiting, 1, 0);
        w.interruptExpectingInterruptedException();
        assertEquals(2, holdsAtThrow[0]);
        assertEquals(0, fx.waiting(), "the interrupted waiter left the condition");
        assertFalse(fx.lock.isLocked());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void interruptedWaiterThrowsOnlyOnceItHasTheLockAgain(final Futex f) throws Exception {
        final Fixture fx = new Fixture(f);
        final JucTestSupport.Call<Boolean> waiter = JucTestSupport.Call.start("waiter", () -> {
            fx.lock.lock();
            try {
                fx.cond.await();
                return false;
            } catch (final InterruptedException e) {
                return fx.lock.isHeldByCurrentThread();
            } finally {
                fx.lock.unlock();
            }
        });
        waiter.awaitAsleep(fx::waiting, 1, 0);
        fx.lock.lock();
        waiter.thread.interrupt();
        // It cannot return while this thread holds the lock.
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        while (System.nanoTime() < end) {
            assertTrue(waiter.running());
            Thread.onSpinWait();
        }
        fx.lock.unlock();
        waiter.assertResult(true);
        assertFalse(waiter.interruptedAtEnd());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void awaitUninterruptiblyWaitsThroughAnInterruptAndKeepsTheStatus(final Futex f) throws Exception {
        final Fixture fx = new Fixture(f);
        final JucTestSupport.Call<Integer> w = fx.waiter("waiter", 2, Form.AWAIT_UNINTERRUPTIBLY);
        w.thread.interrupt();
        w.awaitAsleep(fx::waiting, 1, 0);
        assertTrue(w.running());
        fx.signal(false);
        w.assertResult(2);
        assertTrue(w.interruptedAtEnd(), "the interrupt status is still set");
    }

    // ------------------------------------------------------------------------------------------
    // timeouts and remaining time

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void awaitNanosTimesOutWithNoTimeLeftAndTheHoldsRestored(final Futex f) throws Exception {
        final Fixture fx = new Fixture(f);
        fx.lock.lock();
        fx.lock.lock();
        try {
            final long timeout = TimeUnit.MILLISECONDS.toNanos(30);
            final long t0 = System.nanoTime();
            final long left = fx.cond.awaitNanos(timeout);
            assertTrue(System.nanoTime() - t0 >= timeout, "returned before the timeout");
            assertTrue(left <= 0, "no time left: " + left);
            assertEquals(2, fx.lock.getHoldCount());
            assertTrue(fx.cond.awaitNanos(0) <= 0);
            assertTrue(fx.cond.awaitNanos(-5) <= 0);
            assertTrue(fx.cond.awaitNanos(Long.MIN_VALUE) <= 0);
            assertEquals(2, fx.lock.getHoldCount());
        } finally {
            fx.lock.unlock();
            fx.lock.unlock();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void awaitNanosReturnsTheTimeLeftWhenSignalled(final Futex f) throws Exception {
        final Fixture fx = new Fixture(f);
        final long timeout = LIVENESS.toNanos();
        final long[] before = new long[1];
        final JucTestSupport.Call<Long> w = JucTestSupport.Call.start("waiter", () -> {
            fx.lock.lock();
            try {
                before[0] = System.nanoTime();
                return fx.cond.awaitNanos(timeout);
            } finally {
                fx.lock.unlock();
            }
        }).awaitAsleep(fx::waiting, 1, 0);
        fx.signal(false);
        final long left = w.get();
        final long waited = w.endNanos() - before[0];
        assertTrue(left > 0 && left < timeout, "time left " + left);
        assertTrue(left >= timeout - waited, "time left " + left + " after waiting " + waited);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void timedAwaitAndAwaitUntilReturnFalseOnTimeoutAndTrueWhenSignalled(final Futex f) throws Exception {
        final Fixture fx = new Fixture(f);
        fx.lock.lock();
        try {
            final long t0 = System.nanoTime();
            assertFalse(fx.cond.await(20, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(20));
            assertFalse(fx.cond.await(0, TimeUnit.SECONDS));
            assertFalse(fx.cond.await(-1, TimeUnit.SECONDS));
            final long wall = System.currentTimeMillis();
            assertFalse(fx.cond.awaitUntil(new Date(wall + 20)));
            // converted to the monotonic clock: the wall clock may lag it by a slew, never by a millisecond
            assertTrue(System.currentTimeMillis() >= wall + 19, "returned before the deadline");
            assertFalse(fx.cond.awaitUntil(new Date(wall - 1000)));
            assertFalse(fx.cond.awaitUntil(new Date(Long.MIN_VALUE)));
            assertEquals(1, fx.lock.getHoldCount());
            assertThrows(NullPointerException.class, () -> fx.cond.awaitUntil(null));
            assertThrows(NullPointerException.class, () -> fx.cond.await(1, null));
        } finally {
            fx.lock.unlock();
        }
        final JucTestSupport.Call<Integer> timed = fx.waiter("timed", 1, Form.AWAIT_TIMED);
        fx.signal(false);
        timed.assertResult(1);
        final JucTestSupport.Call<Integer> until = fx.waiter("until", 1, Form.AWAIT_UNTIL);
        fx.signal(false);
        until.assertResult(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aConditionPlacedInABlockWithARealtimeClockHonoursItsDeadlines(final Futex f) throws Exception {
        try (Memory m = Memory.allocate(256)) {
            final PthreadLock lock = new PthreadLock(m.block(0, MutexLayout.SIZE, 8), recursive(f));
            final PthreadCondition c = lock.newCondition(m.block(64, CondLayout.SIZE, 8),
                CondAttr.builder().clock(Timespec.CLOCK_REALTIME).futex(f).build());
            assertEquals(Timespec.CLOCK_REALTIME, c.cond().clock());
            lock.lock();
            try {
                final long wall = System.currentTimeMillis();
                assertFalse(c.awaitUntil(new Date(wall + 20)));
                assertTrue(System.currentTimeMillis() >= wall + 20);
                final long t0 = System.nanoTime();
                assertTrue(c.awaitNanos(TimeUnit.MILLISECONDS.toNanos(20)) <= 0);
                assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(19),
                    "a realtime wait may be a hair short of the monotonic clock, never more");
            } finally {
                lock.unlock();
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // signal, signalAll

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void signalWakesOneWaiterAndSignalAllTheRest(final Futex f) throws Exception {
        final Fixture fx = new Fixture(f);
        final int[] tickets = new int[1]; // a waiter leaves only with a ticket: spurious wakeups wait again
        final List<JucTestSupport.Call<Integer>> ws = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ws.add(JucTestSupport.Call.start("waiter-" + i, () -> {
                fx.lock.lock();
                try {
                    while (tickets[0] == 0) {
                        fx.cond.await();
                    }
                    tickets[0]--;
                    return fx.lock.getHoldCount();
                } finally {
                    fx.lock.unlock();
                }
            }).awaitAsleep(fx::waiting, i + 1, 0));
        }
        fx.lock.lock();
        assertTrue(fx.lock.hasWaiters(fx.cond));
        assertEquals(4, fx.lock.getWaitQueueLength(fx.cond));
        tickets[0] = 1;
        fx.cond.signal();
        fx.lock.unlock();
        // exactly one leaves; the others are, or are soon again, waiting
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while ((running(ws) == 4 || fx.waiting() != 3) && System.nanoTime() < end) {
            Thread.yield();
        }
        assertEquals(3, fx.waiting());
        assertEquals(3, running(ws));
        fx.lock.lock();
        tickets[0] = 3;
        fx.cond.signalAll();
        fx.lock.unlock();
        for (final JucTestSupport.Call<Integer> w : ws) {
            w.assertResult(1);
        }
        assertEquals(0, fx.waiting());
        assertEquals(0, tickets[0]);
    }

    private static int running(final List<JucTestSupport.Call<Integer>> calls) {
        int n = 0;
        for (final JucTestSupport.Call<Integer> c : calls) {
            n += c.running() ? 1 : 0;
        }
        return n;
    }

    /**
     * ReentrantLock's count is an upper bound: the thread that takes the lock the moment a waiter
     * released it inside {@code await()} sees the waiter counted, every round (the condvar queues
     * the waiter before it unlocks the mutex).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWaiterIsCountedFromTheMomentItReleasedTheLock(final Futex f) throws Exception {
        final Fixture fx = new Fixture(f);
        JucTestSupport.countsTheWaiterRightAfterItsRelease(fx.lock, fx.cond, fx.lock::getWaitQueueLength,
            fx.lock::hasWaiters);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aSignalWithNobodyWaitingIsNotRemembered(final Futex f) throws Exception {
        final Fixture fx = new Fixture(f);
        fx.signal(false);
        fx.signal(true);
        fx.lock.lock();
        try {
            assertFalse(fx.cond.await(10, TimeUnit.MILLISECONDS));
        } finally {
            fx.lock.unlock();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWaitingThreadShowsAsWaitingOnTheParkingBackend(final Futex f) throws Exception {
        final Fixture fx = new Fixture(f);
        final JucTestSupport.Call<Integer> untimed = fx.waiter("untimed", 1, Form.AWAIT);
        final JucTestSupport.Call<Integer> timed = JucTestSupport.Call.start("timed", () -> {
            fx.lock.lock();
            try {
                return fx.cond.awaitNanos(LIVENESS.toNanos()) > 0 ? 1 : 0;
            } finally {
                fx.lock.unlock();
            }
        }).awaitAsleep(fx::waiting, 2, 0);
        if (JucTestSupport.parks(f)) {
            JucTestSupport.assertShows(untimed.thread, Thread.State.WAITING);
            JucTestSupport.assertShows(timed.thread, Thread.State.TIMED_WAITING);
        }
        fx.signal(true);
        untimed.assertResult(1);
        timed.assertResult(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void producersAndConsumersHandOffEveryItem(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(recursive(f));
        final PthreadCondition notEmpty = lock.newCondition();
        final PthreadCondition notFull = lock.newCondition();
        final int[] buffer = new int[4];
        final int[] state = new int[3]; // count, put index, take index
        final int items = 5_000;
        final long[] sum = new long[1];
        final List<JucTestSupport.Call<Void>> calls = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            calls.add(JucTestSupport.Call.start("producer-" + p, () -> {
                for (int i = 1; i <= items; i++) {
                    lock.lock();
                    try {
                        while (state[0] == buffer.length) {
                            notFull.await();
                        }
                        buffer[state[1]] = i;
                        state[1] = (state[1] + 1) % buffer.length;
                        state[0]++;
                        notEmpty.signal();
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
            calls.add(JucTestSupport.Call.start("consumer-" + p, () -> {
                for (int i = 0; i < items; i++) {
                    lock.lock();
                    try {
                        long nanos = LIVENESS.toNanos();
                        while (state[0] == 0) {
                            if (nanos <= 0) {
                                throw new AssertionError("lost wakeup");
                            }
                            nanos = notEmpty.awaitNanos(nanos);
                        }
                        sum[0] += buffer[state[2]];
                        state[2] = (state[2] + 1) % buffer.length;
                        state[0]--;
                        notFull.signal();
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        for (final JucTestSupport.Call<Void> c : calls) {
            c.assertResult(null);
        }
        assertEquals(2L * items * (items + 1) / 2, sum[0]);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void anErrorcheckLocksConditionWorksToo(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.errorcheck(f));
        final PthreadCondition c = lock.newCondition();
        lock.lock();
        try {
            assertFalse(c.await(5, TimeUnit.MILLISECONDS));
            assertEquals(1, lock.getHoldCount());
        } finally {
            lock.unlock();
        }
        assertThrows(IllegalMonitorStateException.class, c::await);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#sharedBackends")
    void aProcessSharedConditionWorksWithAProcessSharedLock(final Futex f) throws Exception {
        try (Memory m = Memory.allocate(256)) {
            final PthreadLock lock = new PthreadLock(m.block(0, MutexLayout.SIZE, 8),
                MutexAttr.builder().type(MutexAttr.RECURSIVE).pshared(true).futex(f).build());
            final PthreadCondition c = lock.newCondition(m.block(64, CondLayout.SIZE, 8),
                CondAttr.builder().pshared(true).futex(f).build());
            final PthreadCondition view = lock.attachCondition(m.block(64, CondLayout.SIZE, 8));
            final JucTestSupport.Call<Integer> w = JucTestSupport.Call.start("waiter", () -> {
                lock.lock();
                lock.lock();
                try {
                    c.await();
                    return lock.getHoldCount();
                } finally {
                    lock.unlock();
                    lock.unlock();
                }
            }).awaitAsleep(() -> c.cond().waiterCount(), 1, 0);
            lock.lock();
            view.signal();
            lock.unlock();
            w.assertResult(2);
        }
    }
}
