package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Backends;
import org.pthread4j.testing.CountingFutex;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Behaviour and result codes of {@link Cond}: every private backend, and process-shared
 * condvars (with process-shared mutexes) on the kernel backends.
 */
class CondTest {
    /** Liveness bound for anything that should happen: generous, the machine is shared. */
    static final Duration LIVENESS = Duration.ofSeconds(Long.getLong("pthread4j.test.liveness", 60));

    /** How a test's condvar and mutex are made. */
    record Flavor(Futex futex, boolean pshared) {
        MutexAttr mutexAttr(final int type, final Futex f) {
            return MutexAttr.builder().type(type).pshared(pshared).futex(f).build();
        }

        CondAttr condAttr(final int clock, final Futex f) {
            return CondAttr.builder().pshared(pshared).clock(clock).futex(f).build();
        }
    }

    static Stream<Arguments> flavors() {
        return Stream.concat(
            Backends.privateBackends().map(f -> Arguments.of(Named.of(f.name(), new Flavor(f, false)))),
            Backends.sharedBackends().map(f -> Arguments.of(Named.of("shared-" + f.name(), new Flavor(f, true)))));
    }

    static Stream<Arguments> flavorsAndClocks() {
        return flavors().flatMap(a -> Stream.of(
            Arguments.of(a.get()[0], Named.of("REALTIME", Timespec.CLOCK_REALTIME)),
            Arguments.of(a.get()[0], Named.of("MONOTONIC", Timespec.CLOCK_MONOTONIC))));
    }

    static Stream<Arguments> privateFlavors() {
        return Backends.privateBackends().map(f -> Arguments.of(Named.of(f.name(), new Flavor(f, false))));
    }

    /** One mutex and one condvar, each in its own memory (so the condvar's can be freed alone). */
    static final class Fixture implements AutoCloseable {
        final Memory mutexMemory = Memory.allocate(4096);
        final Memory condMemory = Memory.allocate(4096);
        final Mutex mutex;
        final Cond cond;
        /** Whether the mutex records its owner (so {@link Mutex#isHeldByCurrentThread()} means something). */
        final boolean ownerTracked;
        /** State guarded by {@link #mutex}. */
        int flag;
        int tokens;

        Fixture(final Flavor flavor) {
            this(flavor, MutexLayout.ERRORCHECK, Timespec.CLOCK_REALTIME, flavor.futex());
        }

        Fixture(final Flavor flavor, final int mutexType, final int clock, final Futex futex) {
            mutex = new Mutex(mutexMemory.block(0, MutexLayout.SIZE, 8), flavor.mutexAttr(mutexType, futex));
            ownerTracked = mutexType != MutexLayout.NORMAL;
            cond = new Cond(condMemory.block(0, CondLayout.SIZE, 8), flavor.condAttr(clock, futex));
        }

        @Override
        public void close() {
            condMemory.close();
            mutexMemory.close();
        }
    }

    /** Daemon threads whose failures are collected and reported by {@link #join}. */
    static final class Crew {
        final List<Thread> threads = new ArrayList<>();
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();

        interface Body {
            void run() throws Exception;
        }

