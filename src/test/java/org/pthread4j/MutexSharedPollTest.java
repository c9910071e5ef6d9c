package org.pthread4j;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Backends;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.block;
import static org.pthread4j.MutexTestSupport.memory;

/**
 * A mutex under musl's wake rule (process-shared) whose locker's spin sees the holder take the
 * lock back at once polls uncounted before its first counted sleep (see {@link Mutex}, "A locker
 * under musl's rule whose holder keeps relocking polls"): while it polls it is parked with the
 * mutex as its blocker, {@code _m_waiters} stays 0 (so the holder's unlocks owe it no wake), and
 * it gets the lock once the holder stops.
 */
class MutexSharedPollTest {
    static Stream<Arguments> sharedKinds() {
        return Backends.sharedBackends().flatMap(f -> MutexTestSupport.kinds().map(k -> Arguments.of(f, k)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sharedKinds")
    void aLockerThatSeesTheHolderRelockPollsUncountedThenGetsTheLock(final Futex futex, final int kind)
        throws Exception {
        assumeTrue(Mutex.POLLS > 0, Mutex.POLLS_PROPERTY + "=0");
        assumeTrue(Backoff.RELOCKS > 0, Backoff.RELOCKS_PROPERTY + "=0");
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().type(kind).pshared(true).futex(futex).build());
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
                        if (LockSupport.getBlocker(locker) == m) {
                            // Parked in its poll both before and after the read: the holder never
                            // fails meanwhile (only the locker could hold the lock), so a count is
                            // the poller's own.
                            assertEquals(0, waiters, "a polling locker is counted in _m_waiters: " + m);
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
