package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.ForwardingFutex;
import org.pthread4j.testing.Sleepers;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.block;
import static org.pthread4j.MutexTestSupport.inMillis;
import static org.pthread4j.MutexTestSupport.memory;

/**
 * The wake rules of both sleep protocols, on every private backend (musl's on the kernel ones,
 * the parking protocol on the parking one: the test backends below report the atomic
 * set-bit-and-wait of the backend they wrap). Under the parking protocol's bit rule an unlock
 * wakes only when bit 31 was set, an acquisition made after a wake while others sleep records
 * the bit, and a sleeper that leaves without the lock passes on a wake it may have taken; under
 * musl's rule the waiter count makes every unlock wake while anyone sleeps. Each test builds the
 * interleaving that would strand a sleeper if one of those steps were missing.
 */
class MutexWakeRuleTest {

    /**
     * Two sleepers; the unlock wakes the first, which then reports a timeout (the timeout and the
     * wake raced, and the timeout won); meanwhile the unlocker relocked through the fast path,
     * which drops bit 31. The second sleeper must still be woken: by the wake the leaving waiter
     * passes on.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.pthread4j.MutexTestSupport#privateKindArgs")
    void aSleeperThatTakesTheWakeAndTimesOutPassesItOn(final Futex backend, final int kind) throws Exception {
        final TimesOutWhenWoken futex = new TimesOutWhenWoken(backend);
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().type(kind).futex(futex).build());
            // The parking table never lets a timeout win over a wake (a wake that raced it is reported as 0),
            // and the parking protocol counts on it: a waiter that times out out of a set-bit sleep took no wake.
            assumeTrue(m.sleepProtocol() == SleepProtocol.MUSL, "a timeout that won over a wake cannot happen here");
            final long word = m.block().address(MutexLayout.LOCK);
            assertEquals(0, m.lock());

            final AtomicInteger tid1 = new AtomicInteger();
            final CompletableFuture<Integer> first = new CompletableFuture<>();
            final Thread t1 = Thread.ofPlatform().daemon().unstarted(() -> {
                tid1.set(ThreadIds.current());
                first.complete(m.timedLock(inMillis(LIVENESS.toMillis())));
            });
            futex.target = t1;
            t1.start();
            MutexTestSupport.awaitWaiters(m, 1);
            Sleepers.awaitAsleep(t1, tid1.get(), word, LIVENESS);

            final AtomicInteger tid2 = new AtomicInteger();
            final CompletableFuture<Integer> second = new CompletableFuture<>();
            final Thread t2 = Thread.ofPlatform().daemon().start(() -> {
                tid2.set(ThreadIds.current());
                final int r = m.lock();
                if (r == 0) {
                    m.unlock();
                }
                second.complete(r);
            });
            MutexTestSupport.awaitWaiters(m, 2);
            Sleepers.awaitAsleep(t2, tid2.get(), word, LIVENESS);

            assertEquals(0, m.unlock());
            // Wakes are FIFO on every private backend: the first sleeper takes this wake.
            assertTrue(futex.woken.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "first sleeper not woken: " + m);
            assertEquals(0, m.lock(), "relock through the fast path while the first sleeper leaves");
            futex.relocked.countDown();
            assertEquals(Errno.ETIMEDOUT, first.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(0, m.unlock());
            assertEquals(0, second.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS),
                "the second sleeper was stranded: " + m);
            t1.join(LIVENESS.toMillis());
            t2.join(LIVENESS.toMillis());
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.waiterCount());
        }
    }

    /**
     * Two sleepers; the unlock wakes the first, which acquires from its sleeping loop while the
     * second still sleeps: it must record bit 31 (the unlock's swap took it away), or its own
     * unlock would wake nobody.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.pthread4j.MutexTestSupport#privateKindArgs")
    void aSleeperThatAcquiresWhileAnotherSleepsRecordsTheBit(final Futex futex, final int kind) throws Exception {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().type(kind).futex(futex).build());
            assertEquals(0, m.lock());
            final CompletableFuture<Integer>[] done = twoSleepers(m, null, new Thread[2]);
            assertEquals(0, m.unlock());
            assertEquals(0, done[0].get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(0, done[1].get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the second sleeper was stranded: " + m);
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.waiterCount());
        }
    }

    /**
     * The parking protocol lets a thread that has not slept join the sleepers already queued,
     * whatever the word holds; a woken thread must not, and one that finds the lock taken again
     * sleeps counted but without bit 31, for a while (untimed locks, see
     * {@link ParkingProtocol}). Two sleepers (the second joined behind the first); the unlock
     * wakes the first, and before it runs the unlocker relocks through the fast path, dropping bit
     * 31. The woken thread's next call must be a timed wait without the bit (a set-bit-and-wait
     * that joined would leave both asleep with no bit for the next unlock to see; one with the bit
     * would make the holder's next unlock wake it again); once the holder leaves, the poller takes
     * the lock and records the bit for the sleeper behind it, whose own acquisition must follow.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#kinds")
    void aWokenSleeperThatLosesPollsWithoutTheBitThenRecordsItForTheSleeperBehind(final int kind) throws Exception {
        final PollsWhenWoken futex = new PollsWhenWoken(org.pthread4j.futex.Futexes.parking());
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().type(kind).futex(futex).build());
            assertEquals(SleepProtocol.PARKING, m.sleepProtocol());
            assertEquals(0, m.lock());
            final Thread[] threads = new Thread[2];
            final CompletableFuture<Integer>[] done = twoSleepers(m, futex, threads);
            assertEquals(0, m.unlock());
            assertTrue(futex.woken.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "first sleeper not woken: " + m);
            assertEquals(0, m.lock(), "relock through the fast path: no bit");
            futex.relocked.countDown();
            assertEquals("timedWait", futex.next.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS),
                "the woken thread's first call after losing the race: " + m);
            assertEquals(0, m.block().get(MutexLayout.LOCK) & MutexLayout.WAITERS_BIT, "the poller set bit 31: " + m);
            futex.checked.countDown();
            assertEquals(0, m.unlock());
            assertEquals(0, done[0].get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the poller was stranded: " + m);
            assertEquals(0, done[1].get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS),
                "the sleeper behind the poller was stranded: " + m);
            for (final Thread t : threads) {
                t.join(LIVENESS.toMillis());
            }
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.waiterCount());
        }
    }

    /**
     * A waiter that leaves (timeout, interrupt) having taken no wake owes none: with the lock held
     * and one thread asleep in {@code lock}, a timed lock that times out and an interruptible lock
     * that is interrupted must wake nobody (a wake would only make the sleeper poll a lock that is
     * still held). Both join the sleeper without losing a turn, so their sleeps end without a wake.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#kinds")
    void aWaiterThatLeavesWithoutAWakeWakesNobody(final int kind) throws Exception {
        final CountsWakes futex = new CountsWakes(org.pthread4j.futex.Futexes.parking());
        try (Memory mem = memory(); MutexTestSupport.Other other = new MutexTestSupport.Other()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().type(kind).futex(futex).build());
            assertEquals(SleepProtocol.PARKING, m.sleepProtocol());
            assertEquals(0, m.lock());
            final AtomicInteger tid = new AtomicInteger();
            final CompletableFuture<Integer> sleeper = new CompletableFuture<>();
            final Thread t = Thread.ofPlatform().daemon().start(() -> {
                tid.set(ThreadIds.current());
                final int r = m.lock();
                sleeper.complete(r != 0 ? r : m.unlock());
            });
            MutexTestSupport.awaitWaiters(m, 1);
            Sleepers.awaitAsleep(t, tid.get(), m.block().address(MutexLayout.LOCK), LIVENESS);

            assertEquals(Errno.ETIMEDOUT, (int) other.call(() -> m.timedLock(inMillis(20))));
            assertEquals(0, futex.woke.get(), "a timed waiter that took no wake woke a sleeper: " + m);

            final java.util.concurrent.atomic.AtomicReference<Thread> waiter = new java.util.concurrent.atomic.AtomicReference<>();
            final Future<Integer> interrupted = other.submit(() -> {
                waiter.set(Thread.currentThread());
                return m.lockInterruptibly();
            });
            MutexTestSupport.awaitWaiters(m, 2);
            waiter.get().interrupt();
            assertEquals(Errno.EINTR, (int) MutexTestSupport.get(interrupted));
            assertEquals(0, futex.woke.get(), "an interrupted waiter that took no wake woke a sleeper: " + m);

            assertEquals(0, m.unlock());
            assertEquals(0, sleeper.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the sleeper was stranded: " + m);
            t.join(LIVENESS.toMillis());
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    /** A backend that counts the threads its wakes woke. */
    static final class CountsWakes extends ForwardingFutex {
        final AtomicInteger woke = new AtomicInteger();

