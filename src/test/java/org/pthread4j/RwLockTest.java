package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Sleepers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RwLockTest {
    private static final String BACKENDS = "org.pthread4j.testing.Backends#privateBackends";

    private final List<Memory> memories = new ArrayList<>();

    @AfterEach
    void closeMemory() {
        memories.forEach(Memory::close);
    }

    private Block block() {
        final Memory m = Memory.allocate(RwLockLayout.SIZE);
        memories.add(m);
        return m.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
    }

    private RwLock lock(final Futex futex) {
        return new RwLock(block(), RwLockAttr.privateOn(futex));
    }

    private static Timespec in(final int clock, final long millis) {
        return Timespec.after(clock, millis, TimeUnit.MILLISECONDS);
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void initZeroesTheBlockAndRecordsPrivacy(final Futex futex) {
        final Block b = block();
        b.set(RwLockLayout.LOCK, 12345);
        b.set(40, -1);
        final RwLock rw = new RwLock(b, RwLockAttr.privateOn(futex));
        assertEquals(0, b.get(RwLockLayout.LOCK));
        assertEquals(0, b.get(40));
        assertEquals(0, b.get(RwLockLayout.SHARED));
        assertFalse(rw.isPshared());
        assertSame(futex, rw.futex());
        final RwLock shared = new RwLock(block(), RwLockAttr.PSHARED);
        assertEquals(RwLockLayout.PSHARED, shared.block().get(RwLockLayout.SHARED));
        assertTrue(shared.isPshared());
        assertSame(Futexes.shared(), shared.futex());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void manyReadersHoldTheLockAtOnce(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        final int n = 4;
        final CountDownLatch allIn = new CountDownLatch(n);
        final CountDownLatch release = new CountDownLatch(1);
        final List<Spawn.Running<Integer>> readers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            readers.add(Spawn.call(() -> {
                final int r = rw.rdLock();
                allIn.countDown();
                assertTrue(release.await(60, TimeUnit.SECONDS));
                return r | rw.unlock();
            }));
        }
        assertTrue(allIn.await(60, TimeUnit.SECONDS), "readers did not all get in together");
        assertEquals(n, rw.readerCount());
        assertFalse(rw.isWriteLocked());
        assertEquals(Errno.EBUSY, rw.tryWrLock());
        assertEquals(0, rw.tryRdLock());
        assertEquals(0, rw.unlock());
        release.countDown();
        for (final Spawn.Running<Integer> r : readers) {
            assertEquals(0, r.get());
        }
        assertEquals(0, rw.word());
    }

    /** musl's libc-test {@code pthread_rwlock-ebusy}. */
    @ParameterizedTest
    @MethodSource(BACKENDS)
    void tryLocksReturnEBUSYFromAnotherThreadOnAConflictingHold(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.rdLock());
        assertEquals(Errno.EBUSY, Spawn.call(rw::tryWrLock).get());
        assertEquals(0, rw.unlock());

        assertEquals(0, rw.wrLock());
        assertTrue(rw.isWriteLocked());
        assertEquals(Errno.EBUSY, Spawn.call(rw::tryRdLock).get());
        assertEquals(Errno.EBUSY, Spawn.call(rw::tryWrLock).get());
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.word());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aWriterExcludesReadersUntilItUnlocks(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.wrLock());
        final Spawn.Running<Integer> reader = Spawn.call(() -> {
            final int r = rw.rdLock();
            final boolean sawWriter = rw.isWriteLocked();
            return sawWriter ? -1 : r;
        });
        // The count comes before the bit: wait for both (a reader that never sets it fails here).
        Spawn.until("a sleeping reader counted, with bit 31 set", () -> rw.waiterCount() == 1 && rw.hasWaitersBit());
        assertFalse(reader.isDone());
        assertEquals(0, rw.unlock());
        assertEquals(0, reader.get());
        assertEquals(1, rw.readerCount());
        assertEquals(0, rw.waiterCount());
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.word());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aWriterExcludesAnotherWriterAndReadersExcludeWriters(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.wrLock());
        final Spawn.Running<Integer> writer = Spawn.call(() -> rw.wrLock());
        Spawn.until("writer asleep", () -> rw.waiterCount() == 1);
        assertFalse(writer.isDone());
        assertEquals(0, rw.unlock());
        assertEquals(0, writer.get());
        assertTrue(rw.isWriteLocked());
        assertEquals(0, rw.unlock());

        assertEquals(0, rw.rdLock());
        assertEquals(0, rw.rdLock());
        final Spawn.Running<Integer> w2 = Spawn.call(() -> rw.wrLock());
        Spawn.until("writer asleep behind readers", () -> rw.waiterCount() == 1);
        assertEquals(0, rw.unlock());
        assertFalse(w2.isDone(), "one reader still holds the lock");
        assertEquals(1, rw.readerCount());
        assertEquals(0, rw.unlock());
        assertEquals(0, w2.get());
        assertTrue(rw.isWriteLocked());
        assertEquals(0, rw.unlock());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void readersGetInWhileAWriterWaits(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.rdLock());
        final Spawn.Running<Integer> writer = Spawn.call(rw::wrLock);
        Spawn.until("writer asleep", () -> rw.waiterCount() == 1);
        // Reader preference: a new reader enters although a writer is queued.
        assertEquals(0, Spawn.call(rw::tryRdLock).get());
        assertEquals(0, Spawn.call(rw::rdLock).get());
        assertEquals(3, rw.readerCount());
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.unlock());
        assertEquals(0, writer.get());
        assertEquals(0, rw.unlock());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aWritersUnlockWakesAllSleepingReaders(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.wrLock());
        final int n = 3;
        final CountDownLatch allIn = new CountDownLatch(n);
        final CountDownLatch release = new CountDownLatch(1);
        final List<Spawn.Running<Integer>> readers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            readers.add(Spawn.call(() -> {
                final int r = rw.rdLock();
                allIn.countDown();
                assertTrue(release.await(60, TimeUnit.SECONDS));
                return r | rw.unlock();
            }));
        }
        Spawn.until("three readers asleep", () -> rw.waiterCount() == n);
        assertEquals(0, rw.unlock());
        assertTrue(allIn.await(60, TimeUnit.SECONDS), "one unlock must let every reader in");
        assertEquals(n, rw.readerCount());
        release.countDown();
        for (final Spawn.Running<Integer> r : readers) {
            assertEquals(0, r.get());
        }
        assertEquals(0, rw.word());
        assertEquals(0, rw.waiterCount(), "every sleeping reader counted out");
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void timedLocksTimeOutOnEitherClock(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.wrLock());
        assertEquals(Errno.ETIMEDOUT, Spawn.call(() -> rw.timedRdLock(in(Timespec.CLOCK_REALTIME, 30))).get());
        assertEquals(Errno.ETIMEDOUT, Spawn.call(() -> rw.timedWrLock(in(Timespec.CLOCK_REALTIME, 30))).get());
        assertEquals(Errno.ETIMEDOUT, Spawn.call(() ->
            rw.timedRdLock(Timespec.CLOCK_MONOTONIC, in(Timespec.CLOCK_MONOTONIC, 30), false)).get());
        assertEquals(Errno.ETIMEDOUT, Spawn.call(() ->
            rw.timedWrLock(Timespec.CLOCK_MONOTONIC, in(Timespec.CLOCK_MONOTONIC, 30), false)).get());
        // A deadline in the past times out at once.
        assertEquals(Errno.ETIMEDOUT, Spawn.call(() -> rw.timedWrLock(new Timespec(0, 0))).get());
        assertEquals(0, rw.waiterCount());
        assertEquals(0, rw.unlock());

        assertEquals(0, rw.rdLock());
        assertEquals(Errno.ETIMEDOUT, Spawn.call(() -> rw.timedWrLock(in(Timespec.CLOCK_REALTIME, 30))).get());
        assertEquals(0, rw.timedRdLock(in(Timespec.CLOCK_REALTIME, 30)), "readers share, no wait");
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.word());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aTimedLockSucceedsWhenReleasedBeforeItsDeadline(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.wrLock());
        final Spawn.Running<Integer> r = Spawn.call(() -> rw.timedWrLock(in(Timespec.CLOCK_REALTIME, 60_000)));
        Spawn.until("timed writer asleep", () -> rw.waiterCount() == 1);
        assertEquals(0, rw.unlock());
        assertEquals(0, r.get());
        assertEquals(0, rw.unlock());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aBadDeadlineIsEINVALOnlyWhenTheCallWouldSleep(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        final Timespec bad = new Timespec(0, 1_000_000_000L);
        final Timespec negative = new Timespec(0, -1);
        assertEquals(0, rw.timedRdLock(bad), "free lock: the deadline is never looked at");
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.timedWrLock(negative));
        assertEquals(Errno.EINVAL, Spawn.call(() -> rw.timedRdLock(bad)).get());
        assertEquals(Errno.EINVAL, Spawn.call(() -> rw.timedWrLock(negative)).get());
        assertEquals(Errno.EINVAL, Spawn.call(() -> rw.timedWrLock(99, in(Timespec.CLOCK_MONOTONIC, 1000), false)).get());
        assertEquals(0, rw.waiterCount());
        assertEquals(0, rw.unlock());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void anInterruptibleWaitAnswersEINTRAndLeavesTheLockIntact(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.wrLock());
        final Spawn.Running<int[]> w = Spawn.call(() -> {
            final int r = rw.timedWrLock(Timespec.CLOCK_MONOTONIC, null, true);
            return new int[] {r, Thread.currentThread().isInterrupted() ? 1 : 0};
        });
        final Spawn.Running<Integer> rd = Spawn.call(() -> rw.timedRdLock(Timespec.CLOCK_REALTIME, null, true));
        Spawn.until("both asleep", () -> rw.waiterCount() == 2);
        w.thread().interrupt();
        final int[] got = w.get();
        assertEquals(Errno.EINTR, got[0]);
        assertEquals(1, got[1], "the interrupt status is left set");
        rd.thread().interrupt();
        assertEquals(Errno.EINTR, rd.get());
        assertTrue(rw.isWriteLocked(), "the holder still holds it");
        assertEquals(0, rw.waiterCount());
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.word() & RwLockLayout.COUNT_MASK);
        assertEquals(0, rw.wrLock());
        assertEquals(0, rw.unlock());
        // No cancellation point: a free lock is taken although an interrupt is pending.
        final Spawn.Running<Integer> pending = Spawn.call(() -> {
            Thread.currentThread().interrupt();
            return rw.timedWrLock(Timespec.CLOCK_MONOTONIC, null, true) | rw.unlock();
        });
        assertEquals(0, pending.get());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void anUninterruptibleWaitKeepsTheInterruptAndStillGetsTheLock(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.wrLock());
        final int[] tid = new int[1];
        final Spawn.Running<int[]> w = Spawn.call(() -> {
            tid[0] = org.pthread4j.internal.ThreadIds.current();
            final int r = rw.rdLock();
            return new int[] {r, Thread.currentThread().isInterrupted() ? 1 : 0, rw.unlock()};
        });
        final long word = rw.block().address(RwLockLayout.LOCK);
        Spawn.until("reader asleep", () -> Sleepers.isAsleep(w.thread(), tid[0], word));
        w.thread().interrupt();
        // The reader must not come out of its wait while the writer holds the lock: it sleeps
        // on, and a parked one sleeps again after it noted the interrupt (clearing the status
        // until it returns).
        Spawn.until("reader asleep after the interrupt", () -> w.isDone()
            || (Sleepers.isAsleep(w.thread(), tid[0], word)
                && (!(futex instanceof ParkingFutex) || !w.thread().isInterrupted())));
        assertFalse(w.isDone());
        assertEquals(0, rw.unlock());
        final int[] got = w.get();
        assertEquals(0, got[0]);
        assertEquals(1, got[1]);
        assertEquals(0, got[2]);
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void readerLimitAnswersEAGAIN(final Futex futex) {
        final RwLock rw = lock(futex);
        rw.block().set(RwLockLayout.LOCK, RwLockLayout.MAX_COUNT - 1);
        assertEquals(0, rw.tryRdLock());
        assertEquals(RwLockLayout.MAX_COUNT, rw.readerCount());
        assertEquals(Errno.EAGAIN, rw.tryRdLock());
        assertEquals(Errno.EAGAIN, rw.rdLock());
        assertEquals(Errno.EAGAIN, rw.timedRdLock(new Timespec(0, 0)));
        assertEquals(Errno.EBUSY, rw.tryWrLock());
        assertEquals(0, rw.unlock());
        assertEquals(RwLockLayout.MAX_COUNT - 1, rw.word());
        rw.block().set(RwLockLayout.LOCK, 0);
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void unlockOfAFreeLockIsRefusedWithEPERM(final Futex futex) {
        final RwLock rw = lock(futex);
        assertEquals(Errno.EPERM, rw.unlock());
        assertEquals(0, rw.word());
        assertEquals(0, rw.destroy());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void stressKeepsReadersAndWritersApart(final Futex futex) throws Exception {
        final RwLock rw = lock(futex);
        final int threads = 4;
        final int iterations = 2_000;
        final AtomicInteger readersIn = new AtomicInteger();
        final AtomicInteger writersIn = new AtomicInteger();
        final long[] pair = new long[2];
        final List<Spawn.Running<String>> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int id = t;
            all.add(Spawn.call(() -> {
                for (int i = 0; i < iterations; i++) {
                    if ((i + id) % 5 == 0) {
                        final int r = (i & 1) == 0 ? rw.wrLock() : rw.timedWrLock(in(Timespec.CLOCK_REALTIME, 60_000));
                        if (r != 0) {
                            return "wrlock " + Errno.name(r);
                        }
                        if (writersIn.incrementAndGet() != 1 || readersIn.get() != 0) {
                            return "writer overlap";
                        }
                        pair[0]++;
                        Thread.onSpinWait();
                        pair[1]++;
                        writersIn.decrementAndGet();
                    } else {
                        final int r = (i & 1) == 0 ? rw.rdLock() : rw.timedRdLock(Timespec.CLOCK_MONOTONIC, in(Timespec.CLOCK_MONOTONIC, 60_000), false);
                        if (r != 0) {
                            return "rdlock " + Errno.name(r);
                        }
                        readersIn.incrementAndGet();
                        if (writersIn.get() != 0) {
                            return "reader saw a writer";
                        }
                        if (pair[0] != pair[1]) {
                            return "reader saw half a write";
                        }
                        readersIn.decrementAndGet();
                    }
                    final int u = rw.unlock();
                    if (u != 0) {
                        return "unlock " + Errno.name(u);
                    }
                }
                return "ok";
            }));
        }
        for (final Spawn.Running<String> r : all) {
            assertEquals("ok", r.get());
        }
        assertEquals(pair[0], pair[1]);
        assertEquals(0, rw.word());
        assertEquals(0, rw.waiterCount());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void attachViewsTheSameLock(final Futex futex) {
        final RwLock rw = lock(futex);
        assertEquals(0, rw.rdLock());
        final RwLock view = RwLock.attach(rw.block(), futex);
        assertEquals(1, view.readerCount());
        assertEquals(Errno.EBUSY, view.tryWrLock());
        assertEquals(0, view.unlock());
        assertEquals(0, rw.tryWrLock());
        assertEquals(0, rw.unlock());
    }

    @Test
    void attachRefusesGarbageAndUnsuitableBlocks() {
        final Block b = block();
        b.set(RwLockLayout.SHARED, 7);
        assertThrows(IllegalArgumentException.class, () -> RwLock.attach(b));
        b.set(RwLockLayout.SHARED, 0);
        b.set(RwLockLayout.WAITERS, -3);
        assertThrows(IllegalArgumentException.class, () -> RwLock.attach(b));
        b.set(RwLockLayout.WAITERS, 0);
        b.set(RwLockLayout.LOCK, RwLockLayout.WAITERS_BIT);
        assertThrows(IllegalArgumentException.class, () -> RwLock.attach(b));
        b.set(RwLockLayout.LOCK, 0);
        b.set(48, 1);
        assertThrows(IllegalArgumentException.class, () -> RwLock.attach(b));
        b.set(48, 0);
        assertEquals(0, RwLock.attach(b).word());
        // Bytes 12-55 are never used: musl leaves them 0, in a private lock and a shared one.
        for (final int shared : new int[] {0, RwLockLayout.PSHARED}) {
            b.set(RwLockLayout.SHARED, shared);
            for (final int off : new int[] {12, 16}) {
                b.set(off, 77);
                final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RwLock.attach(b));
                assertTrue(e.getMessage().contains("offset " + off + " is 0x4d"), e.getMessage());
                b.set(off, 0);
            }
        }
        b.set(RwLockLayout.SHARED, 0);

        final Memory m = Memory.allocate(128);
        memories.add(m);
        assertThrows(IllegalArgumentException.class, () -> new RwLock(m.block(0, 40, 8)));
        assertThrows(IllegalArgumentException.class, () -> new RwLock(m.block(4, 56, 4)));
        assertThrows(NullPointerException.class, () -> new RwLock(null));
    }

    @Test
    void aClosedLockThrowsInsteadOfFaulting() {
        final Memory m = Memory.allocate(RwLockLayout.SIZE);
        final RwLock rw = new RwLock(m.block(0, RwLockLayout.SIZE, 8));
        m.close();
        assertThrows(IllegalStateException.class, rw::rdLock);
        assertThrows(IllegalStateException.class, rw::unlock);
    }

    /** Two mappings of one file in one JVM meet only through shared futex operations. */
    @Test
    void aProcessSharedLockWorksAcrossTwoMappings(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("rwlock");
        Files.write(file, new byte[RwLockLayout.SIZE]);
        try (Memory a = Memory.map(file, RwLockLayout.SIZE); Memory b = Memory.map(file, RwLockLayout.SIZE)) {
            final RwLock ra = new RwLock(a.block(0, RwLockLayout.SIZE, 8), RwLockAttr.PSHARED);
            final RwLock rb = RwLock.attach(b.block(0, RwLockLayout.SIZE, 8));
            assertTrue(rb.isPshared());
            assertEquals(0, ra.wrLock());
            final Spawn.Running<Integer> reader = Spawn.call(() -> rb.rdLock() | rb.unlock());
            Spawn.until("reader asleep on the other mapping", () -> ra.waiterCount() == 1);
            assertEquals(0, ra.unlock());
            assertEquals(0, reader.get());
            assertEquals(0, ra.word());
        } catch (final IOException e) {
            throw new AssertionError(e);
        }
    }
}
