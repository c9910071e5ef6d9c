package org.pthread4j.juc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.RwLockAttr;
import org.pthread4j.RwLockLayout;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.juc.JucTestSupport.LIVENESS;

/** {@link PthreadReadWriteLock}: both locks' methods, reentrancy, downgrade, refused upgrade, conditions. */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PthreadReadWriteLockTest {
    /** A lock placed in test memory, so its futex word's address is known. */
    static final class Fixture implements AutoCloseable {
        final Memory memory = Memory.allocate(256);
        final Block block = memory.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
        final PthreadReadWriteLock rw;
        final PthreadReadWriteLock.ReadLock read;
        final PthreadReadWriteLock.WriteLock write;

        Fixture(final Futex f) {
            rw = new PthreadReadWriteLock(block, RwLockAttr.privateOn(f));
            read = rw.readLock();
            write = rw.writeLock();
        }

        long word() {
            return block.address(RwLockLayout.LOCK);
        }

        <T> JucTestSupport.Call<T> blocked(final String name, final Callable<T> body) throws InterruptedException {
            return JucTestSupport.Call.start(name, body).awaitAsleep(rw::getQueueLength, 1, word());
        }

        @Override
        public void close() {
            memory.close();
        }
    }

    // ------------------------------------------------------------------------------------------
    // reentrancy and counts

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void readLockIsSharedAndReentrantPerThread(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            fx.read.lock();
            fx.read.lock();
            assertTrue(fx.read.tryLock());
            assertEquals(3, fx.rw.getReadHoldCount());
            assertEquals(3, fx.rw.getReadLockCount(), "holds, as ReentrantReadWriteLock counts them");
            try (JucTestSupport.Holder h = new JucTestSupport.Holder(fx.read)) {
                assertEquals(4, fx.rw.getReadLockCount());
                assertEquals(3, fx.rw.getReadHoldCount());
                h.release();
            }
            for (int i = 2; i >= 0; i--) {
                fx.read.unlock();
                assertEquals(i, fx.rw.getReadHoldCount());
            }
            assertEquals(0, fx.rw.getReadLockCount());
            assertThrows(IllegalMonitorStateException.class, fx.read::unlock);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void writeLockIsExclusiveAndReentrant(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            fx.write.lock();
            fx.write.lock();
            assertTrue(fx.write.tryLock());
            assertTrue(fx.write.tryLock(1, TimeUnit.SECONDS));
            assertEquals(4, fx.rw.getWriteHoldCount());
            assertEquals(4, fx.write.getHoldCount());
            assertTrue(fx.write.isHeldByCurrentThread());
            assertTrue(fx.rw.isWriteLocked());
            assertTrue(fx.rw.isWriteLockedByCurrentThread());
            final JucTestSupport.Call<List<Boolean>> other = JucTestSupport.Call.start("other", () -> List.of(
                fx.write.tryLock(), fx.read.tryLock(), fx.rw.isWriteLockedByCurrentThread(), fx.rw.isWriteLocked()));
            other.assertResult(List.of(false, false, false, true));
            for (int i = 3; i >= 0; i--) {
                fx.write.unlock();
                assertEquals(i, fx.rw.getWriteHoldCount());
            }
            assertFalse(fx.rw.isWriteLocked());
            assertThrows(IllegalMonitorStateException.class, fx.write::unlock);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void unlockByAThreadThatHoldsNothingThrowsAndChangesNothing(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            try (JucTestSupport.Holder h = new JucTestSupport.Holder(fx.write)) {
                assertThrows(IllegalMonitorStateException.class, fx.write::unlock);
                assertThrows(IllegalMonitorStateException.class, fx.read::unlock);
                assertTrue(fx.rw.isWriteLocked());
                h.release();
            }
            try (JucTestSupport.Holder h = new JucTestSupport.Holder(fx.read)) {
                assertThrows(IllegalMonitorStateException.class, fx.read::unlock);
                assertThrows(IllegalMonitorStateException.class, fx.write::unlock);
                assertEquals(1, fx.rw.getReadLockCount());
                h.release();
            }
            assertEquals(0, fx.rw.getReadLockCount());
        }
    }

    // ------------------------------------------------------------------------------------------
    // exclusion and timeouts

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void readersKeepTheWriterOutUntilTheLastLeaves(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f); JucTestSupport.Holder h = new JucTestSupport.Holder(fx.read)) {
            fx.read.lock();
            assertFalse(JucTestSupport.Call.start("try", fx.write::tryLock).get());
            final long t0 = System.nanoTime();
            assertFalse(JucTestSupport.Call.start("timed", () -> fx.write.tryLock(20, TimeUnit.MILLISECONDS)).get());
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(20));
            final JucTestSupport.Call<Integer> writer = fx.blocked("writer", () -> {
                fx.write.lock();
                try {
                    return fx.rw.getReadLockCount();
                } finally {
                    fx.write.unlock();
                }
            });
            fx.read.unlock();
            assertTrue(writer.running());
            h.release();
            writer.assertResult(0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWriterKeepsReadersOutAndTimedReadsTimeOut(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f); JucTestSupport.Holder h = new JucTestSupport.Holder(fx.write)) {
            assertFalse(fx.read.tryLock());
            assertEquals(0, fx.rw.getReadHoldCount());
            final long t0 = System.nanoTime();
            assertFalse(fx.read.tryLock(20, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(20));
            assertFalse(fx.read.tryLock(0, TimeUnit.SECONDS));
            assertFalse(fx.write.tryLock(-1, TimeUnit.SECONDS));
            assertEquals(0, fx.rw.getReadHoldCount());
            final JucTestSupport.Call<Integer> reader = fx.blocked("reader", () -> {
                if (!fx.read.tryLock(LIVENESS.toMillis(), TimeUnit.MILLISECONDS)) {
                    return -1;
                }
                try {
                    return fx.rw.getReadHoldCount();
                } finally {
                    fx.read.unlock();
                }
            });
            h.release();
            reader.assertResult(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aReentrantReadDoesNotWaitBehindAWaitingWriter(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            fx.read.lock();
            final JucTestSupport.Call<Void> writer = fx.blocked("writer", () -> {
                fx.write.lock();
                fx.write.unlock();
                return null;
            });
            fx.read.lock();
            assertEquals(2, fx.rw.getReadHoldCount());
            fx.read.unlock();
            fx.read.unlock();
            writer.assertResult(null);
        }
    }

    // ------------------------------------------------------------------------------------------
    // downgrade and upgrade

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void writeToReadDowngradeKeepsWritersOutAndLetsReadersIn(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            fx.write.lock();
            final JucTestSupport.Call<Boolean> writer = fx.blocked("writer", () -> {
                fx.write.lock();
                try {
                    return fx.rw.getReadLockCount() == 0;
                } finally {
                    fx.write.unlock();
                }
            });
            fx.read.lock();
            fx.read.lock();
            assertTrue(fx.rw.isWriteLocked(), "read holds inside the write lock only count");
            assertEquals(2, fx.rw.getReadLockCount());
            fx.write.unlock();
            // downgraded: one reader on the word, no writer slipped in
            assertFalse(fx.rw.isWriteLocked());
            assertEquals(2, fx.rw.getReadLockCount());
            assertEquals(2, fx.rw.getReadHoldCount());
            assertEquals(0, fx.rw.getWriteHoldCount());
            assertTrue(writer.running());
            assertTrue(JucTestSupport.Call.start("reader", () -> {
                final boolean got = fx.read.tryLock();
                if (got) {
                    fx.read.unlock();
                }
                return got;
            }).get(), "readers enter after a downgrade");
            fx.read.unlock();
            assertTrue(writer.running());
            fx.read.unlock();
            writer.assertResult(true);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void readsInsideTheWriteLockReleasedFirstLeaveAPlainWriteLock(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            fx.write.lock();
            fx.read.lock();
            fx.read.unlock();
            assertTrue(fx.rw.isWriteLocked());
            fx.write.unlock();
            assertFalse(fx.rw.isWriteLocked());
            assertEquals(0, fx.rw.getReadLockCount());
            assertTrue(fx.write.tryLock());
            fx.write.unlock();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void readToWriteUpgradeIsRefusedAtOnce(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            fx.read.lock();
            assertThrows(IllegalMonitorStateException.class, fx.write::lock);
            assertThrows(IllegalMonitorStateException.class, fx.write::lockInterruptibly);
            assertFalse(fx.write.tryLock());
            final long t0 = System.nanoTime();
            assertFalse(fx.write.tryLock(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - t0 < LIVENESS.toNanos(), "refused without waiting");
            assertEquals(1, fx.rw.getReadHoldCount());
            assertFalse(fx.rw.isWriteLocked());
            fx.read.unlock();
            assertTrue(fx.write.tryLock());
            fx.write.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------
    // interrupts

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void interruptedCallersGetInterruptedExceptionAtOnce(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            final List<Callable<?>> calls = List.of(
                () -> {
                    fx.read.lockInterruptibly();
                    return null;
                },
                () -> fx.read.tryLock(1, TimeUnit.SECONDS),
                () -> {
                    fx.write.lockInterruptibly();
                    return null;
                },
                () -> fx.write.tryLock(1, TimeUnit.SECONDS));
            for (final Callable<?> c : calls) {
                Thread.currentThread().interrupt();
                assertThrows(InterruptedException.class, c::call);
                assertFalse(Thread.interrupted(), "status cleared");
            }
            // even when the thread already holds the lock, as ReentrantReadWriteLock
            fx.write.lock();
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, fx.write::lockInterruptibly);
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, fx.read::lockInterruptibly);
            assertEquals(1, fx.rw.getWriteHoldCount());
            assertEquals(0, fx.rw.getReadHoldCount());
            fx.write.unlock();
            assertFalse(fx.rw.isWriteLocked());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void waitingWritersAndReadersAnswerInterruptsAndLeaveTheStateIntact(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            try (JucTestSupport.Holder h = new JucTestSupport.Holder(fx.read)) {
                fx.blocked("writer", () -> {
                    fx.write.lockInterruptibly();
                    return null;
                }).interruptExpectingInterruptedException();
                fx.blocked("timed-writer", () -> fx.write.tryLock(LIVENESS.toMillis(), TimeUnit.MILLISECONDS))
                    .interruptExpectingInterruptedException();
                assertEquals(1, fx.rw.getReadLockCount());
                assertEquals(0, fx.rw.getQueueLength());
                h.release();
            }
            try (JucTestSupport.Holder h = new JucTestSupport.Holder(fx.write)) {
                fx.blocked("reader", () -> {
                    fx.read.lockInterruptibly();
                    return null;
                }).interruptExpectingInterruptedException();
                fx.blocked("timed-reader", () -> fx.read.tryLock(LIVENESS.toMillis(), TimeUnit.MILLISECONDS))
                    .interruptExpectingInterruptedException();
                assertTrue(fx.rw.isWriteLocked());
                assertEquals(0, fx.rw.getQueueLength());
                h.release();
            }
            assertFalse(fx.rw.isWriteLocked());
            assertEquals(0, fx.rw.getReadLockCount());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void uninterruptibleLocksKeepTheInterruptStatus(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            try (JucTestSupport.Holder h = new JucTestSupport.Holder(fx.write)) {
                final JucTestSupport.Call<Void> reader = fx.blocked("reader", () -> {
                    fx.read.lock();
                    fx.read.unlock();
                    return null;
                });
                reader.thread.interrupt();
                reader.awaitAsleep(fx.rw::getQueueLength, 1, fx.word());
                h.release();
                reader.assertResult(null);
                assertTrue(reader.interruptedAtEnd());
            }
            try (JucTestSupport.Holder h = new JucTestSupport.Holder(fx.read)) {
                final JucTestSupport.Call<Void> writer = fx.blocked("writer", () -> {
                    fx.write.lock();
                    fx.write.unlock();
                    return null;
                });
                writer.thread.interrupt();
                writer.awaitAsleep(fx.rw::getQueueLength, 1, fx.word());
                h.release();
                writer.assertResult(null);
                assertTrue(writer.interruptedAtEnd());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void blockedThreadsShowAsWaitingOnTheParkingBackend(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f); JucTestSupport.Holder h = new JucTestSupport.Holder(fx.write)) {
            final JucTestSupport.Call<Void> reader = fx.blocked("reader", () -> {
                fx.read.lock();
                fx.read.unlock();
                return null;
            });
            final JucTestSupport.Call<Boolean> writer = JucTestSupport.Call.start("writer", () -> {
                final boolean got = fx.write.tryLock(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
                if (got) {
                    fx.write.unlock();
                }
                return got;
            }).awaitAsleep(fx.rw::getQueueLength, 2, fx.word());
            if (JucTestSupport.parks(f)) {
                JucTestSupport.assertShows(reader.thread, Thread.State.WAITING);
                JucTestSupport.assertShows(writer.thread, Thread.State.TIMED_WAITING);
            }
            h.release();
            reader.assertResult(null);
            writer.assertResult(true);
        }
    }

    // ------------------------------------------------------------------------------------------
    // conditions

    @Test
    void theReadLockHasNoConditions() {
        assertThrows(UnsupportedOperationException.class, () -> new PthreadReadWriteLock().readLock().newCondition());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWriteConditionReleasesEveryWriteHoldAndRestoresThem(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            final Condition c = fx.write.newCondition();
            final int[] flag = new int[1];
            final JucTestSupport.Call<Integer> waiter = JucTestSupport.Call.start("waiter", () -> {
                fx.write.lock();
                fx.write.lock();
                try {
                    while (flag[0] == 0) {
                        c.await();
                    }
                    return fx.rw.getWriteHoldCount();
                } finally {
                    fx.write.unlock();
                    fx.write.unlock();
                }
            }).awaitAsleep(() -> {
                if (!fx.read.tryLock()) {
                    return 0;
                }
                fx.read.unlock();
                return 1;
            }, 1, 0);
            // the waiter released the write lock: this thread reads, writes, and signals
            fx.write.lock();
            assertTrue(fx.rw.hasWaiters(c));
            assertEquals(1, fx.rw.getWaitQueueLength(c));
            flag[0] = 1;
            c.signal();
            fx.write.unlock();
            waiter.assertResult(2);
            assertFalse(fx.rw.isWriteLocked());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void readHoldsInsideTheWriteLockSurviveAConditionWaitAndStillDowngrade(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            final Condition c = fx.write.newCondition();
            final int[] flag = new int[1];
            final JucTestSupport.Call<List<Integer>> waiter = JucTestSupport.Call.start("waiter", () -> {
                fx.write.lock();
                fx.read.lock();
                while (flag[0] == 0) {
                    c.await();
                }
                final int holdsBack = fx.rw.getWriteHoldCount() * 10 + fx.rw.getReadHoldCount();
                fx.write.unlock(); // downgrades: the read hold taken inside the write lock is still held
                final int readers = fx.rw.getReadLockCount();
                final int writeLocked = fx.rw.isWriteLocked() ? 1 : 0;
                fx.read.unlock();
                return List.of(holdsBack, readers, writeLocked);
            }).awaitAsleep(() -> {
                if (!fx.write.tryLock()) {
                    return 0;
                }
                fx.write.unlock();
                return 1;
            }, 1, 0);
            // another writer takes reads inside its write lock and releases them, while the waiter waits
            fx.write.lock();
            fx.read.lock();
            fx.read.unlock();
            flag[0] = 1;
            c.signal();
            fx.write.unlock();
            waiter.assertResult(List.of(11, 1, 0));
            assertFalse(fx.rw.isWriteLocked());
            assertEquals(0, fx.rw.getReadLockCount());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void writeConditionMethodsNeedTheWriteLock(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            final Condition c = fx.write.newCondition();
            assertThrows(IllegalMonitorStateException.class, c::await);
            assertThrows(IllegalMonitorStateException.class, c::signal);
            assertThrows(IllegalMonitorStateException.class, c::signalAll);
            assertThrows(IllegalMonitorStateException.class, () -> fx.rw.hasWaiters(c));
            fx.read.lock();
            assertThrows(IllegalMonitorStateException.class, c::await, "a read lock is not enough");
            assertThrows(IllegalMonitorStateException.class, c::signal);
            fx.read.unlock();
            fx.write.lock();
            assertFalse(c.await(5, TimeUnit.MILLISECONDS));
            assertTrue(c.awaitNanos(1000) <= 0);
            assertEquals(1, fx.rw.getWriteHoldCount());
            assertThrows(IllegalArgumentException.class, () -> fx.rw.hasWaiters(new PthreadLock().newCondition()));
            assertThrows(IllegalArgumentException.class, () ->
                fx.rw.hasWaiters(new PthreadReadWriteLock().writeLock().newCondition()));
            fx.write.unlock();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void anInterruptedWriteConditionWaiterThrowsWithTheWriteLockHeld(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            final Condition c = fx.write.newCondition();
            final boolean[] heldAtThrow = new boolean[1];
            final JucTestSupport.Call<Void> waiter = JucTestSupport.Call.<Void>start("waiter", () -> {
                fx.write.lock();
                try {
                    c.await();
                    return null;
                } catch (final InterruptedException e) {
                    heldAtThrow[0] = fx.rw.isWriteLockedByCurrentThread() && fx.rw.getWriteHoldCount() == 1;
                    throw e;
                } finally {
                    fx.write.unlock();
                }
            }).awaitAsleep(() -> fx.rw.isWriteLocked() ? 0 : 1, 1, 0);
            waiter.interruptExpectingInterruptedException();
            assertTrue(heldAtThrow[0]);
            assertFalse(fx.rw.isWriteLocked());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void signalAllOnAWriteConditionWakesEveryWaiter(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            final Condition c = fx.write.newCondition();
            final int[] generation = new int[1];
            final AtomicInteger waiting = new AtomicInteger();
            final List<JucTestSupport.Call<Void>> ws = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ws.add(JucTestSupport.Call.start("waiter-" + i, () -> {
                    fx.write.lock();
                    try {
                        waiting.incrementAndGet();
                        while (generation[0] == 0) {
                            c.await();
                        }
                        return null;
                    } finally {
                        fx.write.unlock();
                    }
                }));
            }
            final long end = System.nanoTime() + LIVENESS.toNanos();
            int queued = 0;
            while (queued < 3 && System.nanoTime() < end) {
                fx.write.lock();
                queued = waiting.get() == 3 ? fx.rw.getWaitQueueLength(c) : 0;
                if (queued == 3) {
                    generation[0] = 1;
                    c.signalAll();
                }
                fx.write.unlock();
                Thread.yield();
            }
            assertEquals(3, queued);
            for (final JucTestSupport.Call<Void> w : ws) {
                w.assertResult(null);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // stress, placement, strings

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void readersNeverSeeAHalfWrittenPair(final Futex f) throws Exception {
        final PthreadReadWriteLock rw = new PthreadReadWriteLock(RwLockAttr.privateOn(f));
        final long[] pair = new long[2];
        final int rounds = 4_000;
        final AtomicInteger torn = new AtomicInteger();
        final List<JucTestSupport.Call<Void>> calls = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final boolean writer = t == 0;
            final int id = t;
            calls.add(JucTestSupport.Call.<Void>start("rw-" + t, () -> {
                for (int i = 0; i < rounds; i++) {
                    if (writer || i % 10 == id) {
                        rw.writeLock().lock();
                        try {
                            pair[0]++;
                            rw.readLock().lock(); // downgrade in half of the writes
                            pair[1]++;
                        } finally {
                            if (i % 2 == 0) {
                                rw.writeLock().unlock();
                                if (pair[0] != pair[1]) {
                                    torn.incrementAndGet();
                                }
                                rw.readLock().unlock();
                            } else {
                                rw.readLock().unlock();
                                rw.writeLock().unlock();
                            }
                        }
                    } else {
                        rw.readLock().lock();
                        try {
                            rw.readLock().lock();
                            if (pair[0] != pair[1]) {
                                torn.incrementAndGet();
                            }
                            rw.readLock().unlock();
                        } finally {
                            rw.readLock().unlock();
                        }
                    }
                }
                return null;
            }));
        }
        for (final JucTestSupport.Call<Void> c : calls) {
            c.assertResult(null);
        }
        assertEquals(0, torn.get());
        assertEquals(pair[0], pair[1]);
        assertFalse(rw.isWriteLocked());
        assertEquals(0, rw.getReadLockCount());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void anAttachedLockSharesTheWordButKeepsItsOwnBooks(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            final PthreadReadWriteLock view = PthreadReadWriteLock.attach(fx.block, f);
            fx.write.lock();
            assertTrue(view.isWriteLocked());
            assertFalse(view.isWriteLockedByCurrentThread(), "the other object does not know this writer");
            assertFalse(view.writeLock().tryLock());
            fx.write.unlock();
            assertTrue(view.readLock().tryLock());
            assertEquals(1, fx.rw.getReadLockCount());
            view.readLock().unlock();
        }
    }

    /** The same steps on a {@code ReentrantReadWriteLock} and on the adapter read the same counts. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void readLockCountCountsHoldsAsReentrantReadWriteLockDoes(final Futex f) throws Exception {
        final ReentrantReadWriteLock jdk = new ReentrantReadWriteLock();
        try (Fixture fx = new Fixture(f)) {
            final List<String> steps = List.of("r", "r", "R", "R", "w", "w", "r", "r", "W", "R", "W", "r", "R", "R",
                "w", "r", "R", "W");
            for (final String step : steps) {
                apply(step, jdk.readLock(), jdk.writeLock());
                apply(step, fx.read, fx.write);
                assertEquals(jdk.getReadLockCount(), fx.rw.getReadLockCount(), "after " + step + " of " + steps);
                assertEquals(jdk.getReadHoldCount(), fx.rw.getReadHoldCount(), "after " + step + " of " + steps);
                assertEquals(jdk.getWriteHoldCount(), fx.rw.getWriteHoldCount(), "after " + step + " of " + steps);
                final String counts = "Read locks = " + jdk.getReadLockCount();
                assertTrue(fx.rw.toString().contains(counts), fx.rw.toString());
                assertTrue(fx.read.toString().contains(counts), fx.read.toString());
            }
            assertEquals(0, fx.rw.getReadLockCount());
            try (JucTestSupport.Holder h = new JucTestSupport.Holder(fx.read)) {
                fx.read.lock();
                fx.read.lock();
                assertEquals(3, fx.rw.getReadLockCount(), "two threads, three holds");
                fx.read.unlock();
                fx.read.unlock();
                h.release();
            }
            assertEquals(0, fx.rw.getReadLockCount());
        }
    }

    /** r/R: read lock/unlock; w/W: write lock/unlock (in orders that never upgrade). */
    private static void apply(final String step, final Lock read, final Lock write) {
        switch (step) {
            case "r" -> read.lock();
            case "R" -> read.unlock();
            case "w" -> write.lock();
            case "W" -> write.unlock();
            default -> throw new IllegalArgumentException(step);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWritersReadHoldsLeaveTheCountWhileItWaitsOnACondition(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            final Condition c = fx.write.newCondition();
            final CountDownLatch waiting = new CountDownLatch(1);
            final JucTestSupport.Call<Integer> waiter = JucTestSupport.Call.start("waiter", () -> {
                fx.write.lock();
                fx.read.lock();
                fx.read.lock();
                waiting.countDown();
                c.awaitUninterruptibly();
                final int held = fx.rw.getReadLockCount();
                fx.read.unlock();
                fx.read.unlock();
                fx.write.unlock();
                return held;
            });
            assertTrue(waiting.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            fx.write.lock();
            assertEquals(0, fx.rw.getReadLockCount(), "the waiter holds nothing while it waits");
            fx.read.lock();
            assertEquals(1, fx.rw.getReadLockCount());
            fx.read.unlock();
            c.signal();
            fx.write.unlock();
            waiter.assertResult(2);
            assertEquals(0, fx.rw.getReadLockCount());
        }
    }

    /**
     * ReentrantReadWriteLock's count is an upper bound: the thread that takes the write lock the
     * moment a waiter released it inside {@code await()} sees the waiter counted, every round.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWaiterIsCountedFromTheMomentItReleasedTheWriteLock(final Futex f) throws Exception {
        try (Fixture fx = new Fixture(f)) {
            JucTestSupport.countsTheWaiterRightAfterItsRelease(fx.write, fx.write.newCondition(),
                c -> fx.rw.getWaitQueueLength(c), c -> fx.rw.hasWaiters(c));
        }
    }

    @Test
    void toStringShowsTheCounts() throws Exception {
        final PthreadReadWriteLock rw = new PthreadReadWriteLock();
        assertTrue(rw.toString().contains("[Write locks = 0, Read locks = 0"), rw.toString());
        rw.writeLock().lock();
        rw.writeLock().lock();
        assertTrue(rw.toString().contains("[Write locks = 2, Read locks = 0"), rw.toString());
        assertTrue(rw.writeLock().toString().contains("[Locked by thread " + Thread.currentThread().getName()),
            rw.writeLock().toString());
        rw.writeLock().unlock();
        rw.writeLock().unlock();
        assertTrue(rw.writeLock().toString().contains("[Unlocked]"));
        rw.readLock().lock();
        assertTrue(rw.toString().contains("[Write locks = 0, Read locks = 1"), rw.toString());
        assertTrue(rw.readLock().toString().contains("[Read locks = 1]"), rw.readLock().toString());
        rw.readLock().unlock();
        assertFalse(rw.isFair());
    }
}