        CountsWakes(final Futex delegate) {
            super(delegate);
        }

        @Override
        public boolean atomicSetBitWait() {
            return delegate.atomicSetBitWait();
        }

        @Override
        public int setBitWait(final MemorySegment seg, final long off, final int bit, final int busy, final boolean join,
                              final boolean priv, final int clock, final Timespec deadline, final boolean interruptible) {
            return delegate.setBitWait(seg, off, bit, busy, join, priv, clock, deadline, interruptible);
        }

        @Override
        public int wake(final MemorySegment seg, final long off, final int n, final boolean priv) {
            final int r = delegate.wake(seg, off, n, priv);
            if (r > 0) {
                woke.addAndGet(r);
            }
            return r;
        }
    }

    /**
     * Starts two threads that each lock and unlock {@code m}, the second only once the first is
     * asleep in {@code lock}, and returns when both sleep.
     *
     * @param target  the backend whose target the first thread becomes, or null
     * @param threads filled with the two threads
     * @return each thread's result: the lock's error, else the unlock's
     */
    @SuppressWarnings("unchecked")
    private static CompletableFuture<Integer>[] twoSleepers(final Mutex m, final HoldsAfterWake target,
                                                            final Thread[] threads) {
        final long word = m.block().address(MutexLayout.LOCK);
        final CompletableFuture<Integer>[] done = new CompletableFuture[2];
        for (int i = 0; i < 2; i++) {
            final AtomicInteger tid = new AtomicInteger();
            final CompletableFuture<Integer> f = new CompletableFuture<>();
            done[i] = f;
            threads[i] = Thread.ofPlatform().daemon().unstarted(() -> {
                tid.set(ThreadIds.current());
                final int r = m.lock();
                f.complete(r != 0 ? r : m.unlock());
            });
            if (i == 0 && target != null) {
                target.target = threads[0];
            }
            threads[i].start();
            try {
                MutexTestSupport.awaitWaiters(m, i + 1);
            } catch (final InterruptedException e) {
                throw new AssertionError(e);
            }
            Sleepers.awaitAsleep(threads[i], tid.get(), word, LIVENESS);
        }
        return done;
    }

