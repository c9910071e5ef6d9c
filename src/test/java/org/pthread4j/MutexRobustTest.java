package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.MutexTestSupport.Other;
import org.pthread4j.futex.Futex;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Backends;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.block;
import static org.pthread4j.MutexTestSupport.get;
import static org.pthread4j.MutexTestSupport.inMillis;
import static org.pthread4j.MutexTestSupport.memory;

/**
 * Robust mutexes against thread death, through the kernel robust list: a platform thread that
 * ends holding a robust mutex leaves it OWNER_DIED, and the next locker (or the one already
 * asleep) gets EOWNERDEAD. Private and shared, every kind, on each backend that serves shared
 * words.
 */
class MutexRobustTest {
    /** A robust configuration: kind, process-shared or not, backend. */
    record Robust(int kind, boolean pshared, Futex futex) {
        MutexAttr attr() {
            return MutexAttr.builder().type(kind).robust(true).pshared(pshared).futex(futex).build();
        }

        @Override
        public String toString() {
            return MutexTestSupport.kindName(kind) + (pshared ? " shared/" : " private/") + futex.name();
        }
    }

    static Stream<Robust> robustConfigs() {
        return Backends.sharedBackends().flatMap(f -> Stream.of(false, true).flatMap(s ->
            Stream.of(MutexAttr.NORMAL, MutexAttr.RECURSIVE, MutexAttr.ERRORCHECK).map(k -> new Robust(k, s, f))));
    }

    /** A deadline for "the kernel marks it": liveness only, so a broken mechanism fails instead of hanging. */
    private static Timespec deadline() {
        return inMillis(LIVENESS.toMillis());
    }

