package org.pthread4j;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Sleepers;

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
import static org.junit.jupiter.api.Assertions.fail;

class OnceTest {
    private static final String BACKENDS = "org.pthread4j.testing.Backends#privateBackends";

    private final List<Memory> memories = new ArrayList<>();

    @AfterEach
    void closeMemory() {
        memories.forEach(Memory::close);
    }

    private Block block() {
        final Memory m = Memory.allocate(OnceLayout.SIZE);
        memories.add(m);
        return m.block(0, OnceLayout.SIZE, OnceLayout.ALIGNMENT);
    }

    private Once once(final Futex futex) {
        return new Once(block(), false, futex);
    }

    /** libc-test {@code pthread_once-deadlock}: three threads race, init runs once, all finish. */
    @ParameterizedTest
    @MethodSource(BACKENDS)
    void threeThreadsRaceAndTheInitializerRunsOnce(final Futex futex) throws Exception {
        for (int round = 0; round < 50; round++) {
            final Once once = once(futex);
            final int[] count = new int[1];
            final CountDownLatch go = new CountDownLatch(1);
            final List<Spawn.Running<Integer>> threads = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                threads.add(Spawn.call(() -> {
                    assertTrue(go.await(60, TimeUnit.SECONDS));
                    final int r = once.run(() -> count[0]++);
                    return r == 0 && count[0] == 1 ? 0 : -1;
                }));
            }
            go.countDown();
            for (final Spawn.Running<Integer> t : threads) {
                assertEquals(0, t.get(), "every caller returns 0 and sees the initializer's write");
            }
            assertEquals(1, count[0]);
            assertTrue(once.isDone());
            assertEquals(OnceLayout.DONE, once.state());
        }
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void waitersSleepWhileTheInitializerRunsAndAreAllWoken(final Futex futex) throws Exception {
        final Once once = once(futex);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger runs = new AtomicInteger();
        final Spawn.Running<Integer> runner = Spawn.call(() -> once.run(() -> {
            runs.incrementAndGet();
            try {
                assertTrue(release.await(60, TimeUnit.SECONDS));
            } catch (final InterruptedException e) {
                throw new AssertionError(e);
            }
        }));
        Spawn.until("initializer running", () -> once.state() == OnceLayout.RUNNING);
        final List<Spawn.Running<Integer>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(Spawn.call(() -> once.run(() -> runs.incrementAndGet())));
        }
        Spawn.until("waiters announced", () -> once.state() == OnceLayout.RUNNING_WAITERS);
        for (final Spawn.Running<Integer> w : waiters) {
            assertFalse(w.isDone());
        }
        release.countDown();
        assertEquals(0, runner.get());
        for (final Spawn.Running<Integer> w : waiters) {
            assertEquals(0, w.get());
        }
        assertEquals(1, runs.get());
        assertEquals(OnceLayout.DONE, once.state());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aThrowingInitializerResetsTheOnceAndTheNextCallerRunsIt(final Futex futex) {
        final Once once = once(futex);
        final IllegalStateException boom = new IllegalStateException("boom");
        final IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> once.run(() -> {
            throw boom;
        }));
        assertSame(boom, thrown, "the initializer's own exception reaches the caller");
        assertEquals(OnceLayout.NOT_RUN, once.state());
        final int[] count = new int[1];
        assertEquals(0, once.run(() -> count[0]++));
        assertEquals(1, count[0]);
        assertEquals(0, once.run(() -> fail("a completed once never runs again")));
        final AssertionError error = new AssertionError("error too");
        final Once other = once(futex);
        assertSame(error, assertThrows(AssertionError.class, () -> other.run(() -> {
            throw error;
        })));
        assertEquals(OnceLayout.NOT_RUN, other.state());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aThrowWithSleepersWakesThemAndOneBecomesTheInitializer(final Futex futex) throws Exception {
        final Once once = once(futex);
        final CountDownLatch release = new CountDownLatch(1);
        final RuntimeException boom = new RuntimeException("first attempt fails");
        final Spawn.Running<Integer> failing = Spawn.call(() -> {
            try {
                return once.run(() -> {
                    try {
                        assertTrue(release.await(60, TimeUnit.SECONDS));
                    } catch (final InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    throw boom;
                });
            } catch (final RuntimeException e) {
                return e == boom ? 1 : -1;
            }
        });
        Spawn.until("initializer running", () -> once.state() == OnceLayout.RUNNING);
        final AtomicInteger runs = new AtomicInteger();
        final List<Spawn.Running<Integer>> waiters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            waiters.add(Spawn.call(() -> once.run(runs::incrementAndGet)));
        }
        Spawn.until("waiters announced", () -> once.state() == OnceLayout.RUNNING_WAITERS);
        release.countDown();
        assertEquals(1, failing.get(), "the thrower gets its exception");
        for (final Spawn.Running<Integer> w : waiters) {
            assertEquals(0, w.get());
        }
        assertEquals(1, runs.get(), "exactly one sleeper ran the initializer after the reset");
        assertTrue(once.isDone());
    }

    @Test
    void attachRefusesAWordThatIsNoState() {
        final Block b = block();
        b.set(0, 7);
        assertThrows(IllegalArgumentException.class, () -> Once.attach(b));
        b.set(0, -1);
        assertThrows(IllegalArgumentException.class, () -> Once.attach(b));
        b.set(0, OnceLayout.DONE);
        assertTrue(Once.attach(b).isDone());
        assertEquals(0, Once.attach(b).run(() -> fail("done already")));
        final Once corrupt = new Once(block());
        corrupt.block().set(0, 9);
        assertThrows(IllegalStateException.class, () -> corrupt.run(() -> { }));
    }

    /** The process-shared extension: two mappings of one file meet through shared futex calls. */
    @Test
    void aProcessSharedOnceWakesASleeperOnAnotherMapping(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("once");
        Files.write(file, new byte[4]);
        try (Memory a = Memory.map(file, 4); Memory b = Memory.map(file, 4)) {
            final Once oa = new Once(a.word(0), true, null);
            final Once ob = Once.attach(b.word(0), true, null);
            final CountDownLatch release = new CountDownLatch(1);
            final Spawn.Running<Integer> runner = Spawn.call(() -> oa.run(() -> {
                try {
                    assertTrue(release.await(60, TimeUnit.SECONDS));
                } catch (final InterruptedException e) {
                    throw new AssertionError(e);
                }
            }));
            Spawn.until("initializer running", () -> oa.state() == OnceLayout.RUNNING);
            final int[] tid = new int[1];
            final Spawn.Running<Integer> waiter = Spawn.call(() -> {
                tid[0] = org.pthread4j.internal.ThreadIds.current();
                return ob.run(() -> fail("runs on the other mapping"));
            });
            Spawn.until("waiter asleep", () -> ob.state() == OnceLayout.RUNNING_WAITERS
                && Sleepers.isAsleep(waiter.thread(), tid[0], ob.block().address(OnceLayout.CONTROL)));
            release.countDown();
            assertEquals(0, runner.get());
            assertEquals(0, waiter.get());
        }
    }
}
