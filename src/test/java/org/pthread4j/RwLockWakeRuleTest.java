package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.MutexWakeRuleTest.TimesOutWhenWoken;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Sleepers;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.inMillis;

/**
 * The wake rules of both sleep protocols for rwlocks, on every private backend (see
 * {@link RwLock} and {@link MutexWakeRuleTest}): the last reader's unlock wakes one sleeper (under
 * the parking protocol only when bit 31 was set); a writer's unlock wakes every sleeper (under the
 * parking protocol one, and a reader that gets in passes a wake on). Each test builds the
 * interleaving that strands a sleeper if one duty of the rule is missing.
 */
class RwLockWakeRuleTest {

    /**
     * Two writers sleep behind a reader; the reader's unlock wakes the first, which acquires the
     * write lock while the second still sleeps: it must record bit 31, or its unlock would wake
     * nobody.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWriterAcquiringAfterASleepWhileAnotherSleepsRecordsTheBit(final Futex futex) throws Exception {
        try (Memory mem = Memory.allocate(64)) {
            final Block b = mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
            final RwLock rw = new RwLock(b, RwLockAttr.privateOn(futex));
            assertEquals(0, rw.rdLock());
            final CompletableFuture<Integer> first = sleeper(rw, b, 1, thenUnlock(rw, rw::wrLock), null);
            final CompletableFuture<Integer> second = sleeper(rw, b, 2, thenUnlock(rw, rw::wrLock), null);
            assertEquals(0, rw.unlock());
            assertEquals(0, first.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(0, second.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the second writer was stranded: " + rw);
            assertEquals(0, b.get(RwLockLayout.LOCK));
            assertEquals(0, rw.waiterCount());
        }
    }

    /**
     * Two writers sleep behind a reader; the reader's unlock wakes the first, which then reports a
     * timeout (the timeout won its race with the wake) while the reader has taken a read lock
     * again through the fast path, dropping bit 31. The second writer must still be woken, by the
     * wake the leaving one passes on.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWriterThatTakesTheWakeAndTimesOutPassesItOn(final Futex backend) throws Exception {
        final TimesOutWhenWoken futex = new TimesOutWhenWoken(backend);
        try (Memory mem = Memory.allocate(64)) {
            final Block b = mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
            final RwLock rw = new RwLock(b, RwLockAttr.privateOn(futex));
            // The parking table never lets a timeout win over a wake, and the parking protocol counts on it.
            assumeTrue(rw.sleepProtocol() == SleepProtocol.MUSL, "a timeout that won over a wake cannot happen here");
            assertEquals(0, rw.rdLock());
            final CompletableFuture<Integer> first = sleeper(rw, b, 1, thenUnlock(rw, () -> rw.timedWrLock(inMillis(LIVENESS.toMillis()))), futex);
            final CompletableFuture<Integer> second = sleeper(rw, b, 2, thenUnlock(rw, rw::wrLock), null);
            assertEquals(0, rw.unlock());
            // Wakes are FIFO on every private backend: the first sleeper takes this wake.
            assertTrue(futex.woken.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "first writer not woken: " + rw);
            assertEquals(0, rw.rdLock(), "a read lock through the fast path while the first writer leaves");
            futex.relocked.countDown();
            assertEquals(Errno.ETIMEDOUT, first.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(0, rw.unlock());
            assertEquals(0, second.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the second writer was stranded: " + rw);
            assertEquals(0, b.get(RwLockLayout.LOCK));
            assertEquals(0, rw.waiterCount());
        }
    }

    /**
     * A reader, a writer and a reader sleep, in that order, behind a writer. Its unlock wakes them
     * all (musl's protocol) or the first reader, which passes a wake on (the parking protocol's
     * readers' chain), reaching the sleeping writer first: it cannot enter past the reader and
     * sleeps again. The second reader must still get in, and the writer after both, woken by the
     * last reader's unlock.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWritersUnlockLetsTheReadersInAndTheLastReaderWakesTheWriter(final Futex futex) throws Exception {
        try (Memory mem = Memory.allocate(64)) {
            final Block b = mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
            final RwLock rw = new RwLock(b, RwLockAttr.privateOn(futex));
            assertEquals(0, rw.wrLock());
            final CompletableFuture<Integer> reader1 = sleeper(rw, b, 1, thenUnlock(rw, rw::rdLock), null);
            final CompletableFuture<Integer> writer = sleeper(rw, b, 2, thenUnlock(rw, rw::wrLock), null);
            final CompletableFuture<Integer> reader2 = sleeper(rw, b, 3, thenUnlock(rw, rw::rdLock), null);
            assertTrue(rw.toString().contains("waiters=3"), rw.toString());
            assertEquals(0, rw.unlock());
            assertEquals(0, reader1.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "first reader stranded: " + rw);
            assertEquals(0, reader2.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "second reader stranded: " + rw);
            assertEquals(0, writer.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "writer stranded: " + rw);
            assertEquals(0, b.get(RwLockLayout.LOCK));
            assertEquals(0, rw.waiterCount());
        }
    }

    /** @return {@code lock}, then, if it returned 0, the unlock's result */
    private static IntSupplier thenUnlock(final RwLock rw, final IntSupplier lock) {
        return () -> {
            final int r = lock.getAsInt();
            return r != 0 ? r : rw.unlock();
        };
    }

