package org.pthread4j;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.memory.Memory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.block;
import static org.pthread4j.MutexTestSupport.memory;

/**
 * A locker whose spin sees the holder take the lock back at once polls uncounted before its
 * first sleep (see {@link Mutex}, "A locker that meets a holder relocking polls"), on every
 * backend, private and process-shared: while it polls it is parked with the mutex itself as its
 * blocker (a sleeper parks on the backend, or sleeps in the kernel), {@code _m_waiters} stays 0
 * and bit 31 clear (so the holder's unlocks owe it no wake), and it gets the lock once the holder
 * stops.
 */
class MutexRelockPollTest {
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.pthread4j.MutexTestSupport#configsAndKinds")
    void aLockerThatSeesTheHolderRelockPollsUncountedThenGetsTheLock(final MutexTestSupport.Config config,
                                                                     final int kind) throws Exception {
        assumeTrue(Mutex.POLLS > 0, Mutex.POLLS_PROPERTY + "=0");
        assumeTrue(Backoff.RELOCKS > 0, Backoff.RELOCKS_PROPERTY + "=0");
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), config.attr(kind));
            final long end = System.nanoTime() + LIVENESS.toNanos();
            boolean seen = false;
            // The locker polls only when its spin met the holder relocking, which depends on where
            // the two threads run: try again until one attempt shows it, within the liveness bound.
            while (!seen && System.nanoTime() < end) {
                final AtomicBoolean stop = new AtomicBoolean();
                final CompletableFuture<Integer> holderDone = new CompletableFuture<>();
                final Thread holder = Thread.ofPlatform().daemon().start(() -> {
                    int r = 0;
                    while (r == 0 && !stop.get()) {
                        r = m.lock();
                        if (r == 0) {
                            r = m.unlock();
                        }
                    }
                    holderDone.complete(r);
                });
                final CompletableFuture<Integer> got = new CompletableFuture<>();
                final Thread locker = Thread.ofPlatform().daemon().start(() -> {
                    final int r = m.lock();
                    got.complete(r != 0 ? r : m.unlock());
                });
                while (!got.isDone() && System.nanoTime() < end) {
                    if (LockSupport.getBlocker(locker) == m) {
                        final int waiters = m.waiterCount();
                        final int word = m.block().get(MutexLayout.LOCK);
                        if (LockSupport.getBlocker(locker) == m) {
                            // Parked in its poll both before and after the reads: the holder never
                            // fails meanwhile (only the locker could hold the lock), so a count or
                            // a bit is the poller's own.
                            assertEquals(0, waiters, "a polling locker is counted in _m_waiters: " + m);
                            assertEquals(0, word & MutexLayout.WAITERS_BIT, "a polling locker set bit 31: " + m);
                            seen = true;
                            break;
                        }
                    }
                    Thread.onSpinWait();
                }
                stop.set(true);
                assertEquals(0, holderDone.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "holder: " + m);
                assertEquals(0, got.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the locker was stranded: " + m);
                holder.join(LIVENESS.toMillis());
                locker.join(LIVENESS.toMillis());
            }
            assertTrue(seen, "no locker polled within " + LIVENESS + ": " + m);
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.waiterCount());
        }
    }
}