    /** Runs {@code body} on a new platform thread that then ends, and waits for it to end. */
    private static <T> T onThreadThatEnds(final java.util.concurrent.Callable<T> body) throws Exception {
        final FutureTask<T> task = new FutureTask<>(body);
        final Thread t = Thread.ofPlatform().name("robust-owner").start(task);
        t.join(LIVENESS.toMillis());
        assertFalse(t.isAlive());
        return task.get();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("robustConfigs")
    void ownerThreadEndingHoldingItGivesTheNextLockerEOWNERDEAD(final Robust c) throws Exception {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr());
            assertEquals(0, (int) onThreadThatEnds(m::lock));
            // The kernel marks the word when the native thread exits, a moment after join:
            // the lock sleeps until it does (the kernel wakes it), so this cannot race.
            assertEquals(Errno.EOWNERDEAD, m.timedLock(deadline()));
            assertTrue(m.isHeldByCurrentThread());
            assertEquals(Mutex.State.OWNER_DIED, m.state());
            assertEquals(ThreadIds.current(), m.ownerId());
            assertEquals(0, m.consistent());
            assertEquals(Mutex.State.LOCKED, m.state());
            assertEquals(Errno.EINVAL, m.consistent(), "already consistent");
            assertEquals(0, m.unlock());
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.lock());
            assertEquals(0, m.unlock());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("robustConfigs")
    void unlockWithoutConsistentMakesItENOTRECOVERABLE(final Robust c) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr());
            assertEquals(0, (int) onThreadThatEnds(m::lock));
            assertEquals(Errno.EOWNERDEAD, m.timedLock(deadline()));
            assertEquals(Errno.EPERM, (int) other.call(m::consistent), "consistent by a non-owner");
            assertEquals(Errno.EPERM, (int) other.call(m::unlock));
            assertEquals(0, m.unlock());
            assertEquals(Mutex.State.UNRECOVERABLE, m.state());
            assertEquals(MutexLayout.UNRECOVERABLE, m.block().get(MutexLayout.LOCK));
            assertEquals(Errno.ENOTRECOVERABLE, m.lock());
            assertEquals(Errno.ENOTRECOVERABLE, m.tryLock());
            assertEquals(Errno.ENOTRECOVERABLE, m.timedLock(inMillis(10)));
            assertEquals(Errno.ENOTRECOVERABLE, m.lockInterruptibly());
            assertEquals(Errno.ENOTRECOVERABLE, (int) other.call(m::lock));
            assertEquals(Errno.EPERM, m.consistent(), "unrecoverable: owner field nonzero, not ours");
            assertEquals(Errno.EPERM, m.unlock());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("robustConfigs")
    void lockerAlreadyAsleepIsWokenWithEOWNERDEADWhenTheOwnerEnds(final Robust c) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr());
            final CountDownLatch locked = new CountDownLatch(1);
            final CountDownLatch end = new CountDownLatch(1);
            final Thread owner = Thread.ofPlatform().start(() -> {
                if (m.lock() == 0) {
                    locked.countDown();
                }
                try {
                    end.await();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            locked.await();
            final Future<Integer> waiter = other.submit(() -> m.timedLock(deadline()));
            MutexTestSupport.awaitWaiters(m, 1);
            end.countDown();
            owner.join(LIVENESS.toMillis());
            assertEquals(Errno.EOWNERDEAD, (int) get(waiter));
            assertEquals(0, (int) other.call(m::consistent));
            assertEquals(0, (int) other.call(m::unlock));
            assertEquals(0, m.tryLock());
            assertEquals(0, m.unlock());
            assertEquals(0, m.waiterCount());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("robustConfigs")
    void everySleeperGetsENOTRECOVERABLEWhenTheHeirUnlocksWithoutConsistent(final Robust c) throws Exception {
        try (Memory mem = memory(); Other a = new Other(); Other b = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr());
            assertEquals(0, (int) onThreadThatEnds(m::lock));
            assertEquals(Errno.EOWNERDEAD, m.timedLock(deadline()));
            final Future<Integer> fa = a.submit(() -> m.timedLock(deadline()));
            final Future<Integer> fb = b.submit(() -> m.timedLock(deadline()));
            MutexTestSupport.awaitWaiters(m, 2);
            assertEquals(0, m.unlock());
            assertEquals(Errno.ENOTRECOVERABLE, (int) get(fa));
            assertEquals(Errno.ENOTRECOVERABLE, (int) get(fb));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("robustConfigs")
    void consistentAnswersEINVALAndEPERMAsMusl(final Robust c) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr());
            assertEquals(Errno.EINVAL, m.consistent(), "not locked");
            assertEquals(0, m.lock());
            assertEquals(Errno.EINVAL, m.consistent(), "locked, consistent");
            assertEquals(Errno.EINVAL, (int) other.call(m::consistent));
            assertEquals(0, m.unlock());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("robustConfigs")
    void recursiveCountIsResetOnEOWNERDEADAndKindRulesStillHold(final Robust c) throws Exception {
        try (Memory mem = memory(); Other other = new Other()) {
            final Mutex m = new Mutex(block(mem, 0), c.attr());
            assertEquals(0, (int) onThreadThatEnds(() -> {
                int r = m.lock();
                if (c.kind() == MutexAttr.RECURSIVE) {
                    r |= m.lock() | m.lock();
                }
                return r;
            }));
            assertEquals(Errno.EOWNERDEAD, m.timedLock(deadline()));
            assertEquals(0, m.block().get(MutexLayout.COUNT));
            assertEquals(1, m.holdCount());
            switch (c.kind()) {
                case MutexAttr.RECURSIVE -> {
                    assertEquals(0, m.lock());
                    assertEquals(0, m.unlock());
                }
                case MutexAttr.ERRORCHECK -> assertEquals(Errno.EDEADLK, m.lock());
                default -> assertEquals(Errno.EBUSY, m.tryLock());
            }
            assertEquals(Errno.EBUSY, (int) other.call(m::tryLock));
            assertEquals(0, m.consistent());
            assertEquals(0, m.unlock());
            assertEquals(0, (int) other.call(m::tryLock));
            assertEquals(0, (int) other.call(m::unlock));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("robustConfigs")
    void kernelWalksTheListLinkedThroughEveryHeldMutex(final Robust c) throws Exception {
        // Five mutexes locked, two unlocked out of order (middle and newest), three held at
        // death: the kernel must find exactly the three through the links.
        try (Memory mem = Memory.allocate(64 * 5)) {
            final List<Mutex> ms = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ms.add(new Mutex(mem.block(i * 64L, MutexLayout.SIZE, 8), c.attr()));
            }
            assertEquals(0, (int) onThreadThatEnds(() -> {
                int r = 0;
                for (final Mutex m : ms) {
                    r |= m.lock();
                }
                final RobustList self = Self.current().robustOrNull();
                final long head = self.headAddress();
                assertEquals(head, RobustList.kernelHead()[0], "the kernel holds our head");
                assertEquals(RobustList.HEAD_SIZE, RobustList.kernelHead()[1]);
                assertEquals(5, self.size());
                checkLinks(head, ms);
                r |= ms.get(2).unlock();
                r |= ms.get(4).unlock();
                assertEquals(3, self.size());
                checkLinks(head, List.of(ms.get(0), ms.get(1), ms.get(3)));
                return r;
            }));
            for (final int i : new int[] {0, 1, 3}) {
                assertEquals(Errno.EOWNERDEAD, ms.get(i).timedLock(deadline()), "mutex " + i);
                assertEquals(0, ms.get(i).consistent());
                assertEquals(0, ms.get(i).unlock());
            }
            for (final int i : new int[] {2, 4}) {
                assertEquals(0, ms.get(i).tryLock(), "mutex " + i);
                assertEquals(0, ms.get(i).unlock());
            }
        }
    }

    /** Checks musl's links: head -> newest ... oldest -> head; _m_prev = the slot pointing at the node. */
    private static void checkLinks(final long head, final List<Mutex> oldestFirst) {
        final java.lang.foreign.MemorySegment h = java.lang.foreign.MemorySegment.ofAddress(head).reinterpret(24);
        final int n = oldestFirst.size();
        long expectedNext = n == 0 ? head : node(oldestFirst.get(n - 1));
        assertEquals(expectedNext, h.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
        assertEquals(MutexLayout.ROBUST_FUTEX_OFFSET, h.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8));
        assertEquals(0, h.get(java.lang.foreign.ValueLayout.JAVA_LONG, 16), "no operation pending");
        for (int i = n - 1; i >= 0; i--) {
            final Block b = oldestFirst.get(i).block();
            assertEquals(i == 0 ? head : node(oldestFirst.get(i - 1)), b.getLong(MutexLayout.NEXT));
            assertEquals(i == n - 1 ? head : node(oldestFirst.get(i + 1)), b.getLong(MutexLayout.PREV));
        }
    }

    private static long node(final Mutex m) {
        return m.block().address(MutexLayout.NEXT);
    }

    @Test
    void closingTheMemoryOfAHeldRobustMutexDropsItFromTheListInsteadOfCrashing() throws Exception {
        // Closing memory that holds a locked mutex is an error; the list must survive it:
        // unlocking its neighbour writes into the closed block's links, which throws inside
        // the list, which then drops the closed entry and rewrites itself.
        final Memory doomed = memory();
        try (Memory kept = memory()) {
            final Mutex a = new Mutex(block(doomed, 0), MutexAttr.builder().robust(true).build());
            final Mutex b = new Mutex(block(kept, 0), MutexAttr.builder().robust(true).build());
            final Mutex c = new Mutex(block(kept, 1), MutexAttr.builder().robust(true).build());
            assertEquals(0, (int) onThreadThatEnds(() -> {
                final int r = a.lock() | b.lock() | c.lock();
                doomed.close();
                final RobustList self = Self.current().robustOrNull();
                final int u = b.unlock(); // its neighbours are c (newer) and a (older, closed)
                assertEquals(1, self.size(), "a dropped, b unlinked, c kept");
                checkLinks(self.headAddress(), List.of(c));
                return r | u;
            }));
            assertEquals(Errno.EOWNERDEAD, c.timedLock(deadline()));
            assertEquals(0, b.tryLock());
        } finally {
            doomed.close();
        }
    }

    @Test
    void nonRobustSharedOwnerTrackedMutexStaysLockedForEverWhenItsOwnerEnds() throws Exception {
        for (final int kind : new int[] {MutexAttr.RECURSIVE, MutexAttr.ERRORCHECK}) {
            try (Memory mem = memory()) {
                final Mutex m = new Mutex(block(mem, 0),
                    MutexAttr.builder().type(kind).pshared(true).build());
                assertEquals(0, (int) onThreadThatEnds(m::lock));
                // The kernel marks it OWNER_DIED with owner 0 (musl's tid-reuse guard): wait for that.
                final long end = System.nanoTime() + LIVENESS.toNanos();
                while (m.block().get(MutexLayout.LOCK) != MutexLayout.OWNER_DIED && System.nanoTime() < end) {
                    Thread.sleep(1);
                }
                assertEquals(MutexLayout.OWNER_DIED, m.block().get(MutexLayout.LOCK));
                assertEquals(Mutex.State.OWNER_DIED, m.state());
                assertEquals(Errno.EBUSY, m.tryLock());
                assertEquals(Errno.ETIMEDOUT, m.timedLock(inMillis(30)));
                assertEquals(Errno.EPERM, m.unlock());
                assertEquals(Errno.EINVAL, m.consistent());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#privateTrackedArgs")
    void nonRobustPrivateOwnerTrackedMutexStaysLockedForEverWhenItsOwnerEnds(final Futex f, final int kind)
        throws Exception {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().type(kind).futex(f).build());
            final int[] owner = {0};
            assertEquals(0, (int) onThreadThatEnds(() -> {
                owner[0] = ThreadIds.current();
                return m.lock();
            }));
            assertEquals(Errno.EBUSY, m.tryLock());
            assertEquals(Errno.ETIMEDOUT, m.timedLock(inMillis(30)));
            assertEquals(Errno.EPERM, m.unlock());
            assertEquals(owner[0], m.ownerId());
            assertEquals(Mutex.State.LOCKED, m.state());
        }
    }

    @Test
    void robustAndSharedOwnerTrackedMutexesRefuseVirtualThreadsClearly() throws Exception {
        try (Memory mem = memory()) {
            final Mutex robust = new Mutex(block(mem, 0), MutexAttr.builder().robust(true).build());
            final Mutex sharedRecursive = new Mutex(block(mem, 1),
                MutexAttr.builder().type(MutexAttr.RECURSIVE).pshared(true).build());
            final Mutex sharedNormal = new Mutex(block(mem, 2), MutexAttr.builder().pshared(true).build());
            final List<Throwable> thrown = new ArrayList<>();
            final int[] results = new int[4];
            final Thread v = Thread.ofVirtual().start(() -> {
                for (final Mutex m : List.of(robust, sharedRecursive)) {
                    for (final Runnable op : List.<Runnable>of(m::lock, m::tryLock,
                        () -> m.timedLock(inMillis(10)), m::lockInterruptibly)) {
                        try {
                            op.run();
                        } catch (final UnsupportedOperationException e) {
                            synchronized (thrown) {
                                thrown.add(e);
                            }
                        }
                    }
                }
                results[0] = robust.unlock();
                results[1] = robust.consistent();
                results[2] = sharedNormal.lock();
                results[3] = sharedNormal.unlock();
            });
            v.join(LIVENESS.toMillis());
            assertFalse(v.isAlive());
            assertEquals(8, thrown.size());
            assertTrue(thrown.get(0).getMessage().contains("virtual thread"), thrown.get(0).getMessage());
            assertEquals(Errno.EPERM, results[0]);
            assertEquals(Errno.EINVAL, results[1]);
            assertEquals(0, results[2], "a shared NORMAL mutex records no owner: fine on a virtual thread");
            assertEquals(0, results[3]);
            assertEquals(Mutex.State.FREE, robust.state());
            assertEquals(Mutex.State.FREE, sharedRecursive.state());
        }
    }

    @Test
    void robustMutexSleepsWithSharedFutexOperations() {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().robust(true).build());
            assertFalse(m.priv());
            assertTrue(m.futex().supportsShared());
        }
    }

}