    /**
     * Under the parking protocol a woken writer that finds the lock held again sleeps counted
     * but without bit 31, for a while (see {@link ParkingProtocol}): two writers sleep behind a
     * reader; the reader's unlock wakes the first, and before it runs the reader takes a read
     * lock again through the fast path. The woken writer's next call must be that timed wait,
     * with bit 31 left clear; once the reader leaves, it takes the lock recording the bit for the
     * writer behind it, whose acquisition must follow.
     */
    @org.junit.jupiter.api.Test
    void aWokenWriterThatLosesPollsWithoutTheBitThenRecordsItForTheWriterBehind() throws Exception {
        final MutexWakeRuleTest.PollsWhenWoken futex = new MutexWakeRuleTest.PollsWhenWoken(Futexes.parking());
        try (Memory mem = Memory.allocate(64)) {
            final Block b = mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
            final RwLock rw = new RwLock(b, RwLockAttr.privateOn(futex));
            assertEquals(SleepProtocol.PARKING, rw.sleepProtocol());
            assertEquals(0, rw.rdLock());
            final CompletableFuture<Integer> first = sleeper(rw, b, 1, thenUnlock(rw, rw::wrLock), futex);
            final CompletableFuture<Integer> second = sleeper(rw, b, 2, thenUnlock(rw, rw::wrLock), null);
            assertEquals(0, rw.unlock());
            assertTrue(futex.woken.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "first writer not woken: " + rw);
            assertEquals(0, rw.rdLock(), "a read lock through the fast path: no bit");
            futex.relocked.countDown();
            assertEquals("timedWait", futex.next.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS),
                "the woken writer's first call after losing the race: " + rw);
            assertEquals(0, b.get(RwLockLayout.LOCK) & RwLockLayout.WAITERS_BIT, "the poller set bit 31: " + rw);
            futex.checked.countDown();
            assertEquals(0, rw.unlock());
            assertEquals(0, first.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the poller was stranded: " + rw);
            assertEquals(0, second.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS),
                "the writer behind the poller was stranded: " + rw);
            assertEquals(0, b.get(RwLockLayout.LOCK));
            assertEquals(0, rw.waiterCount());
        }
    }

    /** Starts a thread running {@code body} and returns once it sleeps on the word, counted as the {@code n}th waiter. */
    private static CompletableFuture<Integer> sleeper(final RwLock rw, final Block b, final int n, final IntSupplier body,
                                                      final MutexWakeRuleTest.HoldsAfterWake target) {
        final AtomicInteger tid = new AtomicInteger();
        final CompletableFuture<Integer> f = new CompletableFuture<>();
        final Thread t = Thread.ofPlatform().daemon().unstarted(() -> {
            tid.set(ThreadIds.current());
            f.complete(body.getAsInt());
        });
        if (target != null) {
            target.target = t;
        }
        t.start();
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (rw.waiterCount() < n) {
            assertTrue(System.nanoTime() < end, "no " + n + " waiters: " + rw);
            Thread.onSpinWait();
        }
        Sleepers.awaitAsleep(t, tid.get(), b.address(RwLockLayout.LOCK), LIVENESS);
        return f;
    }
}
