package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.MutexTestSupport.Config;
import org.pthread4j.MutexTestSupport.Other;
import org.pthread4j.futex.Futexes;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.MutexTestSupport.block;
import static org.pthread4j.MutexTestSupport.get;
import static org.pthread4j.MutexTestSupport.inMillis;
import static org.pthread4j.MutexTestSupport.memory;

/** musl's mutex behaviour matrix, every errno, on every private backend and on shared mutexes. */
class MutexTest {
    private static final String SOURCE = "org.pthread4j.MutexTestSupport#configsAndKinds";
    private static final String TRACKED = "org.pthread4j.MutexTestSupport#configsAndTrackedKinds";

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void lockThenUnlockLeavesItFree(final Config c, final int kind) {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.lock());
            assertEquals(Mutex.State.LOCKED, m.state());
            assertEquals(0, m.unlock());
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.tryLock());
            assertEquals(0, m.unlock());
            assertEquals(0, m.timedLock(inMillis(1000)));
            assertEquals(0, m.unlock());
            assertEquals(0, m.lockInterruptibly());
            assertEquals(0, m.unlock());
            assertEquals(0, m.destroy());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void initStoresTheTypeWordAndZeroesTheRest(final Config c, final int kind) {
        try (Memory mem = memory()) {
            final Block b = block(mem, 0);
            for (int off = 0; off < MutexLayout.SIZE; off += 4) {
                b.set(off, -1);
            }
            final Mutex m = new Mutex(b, c.attr(kind));
            assertEquals(kind | (c.pshared() ? MutexLayout.PSHARED : 0), b.get(MutexLayout.TYPE));
            assertEquals(m.bits(), b.get(MutexLayout.TYPE));
            for (int off = 4; off < MutexLayout.SIZE; off += 4) {
                assertEquals(0, b.get(off), "offset " + off);
            }
            assertEquals(kind, m.attr().type());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#configs")
    void normalRelockByHolderDeadlocksAndTimedlockTimesOut(final Config c) {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(MutexAttr.NORMAL));
            assertEquals(0, m.lock());
            assertEquals(Errno.EBUSY, m.tryLock());
            assertEquals(Errno.ETIMEDOUT, m.timedLock(inMillis(50)));
            assertEquals(Errno.ETIMEDOUT, m.timedLock(Timespec.CLOCK_MONOTONIC,
                Timespec.after(Timespec.CLOCK_MONOTONIC, 50, TimeUnit.MILLISECONDS), false));
            assertEquals(0, m.waiterCount());
            assertEquals(0, m.unlock());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#configs")
    void errorcheckRelockByHolderReturnsEDEADLK(final Config c) {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(MutexAttr.ERRORCHECK));
            assertEquals(0, m.lock());
            assertEquals(Errno.EDEADLK, m.lock());
            assertEquals(Errno.EDEADLK, m.timedLock(inMillis(1000)));
            assertEquals(Errno.EDEADLK, m.lockInterruptibly());
            assertEquals(Errno.EBUSY, m.tryLock());
            assertEquals(1, m.holdCount());
            assertEquals(0, m.unlock());
            assertEquals(Errno.EPERM, m.unlock());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#configs")
    void recursiveCountsRelocksAndNeedsAsManyUnlocks(final Config c) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(MutexAttr.RECURSIVE));
            assertEquals(0, m.lock());
            assertEquals(0, m.tryLock());
            assertEquals(0, m.timedLock(inMillis(1000)));
            assertEquals(0, m.lockInterruptibly());
            assertEquals(4, m.holdCount());
            for (int i = 3; i >= 1; i--) {
                assertEquals(0, m.unlock());
                assertEquals(i, m.holdCount());
                assertEquals(Errno.EBUSY, (int) other.call(m::tryLock));
            }
            assertEquals(0, m.unlock());
            assertEquals(0, m.holdCount());
            assertEquals(Errno.EPERM, m.unlock());
            assertEquals(0, (int) other.call(m::tryLock));
            assertEquals(0, (int) other.call(m::unlock));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#configs")
    void recursionCountOverflowReturnsEAGAIN(final Config c) {
        try (Memory mem = memory()) {
            final Block b = block(mem, 0);
            final Mutex m = new Mutex(b, c.attr(MutexAttr.RECURSIVE));
            assertEquals(0, m.lock());
            b.set(MutexLayout.COUNT, Integer.MAX_VALUE - 1);
            assertEquals(0, m.lock());
            assertEquals(Integer.MAX_VALUE, b.get(MutexLayout.COUNT));
            assertEquals(Errno.EAGAIN, m.lock());
            assertEquals(Errno.EAGAIN, m.tryLock());
            assertEquals(Errno.EAGAIN, m.timedLock(inMillis(1000)));
            assertEquals(0, m.unlock());
            assertEquals(Integer.MAX_VALUE - 1, b.get(MutexLayout.COUNT));
            b.set(MutexLayout.COUNT, 0);
            assertEquals(0, m.unlock());
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(TRACKED)
    void unlockOfUnlockedOwnerTrackedMutexReturnsEPERM(final Config c, final int kind) {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(Errno.EPERM, m.unlock());
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(TRACKED)
    void unlockByNonOwnerReturnsEPERM(final Config c, final int kind) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(0, (int) other.call(m::lock));
            assertEquals(Errno.EPERM, m.unlock());
            assertEquals(Mutex.State.LOCKED, m.state());
            assertFalse(m.isHeldByCurrentThread());
            assertEquals(0, m.holdCount());
            assertEquals(0, (int) other.call(m::unlock));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#configs")
    void normalMutexMayBeUnlockedByAnyThread(final Config c) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(MutexAttr.NORMAL));
            assertEquals(0, m.unlock()); // unlocked: not checked, as in musl
            assertEquals(0, (int) other.call(m::lock));
            assertEquals(0, m.unlock());
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.ownerId());
            assertFalse(m.isHeldByCurrentThread());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void trylockOnMutexHeldByAnotherThreadReturnsEBUSY(final Config c, final int kind) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(0, (int) other.call(m::lock));
            assertEquals(Errno.EBUSY, m.tryLock());
            assertEquals(0, (int) other.call(m::unlock));
            assertEquals(0, m.tryLock());
            assertEquals(0, m.unlock());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void timedlockWithPassedDeadlineReturnsETIMEDOUT(final Config c, final int kind) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(0, (int) other.call(m::lock));
            assertEquals(Errno.ETIMEDOUT, m.timedLock(inMillis(-1000)));
            assertEquals(Errno.ETIMEDOUT, m.timedLock(new Timespec(0, 0)));
            assertEquals(Errno.ETIMEDOUT, m.timedLock(new Timespec(-5, 0)));
            assertEquals(Errno.ETIMEDOUT, m.timedLock(inMillis(30)));
            assertEquals(Errno.ETIMEDOUT, m.timedLock(Timespec.CLOCK_MONOTONIC,
                Timespec.after(Timespec.CLOCK_MONOTONIC, 30, TimeUnit.MILLISECONDS), true));
            assertEquals(0, m.waiterCount());
            assertEquals(0, (int) other.call(m::unlock));
            assertEquals(0, m.timedLock(inMillis(-1000)), "a free mutex is taken whatever the deadline");
            assertEquals(0, m.unlock());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void timedlockWithBadNanosReturnsEINVALOnlyWhenItMustWait(final Config c, final int kind) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            final long now = Timespec.now(Timespec.CLOCK_REALTIME).sec();
            assertEquals(0, m.timedLock(new Timespec(now + 10, 1_000_000_000L)), "free: deadline not looked at");
            assertEquals(0, m.unlock());
            assertEquals(0, (int) other.call(m::lock));
            assertEquals(Errno.EINVAL, m.timedLock(new Timespec(now + 10, 1_000_000_000L)));
            assertEquals(Errno.EINVAL, m.timedLock(new Timespec(now + 10, -1)));
            assertEquals(Errno.EINVAL, m.timedLock(42, inMillis(1000), false));
            assertEquals(0, m.waiterCount());
            assertEquals(0, (int) other.call(m::unlock));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void blockedLockIsWokenByUnlock(final Config c, final int kind) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(0, m.lock());
            final Future<Integer> f = other.submit(() -> {
                final int r = m.lock();
                return r == 0 ? m.unlock() + 1000 : r;
            });
            MutexTestSupport.awaitWaiters(m, 1);
            assertEquals(0, m.unlock());
            assertEquals(1000, (int) get(f));
            assertEquals(0, m.waiterCount());
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void lockInterruptiblyReturnsEINTRWhenInterruptedAndDoesNotTakeTheLock(final Config c, final int kind)
        throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(0, (int) other.call(m::lock));
            final int[] result = {-1};
            final boolean[] stillInterrupted = {false};
            final Thread t = Thread.ofPlatform().start(() -> {
                result[0] = m.lockInterruptibly();
                stillInterrupted[0] = Thread.currentThread().isInterrupted();
            });
            MutexTestSupport.awaitWaiters(m, 1);
            t.interrupt();
            t.join(MutexTestSupport.LIVENESS.toMillis());
            assertFalse(t.isAlive());
            assertEquals(Errno.EINTR, result[0]);
            assertTrue(stillInterrupted[0]);
            assertEquals(0, m.waiterCount());
            assertFalse(m.isHeldByCurrentThread());
            Thread.currentThread().interrupt();
            try {
                assertEquals(Errno.EINTR, m.lockInterruptibly(), "interrupted on entry");
                assertEquals(Errno.EINTR, m.timedLock(Timespec.CLOCK_REALTIME, inMillis(1000), true));
            } finally {
                Thread.interrupted();
            }
            assertEquals(0, (int) other.call(m::unlock));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void lockIsNotEndedByAnInterruptAndKeepsIt(final Config c, final int kind) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(0, (int) other.call(m::lock));
            final int[] result = {-1};
            final boolean[] interrupted = {false};
            final Thread t = Thread.ofPlatform().start(() -> {
                result[0] = m.lock();
                interrupted[0] = Thread.currentThread().isInterrupted();
                m.unlock();
            });
            MutexTestSupport.awaitWaiters(m, 1);
            t.interrupt();
            assertEquals(0, (int) other.call(m::unlock));
            t.join(MutexTestSupport.LIVENESS.toMillis());
            assertFalse(t.isAlive());
            assertEquals(0, result[0]);
            assertTrue(interrupted[0]);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void consistentOnNonRobustMutexReturnsEINVAL(final Config c, final int kind) {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(Errno.EINVAL, m.consistent());
            assertEquals(0, m.lock());
            assertEquals(Errno.EINVAL, m.consistent());
            assertEquals(0, m.unlock());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(TRACKED)
    void introspectionReportsOwnerHoldsAndWaiters(final Config c, final int kind) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            assertEquals(0, m.ownerId());
            assertEquals(0, m.lock());
            assertEquals(ThreadIds.current(), m.ownerId());
            assertTrue(m.isHeldByCurrentThread());
            assertEquals(1, m.holdCount());
            assertFalse(other.call(m::isHeldByCurrentThread));
            assertEquals(0, (int) other.call(m::holdCount));
            final Future<Integer> f = other.submit(() -> {
                final int r = m.lock();
                return r == 0 ? m.unlock() : r;
            });
            MutexTestSupport.awaitWaiters(m, 1);
            assertEquals(1, m.waiterCount());
            assertEquals(0, m.unlock());
            assertEquals(0, (int) get(f));
            assertEquals(0, m.waiterCount());
            assertEquals(0, m.ownerId());
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void memoryMayBeClosedRightAfterUnlock(final Config c, final int kind) throws Exception {
        // The waker's futex wake after its release must not touch the mutex memory.
        for (int round = 0; round < 20; round++) {
            final Memory mem = memory();
            final Mutex m = new Mutex(block(mem, 0), c.attr(kind));
            try (Other other = new Other()) {
                assertEquals(0, m.lock());
                final CountDownLatch started = new CountDownLatch(1);
                final Future<Integer> f = other.submit(() -> {
                    started.countDown();
                    final int r = m.lock();
                    final int u = m.unlock();
                    mem.close();
                    return r + u;
                });
                started.await();
                assertEquals(0, m.unlock());
                assertEquals(0, (int) get(f));
            } finally {
                mem.close();
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource(SOURCE)
    void attachSeesTheSameMutex(final Config c, final int kind) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Block b = block(mem, 0);
            final Mutex m = new Mutex(b, c.attr(kind));
            final Mutex view = Mutex.attach(b, c.futex());
            assertEquals(m.bits(), view.bits());
            assertEquals(kind, view.attr().type());
            assertEquals(c.pshared(), view.attr().pshared());
            assertEquals(0, m.lock());
            assertEquals(Errno.EBUSY, (int) other.call(view::tryLock));
            final Future<Integer> f = other.submit(() -> {
                final int r = view.lock();
                return r == 0 ? view.unlock() : r;
            });
            MutexTestSupport.awaitWaiters(view, 1);
            assertEquals(0, m.unlock());
            assertEquals(0, (int) get(f));
        }
    }

    @Test
    void attachRefusesGarbageAndBadBlocks() {
        try (Memory mem = memory()) {
            final Block b = block(mem, 0);
            for (final int bad : new int[] {3, 0x100, 0x8, 0x7fffffff, -1, 0x20, 0x44, 0x83}) {
                b.set(MutexLayout.TYPE, bad);
                assertThrows(IllegalArgumentException.class, () -> Mutex.attach(b), "type 0x" + Integer.toHexString(bad));
            }
            assertThrows(IllegalArgumentException.class, () -> Mutex.attach(mem.block(0, 32, 8)));
            assertThrows(IllegalArgumentException.class, () -> new Mutex(mem.block(0, 32, 8), MutexAttr.DEFAULT));
            assertThrows(IllegalArgumentException.class, () -> new Mutex(mem.block(4, 40, 4), MutexAttr.DEFAULT));
            b.set(MutexLayout.TYPE, 0);
            for (final int word : new int[] {1, 17, 0x40000000, 0x7fffffff, 0x12345}) {
                b.set(MutexLayout.LOCK, word);
                assertThrows(IllegalArgumentException.class, () -> Mutex.attach(b), "NORMAL lock word " + word);
            }
            b.set(MutexLayout.LOCK, 0);
            b.set(MutexLayout.WAITERS, -3);
            assertThrows(IllegalArgumentException.class, () -> Mutex.attach(b));
            b.set(MutexLayout.WAITERS, 0);
            b.set(MutexLayout.COUNT, -1);
            assertThrows(IllegalArgumentException.class, () -> Mutex.attach(b));
            b.clear();
            assertEquals(Mutex.State.FREE, Mutex.attach(b).state(), "all zeros: PTHREAD_MUTEX_INITIALIZER");
            b.set(MutexLayout.LOCK, Errno.EBUSY | MutexLayout.WAITERS_BIT);
            assertEquals(Mutex.State.LOCKED, Mutex.attach(b).state());
            b.set(MutexLayout.LOCK, 0);
            b.set(MutexLayout.TYPE, MutexAttr.ERRORCHECK | MutexLayout.PSHARED);
            final Mutex m = Mutex.attach(b);
            assertEquals(MutexAttr.ERRORCHECK, m.attr().type());
            assertTrue(m.attr().pshared());
        }
    }

    @Test
    void attrBuilderFollowsMuslsSetters() {
        assertEquals(0, MutexAttr.DEFAULT.bits());
        assertEquals(MutexAttr.NORMAL, MutexAttr.DEFAULT_TYPE);
        assertEquals(1 | 4 | 128, MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).pshared(true).build().bits());
        assertThrows(IllegalArgumentException.class, () -> MutexAttr.builder().type(3));
        assertThrows(IllegalArgumentException.class, () -> MutexAttr.builder().type(-1));
        assertThrows(IllegalArgumentException.class,
            () -> MutexAttr.builder().pshared(true).futex(Futexes.parking()).build());
        assertThrows(IllegalArgumentException.class,
            () -> MutexAttr.builder().robust(true).futex(Futexes.parking()).build());
        final MutexAttr a = MutexAttr.builder().type(MutexAttr.ERRORCHECK).futex(Futexes.linux()).build();
        assertEquals(a, a.toBuilder().build());
        assertEquals(a, MutexAttr.ofBits(2, Futexes.linux()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#configs")
    void backendFollowsTheAttributes(final Config c) {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr(MutexAttr.NORMAL));
            assertEquals(c.futex(), m.futex());
            assertEquals(!c.pshared(), m.priv());
            assertEquals(!c.pshared() && c.futex() instanceof org.pthread4j.futex.ParkingFutex
                ? SleepProtocol.PARKING : SleepProtocol.MUSL, m.sleepProtocol(),
                "musl's protocol wherever the kernel serves the word, the parking one on the parking backend");
        }
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().pshared(c.pshared()).build());
            assertEquals(c.pshared() ? Futexes.shared() : Futexes.defaultPrivate(), m.futex());
        }
    }
}