        Thread start(final String name, final Body body) {
            final Thread t = Thread.ofPlatform().daemon().name(name).start(() -> {
                try {
                    body.run();
                } catch (final Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(t);
            return t;
        }

        void join() throws InterruptedException {
            final long end = System.nanoTime() + LIVENESS.toNanos();
            for (final Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
            }
            final StringBuilder hung = new StringBuilder();
            for (final Thread t : threads) {
                if (t.isAlive()) {
                    hung.append("\nthread ").append(t.getName()).append(" still running after ").append(LIVENESS)
                        .append(" (hang):");
                    for (final StackTraceElement e : t.getStackTrace()) {
                        hung.append("\n\tat ").append(e);
                    }
                }
            }
            if (!hung.isEmpty() || !errors.isEmpty()) {
                final AssertionError e = new AssertionError(errors.size() + " thread(s) failed" + hung, errors.peek());
                errors.stream().skip(1).forEach(e::addSuppressed);
                throw e;
            }
        }
    }

    /** Polls until {@code n} threads are inside a wait on {@code cond} (they hold or have released the mutex). */
    static void awaitWaiters(final Cond cond, final int n) {
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (cond.waiterCount() < n) {
            if (System.nanoTime() > end) {
                fail("only " + cond.waiterCount() + " of " + n + " waiters arrived within " + LIVENESS);
            }
            LockSupport.parkNanos(200_000);
        }
    }

    static void lock(final Mutex m) {
        assertEquals(0, m.lock(), "lock");
    }

    static void unlock(final Mutex m) {
        assertEquals(0, m.unlock(), "unlock");
    }

    /** A waiter that waits (untimed) until {@code flag} is set, asserting every result. */
    static void waitForFlag(final Fixture fx) {
        lock(fx.mutex);
        while (fx.flag == 0) {
            assertEquals(0, fx.cond.await(fx.mutex), "wait");
            assertTrue(!fx.ownerTracked || fx.mutex.isHeldByCurrentThread(), "mutex held after wait");
        }
        unlock(fx.mutex);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void oneWaiterIsReleasedBySignal(final Flavor flavor) throws Exception {
        try (Fixture fx = new Fixture(flavor)) {
            final Crew crew = new Crew();
            crew.start("waiter", () -> waitForFlag(fx));
            awaitWaiters(fx.cond, 1);
            lock(fx.mutex);
            fx.flag = 1;
            assertEquals(0, fx.cond.signal());
            unlock(fx.mutex);
            crew.join();
            assertEquals(0, fx.cond.waiterCount());
            assertEquals(0, fx.mutex.waiterCount(), "a raise of _m_waiters was not undone");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void signalWithNoWaiterIsNotRemembered(final Flavor flavor) throws Exception {
        try (Fixture fx = new Fixture(flavor)) {
            assertEquals(0, fx.cond.signal());
            assertEquals(0, fx.cond.broadcast());
            lock(fx.mutex);
            final Timespec soon = Timespec.after(Timespec.CLOCK_REALTIME, 20, TimeUnit.MILLISECONDS);
            assertEquals(Errno.ETIMEDOUT, fx.cond.timedAwait(fx.mutex, soon), "an earlier signal woke a later wait");
            assertTrue(fx.mutex.isHeldByCurrentThread());
            unlock(fx.mutex);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void threeWaitersThreeSignals(final Flavor flavor) throws Exception {
        try (Fixture fx = new Fixture(flavor)) {
            final Crew crew = new Crew();
            final AtomicInteger consumed = new AtomicInteger();
            for (int i = 0; i < 3; i++) {
                crew.start("waiter-" + i, () -> {
                    lock(fx.mutex);
                    while (fx.tokens == 0) {
                        assertEquals(0, fx.cond.await(fx.mutex), "wait");
                    }
                    fx.tokens--;
                    consumed.incrementAndGet();
                    unlock(fx.mutex);
                });
            }
            awaitWaiters(fx.cond, 3);
            for (int i = 0; i < 3; i++) {
                lock(fx.mutex);
                fx.tokens++;
                assertEquals(0, fx.cond.signal());
                if (!flavor.pshared()) {
                    // A private signal picks exactly one waiter off the list.
                    assertTrue(fx.cond.waiterCount() <= 2 - i, "signal picked more than one waiter");
                }
                unlock(fx.mutex);
            }
            crew.join();
            assertEquals(3, consumed.get());
            assertEquals(0, fx.tokens);
            assertEquals(0, fx.mutex.waiterCount(), "a raise of _m_waiters was not undone");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void broadcastReleasesAll(final Flavor flavor) throws Exception {
        try (Fixture fx = new Fixture(flavor)) {
            final Crew crew = new Crew();
            for (int i = 0; i < 5; i++) {
                crew.start("waiter-" + i, () -> waitForFlag(fx));
            }
            awaitWaiters(fx.cond, 5);
            lock(fx.mutex);
            fx.flag = 1;
            assertEquals(0, fx.cond.broadcast());
            if (!flavor.pshared()) {
                assertEquals(0, fx.cond.waiterCount(), "broadcast left waiters on the list");
            }
            unlock(fx.mutex);
            crew.join();
        }
    }

    /**
     * A broadcast to 100 waiters wakes all of them, and (private) through one wake or requeue at
     * a time: every futex wake asks for one thread, no call wakes more than one, and each group
     * member hands its successor to the mutex with one requeue.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void broadcastToHundredWaitersWakesEachWithoutStampede(final Flavor flavor) throws Exception {
        final int n = 100;
        final CountingFutex counting = new CountingFutex(flavor.futex());
        try (Fixture fx = new Fixture(flavor, MutexLayout.NORMAL, Timespec.CLOCK_REALTIME, counting)) {
            final Crew crew = new Crew();
            final AtomicInteger released = new AtomicInteger();
            for (int i = 0; i < n; i++) {
                crew.start("waiter-" + i, () -> {
                    waitForFlag(fx);
                    released.incrementAndGet();
                });
            }
            awaitWaiters(fx.cond, n);
            lock(fx.mutex);
            fx.flag = 1;
            counting.reset();
            assertEquals(0, fx.cond.broadcast());
            unlock(fx.mutex);
            crew.join();
            assertEquals(n, released.get());
            assertEquals(0, fx.mutex.waiterCount(), "the group's raise of _m_waiters was not undone");
            if (!flavor.pshared()) {
                assertEquals(0, counting.wideWakeCalls(), "a wake asked for more than one thread: " + counting);
                assertTrue(counting.maxWokenByOneCall() <= 1, "one call woke several threads: " + counting);
                // The broadcaster wakes the oldest; each member requeues its successor onto the mutex.
                assertEquals(n - 1, counting.requeueCalls(), "one requeue per handoff: " + counting);
                assertTrue(counting.wakeCalls() + counting.requeueCalls() <= 4L * n,
                    "futex wakes are not O(1) per handoff: " + counting);
            }
        }
    }

    /**
     * Signals sent without holding the mutex while other threads keep locking and unlocking it:
     * the oldest waiter is requeued onto a mutex some other thread holds, and unlocks race with the
     * requeue. Every token must still be consumed.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void signalsRacingWithOtherLockersOfTheMutexLoseNoWakeup(final Flavor flavor) throws Exception {
        final int consumers = 2;
        final int perConsumer = 2000;
        try (Fixture fx = new Fixture(flavor, MutexLayout.NORMAL, Timespec.CLOCK_REALTIME, flavor.futex())) {
            final boolean[] stop = new boolean[1];
            final AtomicInteger consumed = new AtomicInteger();
            final Crew crew = new Crew();
            for (int i = 0; i < consumers; i++) {
                crew.start("consumer-" + i, () -> {
                    for (int k = 0; k < perConsumer; k++) {
                        lock(fx.mutex);
                        while (fx.tokens == 0) {
                            assertEquals(0, fx.cond.await(fx.mutex));
                        }
                        fx.tokens--;
                        unlock(fx.mutex);
                        consumed.incrementAndGet();
                    }
                });
            }
            crew.start("churner", () -> {
                boolean done;
                do {
                    lock(fx.mutex);
                    done = stop[0];
                    unlock(fx.mutex);
                } while (!done);
            });
            for (int k = 0; k < consumers * perConsumer; k++) {
                lock(fx.mutex);
                fx.tokens++;
                unlock(fx.mutex);
                assertEquals(0, fx.cond.signal());
                if ((k & 15) == 0) {
                    Thread.yield();
                }
            }
            final long end = System.nanoTime() + LIVENESS.toNanos();
            while (consumed.get() < consumers * perConsumer) {
                if (System.nanoTime() > end) {
                    fail("only " + consumed.get() + " of " + consumers * perConsumer + " tokens consumed: a wakeup was lost");
                }
                LockSupport.parkNanos(1_000_000);
            }
            lock(fx.mutex);
            stop[0] = true;
            unlock(fx.mutex);
            crew.join();
            assertEquals(0, fx.tokens);
            assertEquals(0, fx.mutex.waiterCount(), "a raise of _m_waiters was not undone");
        }
    }

    /**
     * musl's LEAVING race, made deterministic: W1, L, W3 wait (oldest first); L times out and,
     * about to unlink itself, is held up on {@code _c_lock}; a broadcast walks past L (LEAVING)
     * and signals W1 and W3. The broadcast must wait until L has unlinked before it releases W1:
     * otherwise W1 reads its stale successor (L), hands off to L, and W3 is never released.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("privateFlavors")
    void broadcastWaitsForALeavingWaiterToUnlinkBeforeReleasingTheGroup(final Flavor flavor) throws Exception {
        final java.util.concurrent.CountDownLatch leaverStalled = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch broadcasterAsleep = new java.util.concurrent.CountDownLatch(1);
        final long[] condLock = new long[1];
        final Futex base = flavor.futex();
        final Futex stalling = new Futex() {
            private final AtomicInteger stalls = new AtomicInteger();

            @Override
            public int timedWait(final java.lang.foreign.MemorySegment seg, final long off, final int val,
                                 final boolean priv, final int clock, final Timespec deadline, final boolean intr) {
                if (seg.address() + off == condLock[0]) {
                    final String who = Thread.currentThread().getName();
                    if (who.equals("L") && stalls.getAndIncrement() == 0) {
                        leaverStalled.countDown();
                        LockSupport.parkNanos(300_000_000L); // L is slow to take _c_lock and unlink
                    } else if (who.equals("broadcaster")) {
                        broadcasterAsleep.countDown();
                    }
                }
                return base.timedWait(seg, off, val, priv, clock, deadline, intr);
            }

            @Override
            public int wake(final java.lang.foreign.MemorySegment seg, final long off, final int n, final boolean priv) {
                return base.wake(seg, off, n, priv);
            }

            @Override
            public int requeue(final java.lang.foreign.MemorySegment seg, final long off, final int nWake,
                               final int nRequeue, final java.lang.foreign.MemorySegment seg2, final long off2,
                               final boolean priv) {
                return base.requeue(seg, off, nWake, nRequeue, seg2, off2, priv);
            }

            @Override
            public int cmpRequeue(final java.lang.foreign.MemorySegment seg, final long off, final int nWake,
                                  final int nRequeue, final java.lang.foreign.MemorySegment seg2, final long off2,
                                  final int val, final boolean priv) {
                return base.cmpRequeue(seg, off, nWake, nRequeue, seg2, off2, val, priv);
            }

            @Override
            public boolean supportsShared() {
                return base.supportsShared();
            }

            @Override
            public String name() {
                return "stalling-" + base.name();
            }
        };
        try (Fixture fx = new Fixture(flavor, MutexLayout.NORMAL, Timespec.CLOCK_MONOTONIC, stalling)) {
            final Block cb = fx.cond.block();
            condLock[0] = cb.address(CondLayout.LOCK);
            final Crew crew = new Crew();
            crew.start("W1", () -> waitForFlag(fx));
            awaitWaiters(fx.cond, 1);
            final Timespec soon = Timespec.after(Timespec.CLOCK_MONOTONIC, 1, TimeUnit.SECONDS);
            crew.start("L", () -> {
                lock(fx.mutex);
                int r;
                do {
                    r = fx.cond.timedAwait(fx.mutex, soon);
                } while (r == 0 && fx.flag == 0);
                assertEquals(Errno.ETIMEDOUT, r);
                unlock(fx.mutex);
            });
            awaitWaiters(fx.cond, 2);
            crew.start("W3", () -> waitForFlag(fx));
            awaitWaiters(fx.cond, 3);
            // Hold _c_lock as a signaler would, so that L, timed out and LEAVING, must wait for it.
            final long end = System.nanoTime() + LIVENESS.toNanos();
            while (cb.cas(CondLayout.LOCK, CondLayout.UNLOCKED, CondLayout.LOCKED) != CondLayout.UNLOCKED) {
                assertTrue(System.nanoTime() < end, "_c_lock never came free");
                Thread.onSpinWait();
            }
            assertTrue(leaverStalled.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "L never waited for _c_lock");
            lock(fx.mutex);
            fx.flag = 1;
            unlock(fx.mutex);
            crew.start("broadcaster", () -> assertEquals(0, fx.cond.broadcast()));
            assertTrue(broadcasterAsleep.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            // Hand _c_lock to the broadcaster (the only sleeper: L is still held up): it walks past L.
            if (cb.getAndSet(CondLayout.LOCK, CondLayout.UNLOCKED) == CondLayout.CONTENDED) {
                base.wake(cb.segment(), CondLayout.LOCK, 1, true);
            }
            crew.join();
            assertEquals(0, fx.cond.waiterCount());
        }
    }

    /** Where the mutex uses another backend than the condvar, successors are woken instead of requeued. */
    @Test
    void successorIsWokenWhenTheMutexUsesAnotherBackend() throws Exception {
        final CountingFutex condFutex = new CountingFutex(org.pthread4j.futex.Futexes.parking());
        final Flavor flavor = new Flavor(org.pthread4j.futex.Futexes.parking(), false);
        try (Memory mm = Memory.allocate(4096); Memory cm = Memory.allocate(4096)) {
            final Mutex mutex = new Mutex(mm.block(0, MutexLayout.SIZE, 8),
                MutexAttr.builder().futex(org.pthread4j.futex.Futexes.linux()).build());
            final Cond cond = new Cond(cm.block(0, CondLayout.SIZE, 8), flavor.condAttr(Timespec.CLOCK_REALTIME, condFutex));
            final int[] flag = new int[1];
            final Crew crew = new Crew();
            for (int i = 0; i < 4; i++) {
                crew.start("waiter-" + i, () -> {
                    lock(mutex);
                    while (flag[0] == 0) {
                        assertEquals(0, cond.await(mutex));
                    }
                    unlock(mutex);
                });
            }
            awaitWaiters(cond, 4);
            lock(mutex);
            flag[0] = 1;
            condFutex.reset();
            assertEquals(0, cond.broadcast());
            unlock(mutex);
            crew.join();
            assertEquals(0, condFutex.requeueCalls(), "requeued across backends: " + condFutex);
            assertEquals(0, condFutex.wideWakeCalls(), condFutex.toString());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("flavorsAndClocks")
    void expiredDeadlineReturnsETIMEDOUTWithMutexHeld(final Flavor flavor, final int clock) throws Exception {
        try (Fixture fx = new Fixture(flavor, MutexLayout.ERRORCHECK, clock, flavor.futex())) {
            lock(fx.mutex);
            assertEquals(Errno.ETIMEDOUT, fx.cond.timedAwait(fx.mutex, Timespec.after(clock, -1, TimeUnit.SECONDS)));
            assertTrue(fx.mutex.isHeldByCurrentThread());
            assertEquals(Errno.ETIMEDOUT, fx.cond.timedAwait(fx.mutex, new Timespec(0, 0)));
            assertTrue(fx.mutex.isHeldByCurrentThread());
            assertEquals(0, fx.cond.waiterCount());
            unlock(fx.mutex);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("flavorsAndClocks")
    void deadlineOnTheCondvarsClockIsHonoured(final Flavor flavor, final int clock) throws Exception {
        try (Fixture fx = new Fixture(flavor, MutexLayout.ERRORCHECK, clock, flavor.futex())) {
            assertEquals(clock, fx.cond.clock());
            lock(fx.mutex);
            final Timespec deadline = Timespec.after(clock, 30, TimeUnit.MILLISECONDS);
            int r;
            do {
                r = fx.cond.timedAwait(fx.mutex, deadline);
            } while (r == 0); // spurious wakeups are allowed
            assertEquals(Errno.ETIMEDOUT, r);
            assertTrue(Timespec.nowNanos(clock) >= deadline.toNanos(), "ETIMEDOUT before the deadline");
            assertTrue(fx.mutex.isHeldByCurrentThread());
            unlock(fx.mutex);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void badNanosReturnEINVALWithMutexStillHeld(final Flavor flavor) throws Exception {
        try (Fixture fx = new Fixture(flavor)) {
            lock(fx.mutex);
            final long sec = Timespec.now(Timespec.CLOCK_REALTIME).sec() + 60;
            assertEquals(Errno.EINVAL, fx.cond.timedAwait(fx.mutex, new Timespec(sec, 1_000_000_000L)));
            assertEquals(Errno.EINVAL, fx.cond.timedAwait(fx.mutex, new Timespec(sec, -1)));
            assertEquals(Errno.EINVAL, fx.cond.timedAwait(fx.mutex, new Timespec(-5, Long.MAX_VALUE)));
            assertTrue(fx.mutex.isHeldByCurrentThread());
            assertEquals(0, fx.cond.waiterCount(), "EINVAL must come before the wait starts");
            unlock(fx.mutex);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void ownerTrackedMutexNotHeldReturnsEPERM(final Flavor flavor) throws Exception {
        for (final int type : new int[] {MutexLayout.ERRORCHECK, MutexLayout.RECURSIVE}) {
            try (Fixture fx = new Fixture(flavor, type, Timespec.CLOCK_REALTIME, flavor.futex())) {
                assertEquals(Errno.EPERM, fx.cond.await(fx.mutex));
                assertEquals(Errno.EPERM, fx.cond.timedAwait(fx.mutex, new Timespec(0, 0)));
                // Held by another thread: still EPERM, and the other thread still holds it.
                final Crew crew = new Crew();
                final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
                final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
                crew.start("holder", () -> {
                    lock(fx.mutex);
                    held.countDown();
                    assertTrue(done.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
                    unlock(fx.mutex);
                });
                assertTrue(held.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
                assertEquals(Errno.EPERM, fx.cond.await(fx.mutex));
                assertEquals(0, fx.cond.waiterCount());
                done.countDown();
                crew.join();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void recursiveMutexHeldOnceIsReleasedAndReacquired(final Flavor flavor) throws Exception {
        try (Fixture fx = new Fixture(flavor, MutexLayout.RECURSIVE, Timespec.CLOCK_REALTIME, flavor.futex())) {
            final Crew crew = new Crew();
            crew.start("waiter", () -> {
                lock(fx.mutex);
                while (fx.flag == 0) {
                    assertEquals(0, fx.cond.await(fx.mutex));
                }
                unlock(fx.mutex);
                assertEquals(Errno.EPERM, fx.mutex.unlock(), "wait must relock exactly once");
            });
            awaitWaiters(fx.cond, 1);
            lock(fx.mutex);
            fx.flag = 1;
            fx.cond.signal();
            unlock(fx.mutex);
            crew.join();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void interruptEndsAnInterruptibleWaitWithEINTRAndTheMutexHeld(final Flavor flavor) throws Exception {
        try (Fixture fx = new Fixture(flavor)) {
            final Crew crew = new Crew();
            final Thread t = crew.start("waiter", () -> {
                lock(fx.mutex);
                int r;
                do {
                    r = fx.cond.timedAwait(fx.mutex, null, true);
                } while (r == 0);
                assertEquals(Errno.EINTR, r);
                assertTrue(fx.mutex.isHeldByCurrentThread());
                assertTrue(Thread.currentThread().isInterrupted(), "interrupt status kept");
                unlock(fx.mutex);
            });
            awaitWaiters(fx.cond, 1);
            t.interrupt();
            crew.join();
            assertEquals(0, fx.cond.waiterCount());
            // The condvar still works.
            final Crew again = new Crew();
            again.start("waiter-2", () -> waitForFlag(fx));
            awaitWaiters(fx.cond, 1);
            lock(fx.mutex);
            fx.flag = 1;
            fx.cond.signal();
            unlock(fx.mutex);
            again.join();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void interruptedCallerGetsEINTRAtOnceAndUninterruptibleWaitKeepsTheInterrupt(final Flavor flavor) throws Exception {
        try (Fixture fx = new Fixture(flavor)) {
            final Crew crew = new Crew();
            final Thread t = crew.start("waiter", () -> {
                lock(fx.mutex);
                Thread.currentThread().interrupt();
                assertEquals(Errno.EINTR, fx.cond.timedAwait(fx.mutex, null, true));
                assertTrue(fx.mutex.isHeldByCurrentThread());
                // Uninterruptible: returns only for the signal, the interrupt stays pending.
                while (fx.flag == 0) {
                    assertEquals(0, fx.cond.await(fx.mutex));
                }
                assertTrue(Thread.interrupted(), "interrupt status kept");
                unlock(fx.mutex);
            });
            awaitWaiters(fx.cond, 1);
            t.interrupt();
            lock(fx.mutex);
            fx.flag = 1;
            fx.cond.signal();
            unlock(fx.mutex);
            crew.join();
        }
    }

    /**
     * The LEAVING path: waiters with tiny deadlines time out while broadcasts fly; untimed
     * waiters must each be released by every round's broadcast.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void waitersTimingOutDuringBroadcastsLoseNoWaiter(final Flavor flavor) throws Exception {
        final int rounds = 300;
        final int untimed = 3;
        final int timed = 3;
        try (Fixture fx = new Fixture(flavor, MutexLayout.NORMAL, Timespec.CLOCK_MONOTONIC, flavor.futex())) {
            final int[] generation = new int[1];
            final int[] arrived = new int[1];
            final boolean[] stop = new boolean[1];
            final Crew crew = new Crew();
            for (int i = 0; i < untimed; i++) {
                crew.start("untimed-" + i, () -> {
                    for (int r = 0; r < rounds; r++) {
                        lock(fx.mutex);
                        final int g = generation[0];
                        arrived[0]++;
                        while (generation[0] == g) {
                            assertEquals(0, fx.cond.await(fx.mutex));
                        }
                        unlock(fx.mutex);
                    }
                });
            }
            for (int i = 0; i < timed; i++) {
                crew.start("timed-" + i, () -> {
                    final ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    lock(fx.mutex);
                    while (!stop[0]) {
                        final int r = fx.cond.timedAwait(fx.mutex,
                            Timespec.after(Timespec.CLOCK_MONOTONIC, rnd.nextInt(300), TimeUnit.MICROSECONDS));
                        assertTrue(r == 0 || r == Errno.ETIMEDOUT, "timedwait: " + Errno.name(r));
                    }
                    unlock(fx.mutex);
                });
            }
            final long end = System.nanoTime() + LIVENESS.toNanos();
            for (int r = 0; r < rounds; r++) {
                for (;;) {
                    lock(fx.mutex);
                    if (arrived[0] == untimed) {
                        break; // all untimed waiters are inside their wait (they held the mutex until then)
                    }
                    unlock(fx.mutex);
                    if (System.nanoTime() > end) {
                        fail("round " + r + ": only " + arrived[0] + " untimed waiters arrived: one was lost");
                    }
                    Thread.yield();
                }
                arrived[0] = 0;
                generation[0]++;
                assertEquals(0, fx.cond.broadcast());
                unlock(fx.mutex);
            }
            lock(fx.mutex);
            stop[0] = true;
            fx.cond.broadcast();
            unlock(fx.mutex);
            crew.join();
        }
    }

    /**
     * The LEAVING path with signal: consumers wait untimed for tokens while timed waiters time
     * out around them. A timed waiter that wakes passes the signal on when tokens remain (it may
     * have consumed a signal meant for a consumer, which POSIX allows); every token is consumed.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void waitersTimingOutDuringSignalsLoseNoSignal(final Flavor flavor) throws Exception {
        final int consumers = 3;
        final int perConsumer = 300;
        try (Fixture fx = new Fixture(flavor, MutexLayout.NORMAL, Timespec.CLOCK_MONOTONIC, flavor.futex())) {
            final boolean[] stop = new boolean[1];
            final AtomicInteger consumed = new AtomicInteger();
            final Crew crew = new Crew();
            for (int i = 0; i < consumers; i++) {
                crew.start("consumer-" + i, () -> {
                    for (int k = 0; k < perConsumer; k++) {
                        lock(fx.mutex);
                        while (fx.tokens == 0) {
                            assertEquals(0, fx.cond.await(fx.mutex));
                        }
                        fx.tokens--;
                        unlock(fx.mutex);
                        consumed.incrementAndGet();
                    }
                });
            }
            for (int i = 0; i < 3; i++) {
                crew.start("timed-" + i, () -> {
                    final ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    lock(fx.mutex);
                    while (!stop[0]) {
                        final int r = fx.cond.timedAwait(fx.mutex,
                            Timespec.after(Timespec.CLOCK_MONOTONIC, rnd.nextInt(300), TimeUnit.MICROSECONDS));
                        assertTrue(r == 0 || r == Errno.ETIMEDOUT, "timedwait: " + Errno.name(r));
                        if (fx.tokens > 0) {
                            fx.cond.signal();
                        }
                    }
                    unlock(fx.mutex);
                });
            }
            for (int k = 0; k < consumers * perConsumer; k++) {
                lock(fx.mutex);
                fx.tokens++;
                assertEquals(0, fx.cond.signal());
                unlock(fx.mutex);
                if ((k & 7) == 0) {
                    Thread.yield();
                }
            }
            final long end = System.nanoTime() + LIVENESS.toNanos();
            while (consumed.get() < consumers * perConsumer) {
                if (System.nanoTime() > end) {
                    fail("only " + consumed.get() + " of " + consumers * perConsumer + " tokens consumed: a signal was lost");
                }
                LockSupport.parkNanos(1_000_000);
            }
            lock(fx.mutex);
            stop[0] = true;
            fx.cond.broadcast();
            unlock(fx.mutex);
            crew.join();
            assertEquals(0, fx.tokens);
        }
    }

    /**
     * musl's {@code pthread_cond-smasher} (Jens Gustedt): 10 threads go through 10 phases; each
     * phase uses a different mutex with the same condvar, so late waiters of one phase drain while
     * the next phase's waiters arrive under another mutex.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void smasherTenThreadsTenPhasesOneCondvarManyMutexes(final Flavor flavor) throws Exception {
        final int phases = 10;
        final int threads = 10;
        for (int rep = 0; rep < 3; rep++) {
            try (Memory memory = Memory.allocate(4096)) {
                final Mutex[] mut = new Mutex[phases];
                for (int i = 0; i < phases; i++) {
                    mut[i] = new Mutex(memory.block(64L * i, MutexLayout.SIZE, 8),
                        flavor.mutexAttr(MutexLayout.NORMAL, flavor.futex()));
                }
                final Cond client = new Cond(memory.block(1024, CondLayout.SIZE, 8),
                    flavor.condAttr(Timespec.CLOCK_REALTIME, flavor.futex()));
                final Cond main = new Cond(memory.block(1088, CondLayout.SIZE, 8),
                    flavor.condAttr(Timespec.CLOCK_REALTIME, flavor.futex()));
                final int[] inside = new int[phases];
                final AtomicInteger phase = new AtomicInteger();

                lock(mut[0]);
                final Crew crew = new Crew();
                for (int t = 0; t < threads; t++) {
                    crew.start("client-" + t, () -> {
                        for (int i = 0; i < phases; i++) {
                            lock(mut[i]);
                            if (++inside[i] == threads) {
                                assertEquals(0, main.signal());
                            }
                            while (i == phase.get()) {
                                assertEquals(0, client.timedAwait(mut[i], deadline()), "client in phase " + i);
                            }
                            unlock(mut[i]);
                        }
                    });
                }
                while (phase.get() < phases) {
                    final int p = phase.get();
                    while (inside[p] < threads) {
                        assertEquals(0, main.timedAwait(mut[p], deadline()), "main in phase " + p);
                    }
                    if (p < phases - 1) {
                        lock(mut[p + 1]);
                    }
                    assertEquals(0, client.broadcast());
                    phase.incrementAndGet();
                    unlock(mut[p]);
                }
                crew.join();
                assertEquals(0, client.destroy());
                assertEquals(0, main.destroy());
            }
        }
    }

    private static Timespec deadline() {
        return Timespec.after(Timespec.CLOCK_REALTIME, LIVENESS.toSeconds(), TimeUnit.SECONDS);
    }

    /** The condvar's memory is freed right after broadcast returns; the released waiters never touch it again. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void destroyAndFreeRightAfterBroadcastIsSafe(final Flavor flavor) throws Exception {
        for (int rep = 0; rep < 20; rep++) {
            try (Fixture fx = new Fixture(flavor)) {
                final Crew crew = new Crew();
                for (int i = 0; i < 4; i++) {
                    crew.start("waiter-" + i, () -> waitForFlag(fx));
                }
                awaitWaiters(fx.cond, 4);
                lock(fx.mutex);
                fx.flag = 1;
                assertEquals(0, fx.cond.broadcast());
                assertEquals(0, fx.cond.destroy());
                fx.condMemory.close();
                unlock(fx.mutex);
                crew.join();
            }
        }
    }

    /** A shared destroy wakes the waiters that remain and returns only once they left the condvar. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("flavors")
    void sharedDestroyWaitsForWaitersToLeave(final Flavor flavor) throws Exception {
        if (!flavor.pshared()) {
            return;
        }
        try (Fixture fx = new Fixture(flavor)) {
            final Crew crew = new Crew();
            final AtomicInteger returned = new AtomicInteger();
            for (int i = 0; i < 3; i++) {
                crew.start("waiter-" + i, () -> {
                    lock(fx.mutex);
                    assertEquals(0, fx.cond.await(fx.mutex)); // the destroy's wakeup is a spurious one
                    returned.incrementAndGet();
                    unlock(fx.mutex);
                });
            }
            awaitWaiters(fx.cond, 3);
            assertEquals(0, fx.cond.destroy());
            assertEquals(0, fx.cond.block().get(CondLayout.WAITERS) & ~CondLayout.WAITERS_DESTROY);
            fx.condMemory.close();
            crew.join();
            assertEquals(3, returned.get());
        }
    }

    @Test
    void initWritesMuslsBytes() {
        try (Memory memory = Memory.allocate(128)) {
            final Block b = memory.block(0, CondLayout.SIZE, 8);
            b.segment().fill((byte) 0x5a);
            new Cond(b, CondAttr.DEFAULT);
            for (int off = 0; off < CondLayout.SIZE; off += 4) {
                assertEquals(0, b.get(off), "PTHREAD_COND_INITIALIZER is all zeros, offset " + off);
            }
            b.segment().fill((byte) 0x5a);
            final Cond shared = new Cond(b, CondAttr.builder().pshared(true).clock(Timespec.CLOCK_MONOTONIC).build());
            assertEquals(-1L, b.getLong(CondLayout.SHARED), "_c_shared = (void *)-1");
            assertEquals(Timespec.CLOCK_MONOTONIC, b.get(CondLayout.CLOCK));
            for (int off = 8; off < CondLayout.SIZE; off += 4) {
                if (off != CondLayout.CLOCK) {
                    assertEquals(0, b.get(off), "offset " + off);
                }
            }
            assertTrue(shared.isPshared());
            assertEquals(0, memory.segment().get(java.lang.foreign.ValueLayout.JAVA_INT, 64), "init wrote past the block");
        }
    }

    @Test
    void attrValidatesTheClockAndEncodesMuslsBits() {
        assertEquals(Timespec.CLOCK_MONOTONIC, CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).build().clock());
        for (final int refused : new int[] {2, 3, -1, 7}) { // 2, 3: the CPU-time clocks, EINVAL in musl too
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CondAttr.builder().clock(refused));
            assertTrue(e.getMessage().startsWith("EINVAL: "), e.getMessage());
        }
        assertEquals(0, CondAttr.DEFAULT.bits());
        assertEquals(0x80000001, CondAttr.builder().pshared(true).clock(Timespec.CLOCK_MONOTONIC).build().bits());
        assertEquals(Timespec.CLOCK_REALTIME, CondAttr.builder().build().clock());
    }

    @Test
    void blocksThatCannotHoldACondvarAreRefused() {
        try (Memory memory = Memory.allocate(256)) {
            assertThrows(IllegalArgumentException.class, () -> new Cond(memory.block(0, 40, 8), CondAttr.DEFAULT));
            assertThrows(IllegalArgumentException.class, () -> new Cond(memory.block(4, 48, 4), CondAttr.DEFAULT));
            new Cond(memory.block(64, 48, 8), CondAttr.DEFAULT);
            assertThrows(IllegalArgumentException.class, () -> Cond.attach(memory.block(64, 48, 8)),
                "a private condvar cannot be attached");
            assertThrows(IllegalArgumentException.class, () -> new Cond(memory.block(128, 48, 8),
                CondAttr.builder().pshared(true).futex(org.pthread4j.futex.Futexes.parking()).build()));
        }
    }

    @Test
    void attachSeesASharedCondvarInitializedElsewhere() {
        try (Memory memory = Memory.allocate(128)) {
            final Block b = memory.block(0, CondLayout.SIZE, 8);
            new Cond(b, CondAttr.builder().pshared(true).clock(Timespec.CLOCK_MONOTONIC).build());
            final Cond view = Cond.attach(b);
            assertTrue(view.isPshared());
            assertEquals(Timespec.CLOCK_MONOTONIC, view.clock());
            assertEquals(0, view.waiterCount());
            assertEquals(0, view.signal());
            assertFalse(b.getLong(CondLayout.SHARED) == 0);
        }
    }
}
