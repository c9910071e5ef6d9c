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
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Sleepers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SemTest {
    private static final String BACKENDS = "org.pthread4j.testing.Backends#privateBackends";

    private final List<Memory> memories = new ArrayList<>();

    @AfterEach
    void closeMemory() {
        memories.forEach(Memory::close);
    }

    private Block block() {
        final Memory m = Memory.allocate(SemLayout.SIZE);
        memories.add(m);
        return m.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
    }

    private Sem sem(final Futex futex, final int value) {
        return new Sem(block(), false, value, futex);
    }

    private static Timespec in(final long millis) {
        return Timespec.after(Timespec.CLOCK_REALTIME, millis, TimeUnit.MILLISECONDS);
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void initWritesValueWaitersAndPrivacyAsMuslDoes(final Futex futex) {
        final Block b = block();
        b.set(12, 0x1234);
        final Sem s = new Sem(b, false, 5, futex);
        assertEquals(5, b.get(SemLayout.VALUE));
        assertEquals(0, b.get(SemLayout.WAITERS));
        assertEquals(SemLayout.PRIVATE, b.get(SemLayout.FLAGS));
        assertEquals(0x1234, b.get(12), "sem_init leaves the other ints alone");
        assertFalse(s.isPshared());
        assertSame(futex, s.futex());
        final Sem shared = new Sem(block(), true, 0);
        assertEquals(0, shared.block().get(SemLayout.FLAGS));
        assertTrue(shared.isPshared());
        assertSame(Futexes.shared(), shared.futex());
        assertThrows(IllegalArgumentException.class, () -> new Sem(block(), false, -1));
        assertThrows(IllegalArgumentException.class, () -> new Sem(block(), true, Integer.MIN_VALUE));
        assertEquals(Sem.VALUE_MAX, new Sem(block(), false, Sem.VALUE_MAX).getValue());
    }

    /** libc-test {@code sem_init}, single thread. */
    @ParameterizedTest
    @MethodSource(BACKENDS)
    void initOneWaitLeavesZeroThenTrywaitEAGAINAndTimedwaitNowETIMEDOUT(final Futex futex) {
        final Sem s = sem(futex, 1);
        assertEquals(0, s.await());
        assertEquals(0, s.getValue());
        assertEquals(Errno.EAGAIN, s.tryAwait());
        assertEquals(Errno.ETIMEDOUT, s.timedAwait(Timespec.now(Timespec.CLOCK_REALTIME)));
        assertEquals(Errno.ETIMEDOUT, s.timedAwait(Timespec.CLOCK_MONOTONIC, Timespec.now(Timespec.CLOCK_MONOTONIC), true));
        assertEquals(0, s.waiterCount());
        assertEquals(0, s.getValue());
        assertEquals(0, s.destroy());
    }

    /** libc-test {@code sem_init}, many waiters: three threads post and timedwait in two phases. */
    @ParameterizedTest
    @MethodSource(BACKENDS)
    void threeThreadsPostThenTimedwaitInTwoPhases(final Futex futex) throws Exception {
        final Sem s0 = sem(futex, 0);
        final Sem s1 = sem(futex, 0);
        final List<Spawn.Running<int[]>> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            threads.add(Spawn.call(() -> new int[] {s0.post(), s1.timedAwait(in(60_000))}));
        }
        assertEquals(0, s0.await());
        assertEquals(0, s0.await());
        assertEquals(0, s0.await());
        assertEquals(0, s0.getValue());
        assertEquals(0, s1.post());
        assertEquals(0, s1.post());
        assertEquals(0, s1.post());
        for (final Spawn.Running<int[]> t : threads) {
            final int[] r = t.get();
            assertEquals(0, r[0]);
            assertEquals(0, r[1]);
        }
        assertEquals(0, s1.getValue());
        assertEquals(0, s1.waiterCount());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void postAtTheMaximumIsEOVERFLOWAndLeavesTheValue(final Futex futex) {
        final Sem s = sem(futex, Sem.VALUE_MAX - 1);
        assertEquals(0, s.post());
        assertEquals(Sem.VALUE_MAX, s.getValue());
        assertEquals(Errno.EOVERFLOW, s.post());
        assertEquals(Sem.VALUE_MAX, s.getValue());
        assertEquals(0, s.tryAwait());
        assertEquals(Sem.VALUE_MAX - 1, s.getValue());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aPostWakesASleepingWaiter(final Futex futex) throws Exception {
        final Sem s = sem(futex, 0);
        final Spawn.Running<Integer> w = Spawn.call(s::await);
        // The count comes before the bit: wait for both (a waiter that never sets it fails here).
        Spawn.until("a waiter counted, with bit 31 set", () -> s.waiterCount() == 1 && s.hasWaitersBit());
        assertEquals(0, s.getValue(), "getvalue never reports waiters as a negative value");
        assertFalse(w.isDone());
        assertEquals(0, s.post());
        assertEquals(0, w.get());
        assertEquals(0, s.getValue());
        assertEquals(0, s.waiterCount());
        assertFalse(s.hasWaitersBit(), "the post that saw one waiter drops the bit");
    }

    /** musl's current wake rule: one wake when more than one waiter was seen, keeping the bit. */
    @ParameterizedTest
    @MethodSource(BACKENDS)
    void withTwoSleepersAPostKeepsTheBitAndTheNextDropsIt(final Futex futex) throws Exception {
        final Sem s = sem(futex, 0);
        final Spawn.Running<Integer> a = Spawn.call(s::await);
        final Spawn.Running<Integer> b = Spawn.call(s::await);
        Spawn.until("two waiters asleep", () -> s.waiterCount() == 2);
        assertEquals(0, s.post());
        Spawn.until("one waiter took the permit", () -> a.isDone() || b.isDone());
        Spawn.until("the other sleeps again", () -> s.waiterCount() == 1 && s.getValue() == 0);
        assertTrue(s.hasWaitersBit(), "a post that saw two waiters keeps bit 31");
        assertEquals(0, s.post());
        assertEquals(0, a.get());
        assertEquals(0, b.get());
        assertEquals(0, s.getValue());
        assertFalse(s.hasWaitersBit());
        assertEquals(0, s.waiterCount());
    }

    /**
     * The 2024 fix: a post wakes when the waiter count it read is nonzero even though the bit is
     * clear (a previous post cleared it but has not woken yet).
     */
    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aPostWakesWhenWaitersAreCountedEvenWithoutTheBit(final Futex futex) throws Exception {
        final Sem s = sem(futex, 0);
        final int[] tid = new int[1];
        final Spawn.Running<Integer> w = Spawn.call(() -> {
            tid[0] = org.pthread4j.internal.ThreadIds.current();
            return s.await();
        });
        Spawn.until("waiter asleep in the futex", () -> s.waiterCount() == 1 && s.hasWaitersBit()
            && Sleepers.isAsleep(w.thread(), tid[0], s.block().address(SemLayout.VALUE)));
        // Simulate the delayed post's first half: bit cleared, no wake issued, no permit yet.
        s.block().getAndAnd(SemLayout.VALUE, SemLayout.SEM_VALUE_MAX);
        assertFalse(w.isDone());
        assertEquals(0, s.post());
        assertEquals(0, w.get(), "the waiter must be woken by the count alone");
        assertEquals(0, s.getValue());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void timedwaitTimesOutThenSucceedsWhenPostedBeforeTheDeadline(final Futex futex) throws Exception {
        final Sem s = sem(futex, 0);
        assertEquals(Errno.ETIMEDOUT, s.timedAwait(in(30)));
        assertEquals(Errno.ETIMEDOUT, s.timedAwait(Timespec.CLOCK_MONOTONIC,
            Timespec.after(Timespec.CLOCK_MONOTONIC, 30, TimeUnit.MILLISECONDS), false));
        assertEquals(Errno.ETIMEDOUT, s.timedAwait(new Timespec(0, 0)));
        assertEquals(0, s.waiterCount());
        final Spawn.Running<Integer> w = Spawn.call(() -> s.timedAwait(in(60_000)));
        Spawn.until("timed waiter asleep", () -> s.waiterCount() == 1);
        assertEquals(0, s.post());
        assertEquals(0, w.get());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aBadDeadlineIsEINVALOnlyWhenTheWaitWouldSleep(final Futex futex) {
        final Sem s = sem(futex, 1);
        final Timespec bad = new Timespec(0, 1_000_000_000L);
        assertEquals(0, s.timedAwait(bad));
        assertEquals(Errno.EINVAL, s.timedAwait(bad));
        assertEquals(Errno.EINVAL, s.timedAwait(new Timespec(5, -1)));
        assertEquals(Errno.EINVAL, s.timedAwait(42, in(1000), false));
        assertEquals(0, s.waiterCount());
        assertEquals(0, s.getValue());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void anInterruptibleWaitAnswersEINTR(final Futex futex) throws Exception {
        final Sem s = sem(futex, 0);
        final Spawn.Running<int[]> w = Spawn.call(() -> {
            final int r = s.timedAwait(Timespec.CLOCK_REALTIME, null, true);
            return new int[] {r, Thread.currentThread().isInterrupted() ? 1 : 0};
        });
        Spawn.until("waiter asleep", () -> s.waiterCount() == 1);
        w.thread().interrupt();
        final int[] got = w.get();
        assertEquals(Errno.EINTR, got[0]);
        assertEquals(1, got[1], "the interrupt status is left set");
        assertEquals(0, s.waiterCount());
        assertEquals(0, s.post());
        assertEquals(1, s.getValue(), "the interrupted waiter took nothing");
        // Interrupted on entry: EINTR even with a permit there, and the permit stays.
        final Spawn.Running<Integer> early = Spawn.call(() -> {
            Thread.currentThread().interrupt();
            return s.timedAwait(Timespec.CLOCK_MONOTONIC, null, true);
        });
        assertEquals(Errno.EINTR, early.get());
        assertEquals(1, s.getValue());
        // An uninterruptible wait ignores the interrupt and keeps it.
        final Spawn.Running<int[]> plain = Spawn.call(() -> {
            Thread.currentThread().interrupt();
            final int r = s.await();
            return new int[] {r, Thread.currentThread().isInterrupted() ? 1 : 0};
        });
        final int[] p = plain.get();
        assertEquals(0, p[0]);
        assertEquals(1, p[1]);
        assertEquals(0, s.getValue());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void permitsAreConservedUnderManyPostersAndWaiters(final Futex futex) throws Exception {
        final Sem s = sem(futex, 0);
        final int posters = 3;
        final int waiters = 3;
        final int perPoster = 3_000;
        final int perWaiter = posters * perPoster / waiters;
        final AtomicLong taken = new AtomicLong();
        final List<Spawn.Running<Integer>> all = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            final int kind = i;
            all.add(Spawn.call(() -> {
                for (int k = 0; k < perWaiter; k++) {
                    final int r = switch ((k + kind) % 3) {
                        case 0 -> s.await();
                        case 1 -> s.timedAwait(in(60_000));
                        default -> {
                            final int t = s.tryAwait();
                            yield t == Errno.EAGAIN ? s.timedAwait(Timespec.CLOCK_MONOTONIC, null, true) : t;
                        }
                    };
                    if (r != 0) {
                        return r;
                    }
                    taken.incrementAndGet();
                }
                return 0;
            }));
        }
        for (int i = 0; i < posters; i++) {
            all.add(Spawn.call(() -> {
                for (int k = 0; k < perPoster; k++) {
                    final int r = s.post();
                    if (r != 0) {
                        return r;
                    }
                }
                return 0;
            }));
        }
        for (final Spawn.Running<Integer> r : all) {
            assertEquals(0, r.get());
        }
        assertEquals((long) posters * perPoster, taken.get());
        assertEquals(0, s.getValue());
        assertEquals(Errno.EAGAIN, s.tryAwait());
        assertEquals(0, s.waiterCount());
    }

    @Test
    void attachReadsPrivacyAndRefusesGarbage() {
        final Sem s = new Sem(block(), true, 3);
        final Sem view = Sem.attach(s.block());
        assertTrue(view.isPshared());
        assertEquals(3, view.getValue());
        assertEquals(0, view.tryAwait());
        assertEquals(2, s.getValue());

        final Block b = block();
        b.set(SemLayout.FLAGS, 5);
        assertThrows(IllegalArgumentException.class, () -> Sem.attach(b));
        b.set(SemLayout.FLAGS, SemLayout.PRIVATE);
        b.set(SemLayout.WAITERS, -1);
        assertThrows(IllegalArgumentException.class, () -> Sem.attach(b));
        b.set(SemLayout.WAITERS, 0);
        b.set(20, 0xdead);
        assertFalse(Sem.attach(b).isPshared(), "musl leaves __val[3..7] undefined: not checked");

        final Memory m = Memory.allocate(64);
        memories.add(m);
        assertThrows(IllegalArgumentException.class, () -> new Sem(m.block(0, 16, 4), false, 0));
        final Sem unnamed = new Sem(block(), false, 0);
        assertEquals(Errno.EINVAL, assertThrows(ErrnoException.class, unnamed::close).errno(),
            "an unnamed semaphore has nothing to close");
    }

    /** Two mappings of one file in one JVM meet only through shared futex operations. */
    @Test
    void aProcessSharedSemaphoreWorksAcrossTwoMappings(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("sem");
        Files.write(file, new byte[SemLayout.SIZE]);
        try (Memory a = Memory.map(file, SemLayout.SIZE); Memory b = Memory.map(file, SemLayout.SIZE)) {
            final Sem sa = new Sem(a.block(0, SemLayout.SIZE, 4), true, 0);
            final Sem sb = Sem.attach(b.block(0, SemLayout.SIZE, 4));
            for (int i = 0; i < 20; i++) {
                final Spawn.Running<Integer> w = Spawn.call(sb::await);
                Spawn.until("waiter asleep on the other mapping", () -> sa.waiterCount() == 1);
                assertEquals(0, sa.post());
                assertEquals(0, w.get());
            }
            assertEquals(0, sa.getValue());
        }
    }
}