    /**
     * A backend that, for one target thread, holds it after a wake until the test has relocked
     * the mutex ({@link #relocked}).
     */
    abstract static class HoldsAfterWake extends ForwardingFutex {
        volatile Thread target;
        final CountDownLatch woken = new CountDownLatch(1);
        final CountDownLatch relocked = new CountDownLatch(1);

        HoldsAfterWake(final Futex delegate) {
            super(delegate);
        }

        /** The wrapped backend's: the parking backend runs the parking protocol through this one too. */
        @Override
        public boolean atomicSetBitWait() {
            return delegate.atomicSetBitWait();
        }

        /** Says the target was woken, then waits until the test relocked. */
        final void holdUntilRelocked() {
            woken.countDown();
            try {
                relocked.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A backend that, for one target thread, holds it after its first wake until the test has
     * relocked, then reports the name of the target's next futex call ({@link #next}) and holds
     * the target there, before the call, until the test has looked at the word ({@link #checked}).
     */
    static final class PollsWhenWoken extends HoldsAfterWake {
        final CompletableFuture<String> next = new CompletableFuture<>();
        final CountDownLatch checked = new CountDownLatch(1);

        PollsWhenWoken(final Futex delegate) {
            super(delegate);
        }

        private boolean first() {
            return Thread.currentThread() == target && woken.getCount() != 0;
        }

        private void record(final String call) {
            if (Thread.currentThread() == target && woken.getCount() == 0 && next.complete(call)) {
                try {
                    checked.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public int setBitWait(final MemorySegment seg, final long off, final int bit, final int busy, final boolean join,
                              final boolean priv, final int clock, final Timespec deadline, final boolean interruptible) {
            final boolean first = first();
            record(join ? "setBitWait, joining" : "setBitWait");
            final int r = delegate.setBitWait(seg, off, bit, busy, join, priv, clock, deadline, interruptible);
            if (first) {
                holdUntilRelocked();
            }
            return r;
        }

        @Override
        public int timedWait(final MemorySegment seg, final long off, final int val, final boolean priv,
                             final int clock, final Timespec deadline, final boolean interruptible) {
            final boolean first = first();
            record("timedWait");
            final int r = delegate.timedWait(seg, off, val, priv, clock, deadline, interruptible);
            if (first) {
                holdUntilRelocked();
            }
            return r;
        }
    }

    /**
     * A backend whose timed sleeps (waits and set-bit-and-waits), for one target thread, ignore
     * the deadline, and when woken hold the thread until the test says go, then report
     * ETIMEDOUT: a timeout that raced a wake and won.
     */
    static final class TimesOutWhenWoken extends HoldsAfterWake {
        TimesOutWhenWoken(final Futex delegate) {
            super(delegate);
        }

        @Override
        public int setBitWait(final MemorySegment seg, final long off, final int bit, final int busy, final boolean join,
                              final boolean priv, final int clock, final Timespec deadline, final boolean interruptible) {
            if (Thread.currentThread() != target || deadline == null) {
                return delegate.setBitWait(seg, off, bit, busy, join, priv, clock, deadline, interruptible);
            }
            final int r = delegate.setBitWait(seg, off, bit, busy, join, priv, clock, null, false);
            if (r != 0) {
                return r;
            }
            holdUntilRelocked();
            return Errno.ETIMEDOUT;
        }

        @Override
        public int timedWait(final MemorySegment seg, final long off, final int val, final boolean priv,
                             final int clock, final Timespec deadline, final boolean interruptible) {
            if (Thread.currentThread() != target || deadline == null) {
                return delegate.timedWait(seg, off, val, priv, clock, deadline, interruptible);
            }
            final int r = delegate.timedWait(seg, off, val, priv, clock, null, false);
            if (r != 0) {
                return r;
            }
            holdUntilRelocked();
            return Errno.ETIMEDOUT;
        }
    }
}
