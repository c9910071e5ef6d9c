package org.pthread4j;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.MutexTestSupport.Config;
import org.pthread4j.futex.Errno;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.block;
import static org.pthread4j.MutexTestSupport.inMillis;
import static org.pthread4j.MutexTestSupport.memory;

/**
 * The fair mutex ({@link MutexLayout#FAIR}, {@link FairProtocol}) on every private backend and,
 * process-shared, on every shared one: FIFO order, a queue that survives waiters that time out or
 * are interrupted at any place in it, equal shares, and a fair mutex in a sync file used through
 * two views.
 */
class FairMutexTest {

    static Stream<Arguments> configsAndKinds() {
        return MutexTestSupport.configsAndKinds();
    }

    private static MutexAttr fair(final Config c, final int kind) {
        return c.attr(kind).toBuilder().fair(true).build();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("configsAndKinds")
    void attributesAndLayout(final Config c, final int kind) {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), fair(c, kind));
            assertTrue(m.isFair());
            assertTrue(m.attr().fair());
            assertEquals(SleepProtocol.FAIR, m.sleepProtocol());
            assertEquals(MutexLayout.FAIR, m.bits() & MutexLayout.FAIR);
            assertTrue(Mutex.attach(block(mem, 0), c.futex()).isFair(), "an attached view is fair too");
            assertEquals(0, m.lock());
            assertEquals(Mutex.State.LOCKED, m.state());
            assertEquals(1, m.block().get(MutexLayout.TICKET), "one ticket taken");
            assertEquals(0, m.block().get(MutexLayout.SERVING), "ticket 0 served");
            assertEquals(0, m.unlock());
            assertEquals(1, m.block().get(MutexLayout.SERVING));
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    @Test
    void fairAndRobustAreRefused() {
        assertThrows(IllegalArgumentException.class,
            () -> MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).fair(true).build());
        assertThrows(IllegalArgumentException.class,
            () -> MutexLayout.checkType(MutexLayout.FAIR | MutexLayout.ROBUST | MutexLayout.RECURSIVE));
    }

    /** A trylock does not barge past a queued thread, even between an unlock and the handover. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("configsAndKinds")
    void aTryDoesNotBargePastTheQueue(final Config c, final int kind) throws Exception {
        try (Memory mem = memory(); MutexTestSupport.Other other = new MutexTestSupport.Other()) {
            final Mutex m = new Mutex(block(mem, 0), fair(c, kind));
            assertEquals(0, m.lock());
            final CompletableFuture<Integer> queued = lockThenUnlockOn(m, null, null);
            MutexTestSupport.awaitWaiters(m, 1);
            assertEquals(Errno.EBUSY, (int) other.call(m::tryLock));
            assertEquals(0, m.unlock());
            assertEquals(0, queued.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(0, (int) other.call(() -> {
                final int r = m.tryLock();
                return r != 0 ? r : m.unlock();
            }));
        }
    }

    /** Three threads queued one after the other acquire in that order. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("configsAndKinds")
    void queuedThreadsAcquireInFifoOrder(final Config c, final int kind) throws Exception {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), fair(c, kind));
            assertEquals(0, m.lock());
            final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            final List<CompletableFuture<Integer>> done = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                done.add(lockThenUnlockOn(m, order, i));
                MutexTestSupport.awaitWaiters(m, i + 1);
            }
            assertEquals(0, m.unlock());
            for (final CompletableFuture<Integer> f : done) {
                assertEquals(0, f.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            }
            assertEquals(List.of(0, 1, 2), order);
            assertEquals(0, m.waiterCount());
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    /**
     * Waiters leave the queue at its head, in its middle and at its tail (a timeout, an interrupt,
     * a timeout): the threads that stay acquire in their order, and the lock is free at the end.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("configsAndKinds")
    void waitersThatLeaveAnywhereInTheQueueDoNotBreakIt(final Config c, final int kind) throws Exception {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), fair(c, kind));
            assertEquals(0, m.lock());
            final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            // queue: 0 leaves (timeout), 1 stays, 2 leaves (interrupt), 3 stays, 4 leaves (timeout)
            final CountDownLatch leave = new CountDownLatch(1);
            final List<CompletableFuture<Integer>> done = new ArrayList<>();
            final AtomicReference<Thread> interruptee = new AtomicReference<>();
            for (int i = 0; i < 5; i++) {
                final int index = i;
                final CompletableFuture<Integer> f = new CompletableFuture<>();
                final Thread t = Thread.ofPlatform().daemon().start(() -> {
                    final int r = switch (index) {
                        case 0, 4 -> m.timedLock(inMillis(1000 + 100L * index));
                        case 2 -> m.lockInterruptibly();
                        default -> m.lock();
                    };
                    if (r == 0) {
                        order.add(index);
                        f.complete(m.unlock());
                    } else {
                        f.complete(r);
                    }
                });
                if (i == 2) {
                    interruptee.set(t);
                }
                done.add(f);
                MutexTestSupport.awaitWaiters(m, i + 1);
            }
            interruptee.get().interrupt();
            assertEquals(Errno.EINTR, (int) done.get(2).get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(Errno.ETIMEDOUT, (int) done.get(0).get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(Errno.ETIMEDOUT, (int) done.get(4).get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(2, m.waiterCount(), "two threads stay queued: " + m);
            assertEquals(0, m.unlock());
            assertEquals(0, (int) done.get(1).get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(0, (int) done.get(3).get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(List.of(1, 3), order);
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(m.block().get(MutexLayout.TICKET), m.block().get(MutexLayout.SERVING),
                "every ticket served or skipped: " + m);
            for (int w = 0; w < 4; w++) {
                assertEquals(0, m.block().get(MutexLayout.SKIP + 4L * w), "the skip map is clear");
            }
            // and the lock still works, at once
            assertEquals(0, m.timedLock(inMillis(0)));
            assertEquals(0, m.unlock());
        }
    }

    /**
     * Every thread takes the lock in turn: each holder waits, holding the lock, until every other
     * thread is queued, so each one that unlocks and locks again goes to the back of a full queue;
     * the acquisitions then go strictly round robin and every thread gets the same share.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("configsAndKinds")
    void queuedThreadsGetEqualSharesRoundRobin(final Config c, final int kind) throws Exception {
        final int threads = 3;
        final int rounds = 50;
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), fair(c, kind));
            assertEquals(0, m.lock());
            final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            final List<CompletableFuture<Integer>> done = new ArrayList<>();
            final java.util.concurrent.atomic.AtomicIntegerArray left = new java.util.concurrent.atomic.AtomicIntegerArray(threads);
            for (int i = 0; i < threads; i++) {
                left.set(i, rounds);
            }
            for (int i = 0; i < threads; i++) {
                final int index = i;
                final CompletableFuture<Integer> f = new CompletableFuture<>();
                done.add(f);
                Thread.ofPlatform().daemon().start(() -> {
                    for (int k = 0; k < rounds; k++) {
                        final int r = m.lock();
                        if (r != 0) {
                            f.complete(r);
                            return;
                        }
                        order.add(index);
                        left.decrementAndGet(index);
                        int others = 0;
                        for (int j = 0; j < threads; j++) {
                            others += j != index && left.get(j) > 0 ? 1 : 0;
                        }
                        try {
                            MutexTestSupport.awaitWaiters(m, others);
                        } catch (final InterruptedException e) {
                            f.complete(Errno.EINTR);
                            return;
                        }
                        m.unlock();
                    }
                    f.complete(0);
                });
                MutexTestSupport.awaitWaiters(m, i + 1);
            }
            assertEquals(0, m.unlock());
            for (final CompletableFuture<Integer> f : done) {
                assertEquals(0, f.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            }
            assertEquals(threads * rounds, order.size());
            for (int i = 0; i < threads * rounds; i++) {
                assertEquals(i % threads, (int) order.get(i), "acquisition " + i + " of " + order);
            }
        }
    }

    /**
     * Mutual exclusion and liveness while waiters time out at random: lockers and short timed
     * lockers share a counter under the lock; every acquisition is counted once, and nobody is
     * left queued.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("configsAndKinds")
    void exclusionAndLivenessWithWaitersTimingOut(final Config c, final int kind) throws Exception {
        final int threads = 4;
        final int each = 300;
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), fair(c, kind));
            final int[] counter = new int[1];
            final AtomicInteger acquired = new AtomicInteger();
            final AtomicInteger overlap = new AtomicInteger();
            final AtomicInteger inside = new AtomicInteger();
            final List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                final boolean timed = i % 2 == 1;
                final CompletableFuture<Void> f = new CompletableFuture<>();
                done.add(f);
                Thread.ofPlatform().daemon().start(() -> {
                    try {
                        for (int k = 0; k < each; k++) {
                            final int r = timed
                                ? m.timedLock(Timespec.CLOCK_MONOTONIC, Timespec0.inMicrosMono(
                                    ThreadLocalRandom.current().nextInt(1, 200)), false)
                                : m.lock();
                            if (r == Errno.ETIMEDOUT) {
                                continue;
                            }
                            assertEquals(0, r);
                            if (inside.incrementAndGet() != 1) {
                                overlap.incrementAndGet();
                            }
                            counter[0]++;
                            acquired.incrementAndGet();
                            inside.decrementAndGet();
                            assertEquals(0, m.unlock());
                        }
                        f.complete(null);
                    } catch (final Throwable t) {
                        f.completeExceptionally(t);
                    }
                });
            }
            for (final CompletableFuture<Void> f : done) {
                f.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
            }
            assertEquals(0, overlap.get());
            assertEquals(acquired.get(), counter[0]);
            assertEquals(0, m.waiterCount());
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.tryLock());
            assertEquals(0, m.unlock());
        }
    }

    /**
     * A waiter 128 tickets or more behind the one served cannot be marked in the skip map: it
     * leaves only once it is within 128, and the queue still drains. 130 virtual threads queue
     * behind a holder, then a timed waiter whose deadline passes while nothing moves: it is still
     * waiting until the holder's unlock moves the queue; then it times out
     * and every thread in front of it gets the lock.
     */
    @Test
    void aWaiterTooFarBackToBeMappedLeavesOnceWithinTheMap() throws Exception {
        final int ahead = 130;
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().fair(true).futex(
                org.pthread4j.futex.Futexes.parking()).build());
            assertEquals(0, m.lock());
            final AtomicInteger acquired = new AtomicInteger();
            final List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < ahead; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    if (m.lock() == 0) {
                        acquired.incrementAndGet();
                        m.unlock();
                    }
                }));
            }
            MutexTestSupport.awaitWaiters(m, ahead);
            final CompletableFuture<Integer> far = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> far.complete(m.timedLock(inMillis(50))));
            MutexTestSupport.awaitWaiters(m, ahead + 1);
            Thread.sleep(200);
            assertFalse(far.isDone(), "a waiter 131 tickets back left before it could be mapped: " + m);
            assertEquals(0, m.unlock());
            assertEquals(Errno.ETIMEDOUT, (int) far.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            for (final Thread t : threads) {
                t.join(LIVENESS.toMillis());
            }
            assertEquals(ahead, acquired.get());
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(m.block().get(MutexLayout.TICKET), m.block().get(MutexLayout.SERVING), "at rest: " + m);
        }
    }

    /**
     * A fair process-shared mutex in a sync file, used through two views of the file (two
     * mappings, as two processes would): FIFO across the views, and a timeout in one view leaves
     * the other's queue intact.
     */
    @Test
    void fairSharedInASyncFileAcrossTwoViews(@TempDir final Path dir) throws Exception {
        final MutexAttr attr = MutexAttr.builder().type(MutexAttr.RECURSIVE).fair(true).pshared(true).build();
        final Path path = dir.resolve("fair");
        try (SyncFile a = SyncFile.create(path, 8); SyncFile b = SyncFile.open(path)) {
            final Mutex ma = a.mutex("fair", attr);
            final Mutex mb = b.mutex("fair");
            assertTrue(mb.isFair());
            assertEquals(SleepProtocol.FAIR, mb.sleepProtocol());
            assertTrue(ma.block().address(0) != mb.block().address(0), "two mappings");
            assertEquals(0, ma.lock());
            final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            final CompletableFuture<Integer> first = lockThenUnlockOn(mb, order, 0);
            MutexTestSupport.awaitWaiters(ma, 1);
            final CompletableFuture<Integer> leaver = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> leaver.complete(ma.timedLock(inMillis(200))));
            MutexTestSupport.awaitWaiters(mb, 2);
            final CompletableFuture<Integer> second = lockThenUnlockOn(ma, order, 1);
            MutexTestSupport.awaitWaiters(mb, 3);
            assertEquals(Errno.ETIMEDOUT, (int) leaver.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(0, ma.unlock());
            assertEquals(0, first.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(0, second.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(List.of(0, 1), order);
            assertEquals(Mutex.State.FREE, mb.state());
            assertFalse(mb.isHeldByCurrentThread());
        }
    }

    /**
     * A sync file holding a fair mutex locked by this thread closes: a fair mutex is never on the
     * kernel robust list, and its skip map, which lies over the list fields, must not be taken
     * for a link (here a timed waiter left ticket 1 marked).
     */
    @Test
    void aHeldFairMutexWithAMarkedTicketDoesNotKeepItsSyncFileOpen(@TempDir final Path dir) throws Exception {
        final MutexAttr attr = MutexAttr.builder().type(MutexAttr.ERRORCHECK).fair(true).pshared(true).build();
        final SyncFile f = SyncFile.create(dir.resolve("held"), 8);
        final Mutex m = f.mutex("fair", attr);
        assertEquals(0, m.lock());
        final CompletableFuture<Integer> leaver = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> leaver.complete(m.timedLock(inMillis(20))));
        assertEquals(Errno.ETIMEDOUT, (int) leaver.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
        assertTrue(m.block().get(MutexLayout.SKIP) != 0, "ticket 1 marked skipped: " + m);
        f.close();
        assertFalse(f.isOpen());
    }

    /** Starts a thread that locks, records {@code index} in {@code order}, and unlocks. */
    private static CompletableFuture<Integer> lockThenUnlockOn(final Mutex m, final List<Integer> order,
                                                               final Integer index) {
        final CompletableFuture<Integer> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            final int r = m.lock();
            if (r != 0) {
                f.complete(r);
                return;
            }
            if (order != null) {
                order.add(index);
            }
            f.complete(m.unlock());
        });
        return f;
    }

    /** Monotonic deadlines. */
    static final class Timespec0 {
        private Timespec0() {
        }

        static org.pthread4j.futex.Timespec inMillisMono(final long millis) {
            return org.pthread4j.futex.Timespec.after(Timespec.CLOCK_MONOTONIC, millis, TimeUnit.MILLISECONDS);
        }

        static org.pthread4j.futex.Timespec inMicrosMono(final long micros) {
            return org.pthread4j.futex.Timespec.after(Timespec.CLOCK_MONOTONIC, micros, TimeUnit.MICROSECONDS);
        }
    }

    /** Shorthand for the clocks. */
    private static final class Timespec {
        static final int CLOCK_MONOTONIC = org.pthread4j.futex.Timespec.CLOCK_MONOTONIC;
    }
}
