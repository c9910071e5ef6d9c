package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Backends;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;

/**
 * A locker whose spin sees the holder take the lock back at once polls uncounted before its
 * first sleep ({@link Backoff#pollUncounted}; see {@link Mutex}, "A locker that meets a holder
 * relocking polls"): a mutex locker on every backend and kind, private and process-shared, and an
 * rwlock writer. While it polls it is parked with the lock itself as its blocker (a sleeper parks
 * on the backend, or sleeps in the kernel), the waiter count stays 0 and bit 31 clear (so the
 * holder's unlocks owe it no wake), and it gets the lock once the holder stops.
 */
class RelockPollTest {
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.pthread4j.MutexTestSupport#configsAndKinds")
    void aMutexLockerThatSeesTheHolderRelockPollsUncountedThenGetsTheLock(final MutexTestSupport.Config config,
                                                                          final int kind) throws Exception {
        try (Memory mem = MutexTestSupport.memory()) {
            final Mutex m = new Mutex(MutexTestSupport.block(mem, 0), config.attr(kind));
            pollsUncountedThenGetsTheLock(m, m::lock, m::unlock, m::waiterCount,
                () -> m.block().get(MutexLayout.LOCK), m::toString, false);
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.pthread4j.MutexTestSupport#configsAndKinds")
    void aMutexLockerInterruptedWhileItPollsAnswersEINTRAndOwnsNothing(final MutexTestSupport.Config config,
                                                                       final int kind) throws Exception {
        try (Memory mem = MutexTestSupport.memory()) {
            final Mutex m = new Mutex(MutexTestSupport.block(mem, 0), config.attr(kind));
            pollsUncountedThenGetsTheLock(m, m::lockInterruptibly, m::unlock, m::waiterCount,
                () -> m.block().get(MutexLayout.LOCK), m::toString, true);
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    static Stream<RwLockAttr> rwLockAttrs() {
        return Stream.concat(Backends.privateBackends().map(RwLockAttr::privateOn), Stream.of(RwLockAttr.PSHARED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rwLockAttrs")
    void anRwLockWriterThatSeesTheHolderRelockPollsUncountedThenGetsTheLock(final RwLockAttr attr) throws Exception {
        try (Memory mem = Memory.allocate(RwLockLayout.SIZE)) {
            final RwLock rw = new RwLock(mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT), attr);
            pollsUncountedThenGetsTheLock(rw, rw::wrLock, rw::unlock, rw::waiterCount, rw::word, rw::toString, false);
            assertEquals(0, rw.word());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rwLockAttrs")
    void anRwLockWriterInterruptedWhileItPollsAnswersEINTRAndOwnsNothing(final RwLockAttr attr) throws Exception {
        try (Memory mem = Memory.allocate(RwLockLayout.SIZE)) {
            final RwLock rw = new RwLock(mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT), attr);
            pollsUncountedThenGetsTheLock(rw, () -> rw.timedWrLock(Timespec.CLOCK_MONOTONIC, null, true), rw::unlock,
                rw::waiterCount, rw::word, rw::toString, true);
            assertEquals(0, rw.word());
        }
    }

    /**
     * A holder thread takes and releases the lock in a loop while a locker takes it once, until
     * the locker is seen parked in its poll (it polls only when its spin met the holder relocking,
     * which depends on where the two threads run: each attempt that does not show it is repeated,
     * within the liveness bound), then the holder stops and the locker must get the lock. With
     * {@code interrupt}, the locker seen polling is interrupted instead and must answer EINTR
     * without the lock (an attempt where its {@code trylock} won before the interrupt landed is
     * repeated).
     */
    private static void pollsUncountedThenGetsTheLock(final Object lock, final IntSupplier take,
                                                      final IntSupplier release, final IntSupplier waiters,
                                                      final IntSupplier word, final java.util.function.Supplier<String> state,
                                                      final boolean interrupt)
        throws Exception {
        assumeTrue(Mutex.POLLS > 0, Mutex.POLLS_PROPERTY + "=0");
        assumeTrue(Backoff.RELOCKS > 0, Backoff.RELOCKS_PROPERTY + "=0");
        final long end = System.nanoTime() + LIVENESS.toNanos();
        boolean seen = false;
        while (!seen && System.nanoTime() < end) {
            final AtomicBoolean stop = new AtomicBoolean();
            final CompletableFuture<Integer> holderDone = new CompletableFuture<>();
            final Thread holder = Thread.ofPlatform().daemon().start(() -> {
                int r = 0;
                while (r == 0 && !stop.get()) {
                    r = take.getAsInt();
                    if (r == 0) {
                        r = release.getAsInt();
                    }
                }
                holderDone.complete(r);
            });
            final CompletableFuture<Integer> got = new CompletableFuture<>();
            final Thread locker = Thread.ofPlatform().daemon().start(() -> {
                final int r = take.getAsInt();
                got.complete(r != 0 ? r : release.getAsInt());
            });
            while (!got.isDone() && System.nanoTime() < end) {
                if (LockSupport.getBlocker(locker) == lock) {
                    final int counted = waiters.getAsInt();
                    final int w = word.getAsInt();
                    if (LockSupport.getBlocker(locker) == lock) {
                        // Parked in its poll both before and after the reads: the holder never
                        // fails meanwhile (only the locker could hold the lock against it), so a
                        // count or a bit is the poller's own.
                        assertEquals(0, counted, "a polling locker is counted: " + state.get());
                        assertEquals(0, w & Integer.MIN_VALUE, "a polling locker set bit 31: " + state.get());
                        if (interrupt) {
                            locker.interrupt();
                        }
                        seen = true;
                        break;
                    }
                }
                Thread.onSpinWait();
            }
            stop.set(true);
            assertEquals(0, holderDone.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "holder: " + state.get());
            final int r = got.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
            if (interrupt && seen && r == 0) {
                seen = false; // its trylock won just before the interrupt landed: try again
            } else {
                assertEquals(interrupt && seen ? Errno.EINTR : 0, r, "the locker was stranded or answered wrong: " + state.get());
            }
            holder.join(LIVENESS.toMillis());
            locker.join(LIVENESS.toMillis());
        }
        assertTrue(seen, "no locker polled within " + LIVENESS + ": " + state.get());
        assertEquals(0, waiters.getAsInt());
    }
}
