package org.pthread4j.juc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.juc.JucTestSupport.LIVENESS;
import static org.pthread4j.juc.JucTestSupport.recursive;

/** {@link PthreadLock}: every method's results on every private backend, plus placement and robustness. */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PthreadLockTest {
    /** A lock placed in test memory, so its futex word's address is known. */
    static final class Fixture implements AutoCloseable {
        final Memory memory = Memory.allocate(256);
        final Block block = memory.block(0, MutexLayout.SIZE, MutexLayout.ALIGNMENT);
        final PthreadLock lock;

        Fixture(final MutexAttr attr) {
            this.lock = new PthreadLock(block, attr);
        }

        long word() {
            return block.address(MutexLayout.LOCK);
        }

        /** Starts a call and waits until it sleeps on the lock. */
        <T> JucTestSupport.Call<T> blocked(final String name, final java.util.concurrent.Callable<T> body)
            throws InterruptedException {
            return JucTestSupport.Call.start(name, body).awaitAsleep(lock::getQueueLength, 1, word());
        }

        @Override
        public void close() {
            memory.close();
        }
    }

    /** Holds a lock on another thread until told to release it. */
    static final class Holder implements AutoCloseable {
        private final CountDownLatch release = new CountDownLatch(1);
        private final JucTestSupport.Call<Integer> call;

        Holder(final PthreadLock lock, final int holds) throws Exception {
            final CountDownLatch held = new CountDownLatch(1);
            call = JucTestSupport.Call.start("holder", () -> {
                for (int i = 0; i < holds; i++) {
                    lock.lock();
                }
                held.countDown();
                release.await();
                final int count = lock.getHoldCount();
                for (int i = 0; i < holds; i++) {
                    lock.unlock();
                }
                return count;
            });
            assertTrue(held.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
        }

        /** Releases, and returns the hold count the holder saw just before. */
        int release() throws Exception {
            release.countDown();
            return call.get();
        }

        @Override
        public void close() {
            release.countDown();
        }
    }

    // ------------------------------------------------------------------------------------------
    // lock, unlock, hold counts

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void lockIsReentrantAndUnlockReleasesHoldByHold(final Futex f) {
        final PthreadLock lock = new PthreadLock(recursive(f));
        assertFalse(lock.isLocked());
        assertEquals(0, lock.getHoldCount());
        for (int i = 1; i <= 3; i++) {
            lock.lock();
            assertEquals(i, lock.getHoldCount());
        }
        assertTrue(lock.isHeldByCurrentThread());
        assertTrue(lock.isLocked());
        assertEquals(ThreadIds.current(), lock.getOwnerId());
        for (int i = 2; i >= 0; i--) {
            lock.unlock();
            assertEquals(i, lock.getHoldCount());
        }
        assertFalse(lock.isLocked());
        assertFalse(lock.isHeldByCurrentThread());
        assertEquals(0, lock.getOwnerId());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void unlockOfAFreeLockThrowsIllegalMonitorState(final Futex f) {
        final PthreadLock lock = new PthreadLock(recursive(f));
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertFalse(lock.isLocked());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void unlockByANonOwnerThrowsIllegalMonitorStateAndLeavesTheOwnersHolds(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(recursive(f));
        try (Holder h = new Holder(lock, 2)) {
            assertThrows(IllegalMonitorStateException.class, lock::unlock);
            assertTrue(lock.isLocked());
            assertFalse(lock.isHeldByCurrentThread());
            assertEquals(2, h.release());
        }
        assertFalse(lock.isLocked());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void lockWaitsForTheOwnersLastUnlock(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(recursive(f)); Holder h = new Holder(fx.lock, 3)) {
            final JucTestSupport.Call<Integer> c = fx.blocked("locker", () -> {
                fx.lock.lock();
                try {
                    return fx.lock.getHoldCount();
                } finally {
                    fx.lock.unlock();
                }
            });
            assertTrue(fx.lock.hasQueuedThreads());
            assertEquals(1, fx.lock.getQueueLength());
            assertEquals(3, h.release());
            c.assertResult(1);
            assertFalse(fx.lock.hasQueuedThreads());
            assertEquals(0, fx.lock.getQueueLength());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void lockIsNotInterruptibleAndKeepsTheInterruptStatus(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(recursive(f)); Holder h = new Holder(fx.lock, 1)) {
            final JucTestSupport.Call<Boolean> c = fx.blocked("locker", () -> {
                fx.lock.lock();
                try {
                    return fx.lock.isHeldByCurrentThread();
                } finally {
                    fx.lock.unlock();
                }
            });
            c.thread.interrupt();
            // The interrupt must not end the wait: the locker is still counted and asleep.
            c.awaitAsleep(fx.lock::getQueueLength, 1, fx.word());
            assertTrue(c.running());
            h.release();
            c.assertResult(true);
            assertTrue(c.interruptedAtEnd(), "lock() must leave the interrupt status set");
        }
    }

    // ------------------------------------------------------------------------------------------
    // tryLock

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void tryLockTakesAFreeLockReentersAndFailsWhileAnotherThreadHolds(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(recursive(f));
        assertTrue(lock.tryLock());
        assertTrue(lock.tryLock());
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        try (Holder h = new Holder(lock, 1)) {
            assertFalse(lock.tryLock());
            assertEquals(0, lock.getHoldCount());
            h.release();
        }
        assertTrue(lock.tryLock());
        lock.unlock();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void timedTryLockReturnsFalseAfterTheTimeout(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(recursive(f));
        try (Holder h = new Holder(lock, 1)) {
            final long t0 = System.nanoTime();
            assertFalse(lock.tryLock(30, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(30), "returned before the timeout");
            assertFalse(lock.isHeldByCurrentThread());
            assertEquals(0, lock.getQueueLength());
            h.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void timedTryLockWithZeroOrNegativeTimeOnlyTries(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(recursive(f));
        assertTrue(lock.tryLock(0, TimeUnit.SECONDS));
        lock.unlock();
        assertTrue(lock.tryLock(-1, TimeUnit.SECONDS));
        lock.unlock();
        try (Holder h = new Holder(lock, 1)) {
            assertFalse(lock.tryLock(0, TimeUnit.SECONDS));
            assertFalse(lock.tryLock(Long.MIN_VALUE, TimeUnit.NANOSECONDS));
            h.release();
        }
        assertThrows(NullPointerException.class, () -> lock.tryLock(1, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void timedTryLockSucceedsWhenTheOwnerReleasesInTime(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(recursive(f)); Holder h = new Holder(fx.lock, 1)) {
            final JucTestSupport.Call<Boolean> c = fx.blocked("timed", () -> {
                final boolean got = fx.lock.tryLock(LIVENESS.toNanos(), TimeUnit.NANOSECONDS);
                if (got) {
                    fx.lock.unlock();
                }
                return got;
            });
            h.release();
            c.assertResult(true);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void hugeTimeoutsDoNotOverflow(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(recursive(f)); Holder h = new Holder(fx.lock, 1)) {
            final JucTestSupport.Call<Boolean> c = fx.blocked("timed", () -> {
                final boolean got = fx.lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS);
                if (got) {
                    fx.lock.unlock();
                }
                return got;
            });
            h.release();
            c.assertResult(true);
        }
    }

    // ------------------------------------------------------------------------------------------
    // interrupts

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void interruptedCallerGetsInterruptedExceptionAtOnceEvenForAFreeLock(final Futex f) {
        final PthreadLock lock = new PthreadLock(recursive(f));
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, lock::lockInterruptibly);
        assertFalse(Thread.interrupted(), "status cleared");
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> lock.tryLock(1, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted(), "status cleared");
        assertFalse(lock.isLocked());
        // tryLock() is not interruptible, as in ReentrantLock
        Thread.currentThread().interrupt();
        assertTrue(lock.tryLock());
        assertTrue(Thread.interrupted());
        lock.unlock();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void lockInterruptiblyAnswersAnInterruptAndLeavesTheLockToItsOwner(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(recursive(f)); Holder h = new Holder(fx.lock, 2)) {
            final JucTestSupport.Call<Void> c = fx.blocked("interruptible", () -> {
                fx.lock.lockInterruptibly();
                return null;
            });
            c.interruptExpectingInterruptedException();
            assertTrue(fx.lock.isLocked());
            assertEquals(0, fx.lock.getQueueLength());
            assertEquals(2, h.release(), "the owner's holds are intact");
            assertFalse(fx.lock.isLocked());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void timedTryLockAnswersAnInterruptAndLeavesTheLockToItsOwner(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(recursive(f)); Holder h = new Holder(fx.lock, 1)) {
            final JucTestSupport.Call<Boolean> c = fx.blocked("timed", () ->
                fx.lock.tryLock(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            c.interruptExpectingInterruptedException();
            assertTrue(fx.lock.isLocked());
            assertEquals(0, fx.lock.getQueueLength());
            assertEquals(1, h.release());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aBlockedThreadShowsAsWaitingOnTheParkingBackend(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(recursive(f)); Holder h = new Holder(fx.lock, 1)) {
            final JucTestSupport.Call<Void> untimed = fx.blocked("untimed", () -> {
                fx.lock.lock();
                fx.lock.unlock();
                return null;
            });
            final JucTestSupport.Call<Boolean> timed = JucTestSupport.Call.start("timed", () -> {
                final boolean got = fx.lock.tryLock(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
                if (got) {
                    fx.lock.unlock();
                }
                return got;
            }).awaitAsleep(fx.lock::getQueueLength, 2, fx.word());
            if (JucTestSupport.parks(f)) {
                JucTestSupport.assertShows(untimed.thread, Thread.State.WAITING);
                JucTestSupport.assertShows(timed.thread, Thread.State.TIMED_WAITING);
            } // the kernel backends wait in a native call, which shows as RUNNABLE
            h.release();
            untimed.assertResult(null);
            timed.assertResult(true);
        }
    }

    // ------------------------------------------------------------------------------------------
    // errorcheck, kinds, placement

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void errorcheckLockRefusesToRecurse(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.errorcheck(f));
        lock.lock();
        assertThrows(IllegalStateException.class, lock::lock);
        assertThrows(IllegalStateException.class, lock::lockInterruptibly);
        assertThrows(IllegalStateException.class, () -> lock.tryLock(1, TimeUnit.SECONDS));
        assertFalse(lock.tryLock());
        assertEquals(1, lock.getHoldCount());
        lock.unlock();
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertFalse(lock.isLocked());
    }

    @Test
    void normalMutexesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PthreadLock(MutexAttr.DEFAULT));
        try (Memory m = Memory.allocate(64)) {
            final Block b = m.block(0, MutexLayout.SIZE, 8);
            assertThrows(IllegalArgumentException.class, () -> new PthreadLock(b, MutexAttr.DEFAULT));
            new Mutex(b, MutexAttr.DEFAULT);
            assertThrows(IllegalArgumentException.class, () -> PthreadLock.attach(b));
        }
    }

    @Test
    void theDefaultLockIsRecursiveAndPrivateOnTheDefaultBackend() {
        final PthreadLock lock = new PthreadLock();
        assertEquals(MutexAttr.RECURSIVE, lock.mutex().attr().type());
        assertFalse(lock.mutex().attr().pshared());
        assertFalse(lock.isFair());
        lock.lock();
        lock.lock();
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void anAttachedViewSeesTheSameLock(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(recursive(f))) {
            final PthreadLock view = PthreadLock.attach(fx.block, f);
            fx.lock.lock();
            assertTrue(view.isHeldByCurrentThread());
            assertEquals(1, view.getHoldCount());
            final JucTestSupport.Call<Boolean> other = JucTestSupport.Call.start("other", view::tryLock);
            other.assertResult(false);
            fx.lock.unlock();
            assertFalse(view.isLocked());
        }
    }

    @Test
    void aProcessSharedLockWorksThroughTwoMappingsOfOneFile() throws Exception {
        final java.nio.file.Path file = java.nio.file.Files.createTempFile("pthread4j-lock", ".bin");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
            java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.allocate(4096));
        }
        try (Memory a = Memory.map(file); Memory b = Memory.map(file)) {
            final PthreadLock la = new PthreadLock(a.block(0, MutexLayout.SIZE, 8),
                MutexAttr.builder().type(MutexAttr.RECURSIVE).pshared(true).build());
            final PthreadLock lb = PthreadLock.attach(b.block(0, MutexLayout.SIZE, 8));
            assertTrue(lb.mutex().attr().pshared());
            la.lock();
            final JucTestSupport.Call<Boolean> c = JucTestSupport.Call.start("other-mapping", () -> {
                lb.lock();
                try {
                    return lb.isHeldByCurrentThread();
                } finally {
                    lb.unlock();
                }
            }).awaitAsleep(lb::getQueueLength, 1, b.block(0, MutexLayout.SIZE, 8).address(MutexLayout.LOCK));
            la.unlock();
            c.assertResult(true);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    // ------------------------------------------------------------------------------------------
    // robust

    private static void dieHolding(final PthreadLock lock) throws InterruptedException {
        final Thread t = Thread.ofPlatform().start(lock::lock);
        t.join(LIVENESS.toMillis());
        assertFalse(t.isAlive());
    }

    @Test
    void ownerDeathSurfacesAsOwnerDiedExceptionWithTheLockHeldAndCanBeRepaired() throws Exception {
        final PthreadLock lock = new PthreadLock(MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).build());
        dieHolding(lock);
        final OwnerDiedException e = assertThrows(OwnerDiedException.class, lock::lock);
        assertSame(lock, e.lock());
        assertTrue(lock.isHeldByCurrentThread());
        assertEquals(1, lock.getHoldCount());
        e.markConsistent();
        assertThrows(IllegalStateException.class, lock::markConsistent, "consistent already");
        lock.lock();
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        assertFalse(lock.isLocked());
        assertTrue(lock.tryLock());
        lock.unlock();
    }

    @Test
    void unlockingAfterOwnerDeathWithoutRepairMakesTheLockUnrecoverable() throws Exception {
        final PthreadLock lock = new PthreadLock(MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).build());
        dieHolding(lock);
        assertThrows(OwnerDiedException.class, lock::lockInterruptibly);
        assertThrows(IllegalMonitorStateException.class, () ->
            JucTestSupport.Call.start("stranger", () -> {
                lock.markConsistent();
                return null;
            }).get());
        lock.unlock();
        assertThrows(NotRecoverableException.class, lock::lock);
        assertThrows(NotRecoverableException.class, lock::tryLock);
        assertThrows(NotRecoverableException.class, () -> lock.tryLock(1, TimeUnit.SECONDS));
        assertTrue(lock.isLocked());
        assertFalse(lock.isHeldByCurrentThread());
        assertTrue(lock.toString().contains("Not recoverable"), lock.toString());
    }

    @Test
    void tryLockAfterOwnerDeathAlsoThrowsOwnerDied() throws Exception {
        final PthreadLock lock = new PthreadLock(MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).build());
        dieHolding(lock);
        // the kernel marks the word when the native thread is gone, a moment after join()
        OwnerDiedException e = null;
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (e == null && System.nanoTime() < end) {
            try {
                assertFalse(lock.tryLock(), "a dead owner's lock is busy until the kernel marks it");
                Thread.sleep(1);
            } catch (final OwnerDiedException x) {
                e = x;
            }
        }
        assertTrue(e != null && lock.isHeldByCurrentThread());
        e.markConsistent();
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    @Test
    void robustLocksRefuseVirtualThreads() throws Exception {
        final PthreadLock lock = new PthreadLock(MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).build());
        final AtomicInteger refused = new AtomicInteger();
        Thread.ofVirtual().start(() -> {
            try {
                lock.lock();
            } catch (final UnsupportedOperationException e) {
                refused.incrementAndGet();
            }
        }).join(LIVENESS.toMillis());
        assertEquals(1, refused.get());
    }

    // ------------------------------------------------------------------------------------------
    // introspection, conditions, exclusion

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void toStringShowsTheState(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(recursive(f));
        assertTrue(lock.toString().contains("[Unlocked"), lock.toString());
        lock.lock();
        assertTrue(lock.toString().contains("Locked by thread id " + ThreadIds.current() + " (current, holds 1)"),
            lock.toString());
        lock.unlock();
        try (Holder h = new Holder(lock, 1)) {
            assertTrue(lock.toString().contains("Locked by thread id"), lock.toString());
            assertFalse(lock.toString().contains("current"), lock.toString());
            h.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void conditionQueriesCheckTheOwnerAndTheCondition(final Futex f) {
        final PthreadLock lock = new PthreadLock(recursive(f));
        final Condition c = lock.newCondition();
        assertThrows(IllegalMonitorStateException.class, () -> lock.hasWaiters(c));
        assertThrows(IllegalMonitorStateException.class, () -> lock.getWaitQueueLength(c));
        lock.lock();
        assertFalse(lock.hasWaiters(c));
        assertEquals(0, lock.getWaitQueueLength(c));
        assertThrows(IllegalArgumentException.class, () -> lock.hasWaiters(new PthreadLock().newCondition()));
        assertThrows(IllegalArgumentException.class, () -> lock.hasWaiters(new ReentrantLock().newCondition()));
        assertThrows(NullPointerException.class, () -> lock.getWaitQueueLength(null));
        lock.unlock();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void lockTryLockAndTimedTryLockExcludeEachOther(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(recursive(f));
        final int threads = 4;
        final int rounds = 5_000;
        final long[] counter = new long[1];
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final List<JucTestSupport.Call<Integer>> calls = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int mode = t;
            calls.add(JucTestSupport.Call.start("stress-" + t, () -> {
                int done = 0;
                for (int i = 0; i < rounds; i++) {
                    switch ((mode + i) % 4) {
                        case 0 -> lock.lock();
                        case 1 -> lock.lockInterruptibly();
                        case 2 -> {
                            while (!lock.tryLock()) {
                                Thread.onSpinWait();
                            }
                        }
                        default -> {
                            if (!lock.tryLock(LIVENESS.toMillis(), TimeUnit.MILLISECONDS)) {
                                throw new AssertionError("timed out");
                            }
                        }
                    }
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        lock.lock(); // reentrant inside
                        counter[0]++;
                        lock.unlock();
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                    done++;
                }
                return done;
            }));
        }
        for (final JucTestSupport.Call<Integer> c : calls) {
            c.assertResult(rounds);
        }
        assertEquals(0, overlaps.get());
        assertEquals((long) threads * rounds, counter[0]);
        assertFalse(lock.isLocked());
    }

    @Test
    void privateMemoryIsClosedOnceItsBlockIsUnreachable() throws Exception {
        Block block = PrivateBlocks.allocate(MutexLayout.SIZE, MutexLayout.ALIGNMENT);
        final Memory memory = block.memory();
        new PthreadLock(block, recursive(Futexes.parking())).lock();
        assertTrue(memory.isOpen());
        block = null;
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (memory.isOpen() && System.nanoTime() < end) {
            System.gc();
            Thread.sleep(10);
        }
        assertFalse(memory.isOpen(), "the cleaner never closed the memory");
    }
}
