package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Sleepers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Sem#tryAwait(int)}, {@link Sem#timedAwait(int, int, Timespec, boolean)} and {@link Sem#post(int)}. */
class SemPermitCountTest {
    private static final Duration LIVENESS = Duration.ofSeconds(60);

    private static Timespec in(final long millis) {
        return Timespec.after(Timespec.CLOCK_MONOTONIC, millis, TimeUnit.MILLISECONDS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void countsAreTakenAllOrNothingAndPostedInOneStep(final Futex f) {
        try (Memory m = Memory.allocate(SemLayout.SIZE)) {
            final Sem s = new Sem(m.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT), false, 3, f);
            assertEquals(Errno.EINVAL, s.tryAwait(0));
            assertEquals(Errno.EINVAL, s.post(0));
            assertEquals(Errno.EINVAL, s.timedAwait(-1, Timespec.CLOCK_MONOTONIC, null, false));
            assertEquals(Errno.EAGAIN, s.tryAwait(4));
            assertEquals(3, s.getValue());
            assertEquals(0, s.tryAwait(2));
            assertEquals(1, s.getValue());
            assertEquals(Errno.ETIMEDOUT, s.timedAwait(2, Timespec.CLOCK_MONOTONIC, in(10), false));
            assertEquals(1, s.getValue(), "a timed-out wait takes nothing");
            assertEquals(0, s.post(5));
            assertEquals(6, s.getValue());
            assertEquals(0, s.timedAwait(6, Timespec.CLOCK_MONOTONIC, in(10), false));
            assertEquals(0, s.getValue());
            assertEquals(0, s.post(Sem.VALUE_MAX));
            assertEquals(Errno.EOVERFLOW, s.post(1));
            assertEquals(Errno.EOVERFLOW, s.post(2));
            assertEquals(Sem.VALUE_MAX, s.getValue());
            assertEquals(0, s.tryAwait(Sem.VALUE_MAX));
            assertEquals(0, s.getValue());
            assertFalse(s.hasWaitersBit());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aCountWaiterSleepsOnTheValueItSawAndWakesForEnough(final Futex f) throws Exception {
        try (Memory m = Memory.allocate(SemLayout.SIZE)) {
            final Block b = m.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
            final Sem s = new Sem(b, false, 1, f);
            final AtomicInteger tid = new AtomicInteger();
            final AtomicInteger result = new AtomicInteger(-1);
            final Thread t = Thread.ofPlatform().start(() -> {
                tid.set(ThreadIds.current());
                result.set(s.timedAwait(3, Timespec.CLOCK_MONOTONIC, null, false));
            });
            while (s.waiterCount() == 0 || tid.get() == 0) {
                Thread.onSpinWait();
            }
            Sleepers.awaitAsleep(t, tid.get(), b.address(SemLayout.VALUE), LIVENESS);
            assertTrue(s.hasWaitersBit(), "the waiter set bit 31 on the value 1 it saw");
            assertEquals(1, s.getValue());
            assertEquals(0, s.post());
            assertEquals(0, s.post(2));
            assertTrue(t.join(LIVENESS));
            assertEquals(0, result.get());
            assertEquals(1, s.getValue());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aCountPostWakesAsManySleepersAsItHasPermitsFor(final Futex f) throws Exception {
        try (Memory m = Memory.allocate(SemLayout.SIZE)) {
            final Block b = m.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
            final Sem s = new Sem(b, false, 0, f);
            final List<Thread> ts = new ArrayList<>();
            final AtomicInteger done = new AtomicInteger();
            for (int i = 0; i < 3; i++) {
                ts.add(Thread.ofPlatform().start(() -> {
                    if (s.await() == 0) {
                        done.incrementAndGet();
                    }
                }));
            }
            while (s.waiterCount() < 3) {
                Thread.onSpinWait();
            }
            assertEquals(0, s.post(3));
            for (final Thread t : ts) {
                assertTrue(t.join(LIVENESS));
            }
            assertEquals(3, done.get());
            assertEquals(0, s.getValue());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void anInterruptibleCountWaitAnswersEINTR(final Futex f) throws Exception {
        try (Memory m = Memory.allocate(SemLayout.SIZE)) {
            final Block b = m.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
            final Sem s = new Sem(b, false, 1, f);
            Thread.currentThread().interrupt();
            assertEquals(Errno.EINTR, s.timedAwait(2, Timespec.CLOCK_MONOTONIC, null, true));
            assertTrue(Thread.interrupted(), "the status is left set");
            final AtomicInteger tid = new AtomicInteger();
            final AtomicInteger result = new AtomicInteger(-1);
            final Thread t = Thread.ofPlatform().start(() -> {
                tid.set(ThreadIds.current());
                result.set(s.timedAwait(2, Timespec.CLOCK_MONOTONIC, null, true));
            });
            while (s.waiterCount() == 0 || tid.get() == 0) {
                Thread.onSpinWait();
            }
            Sleepers.awaitAsleep(t, tid.get(), b.address(SemLayout.VALUE), LIVENESS);
            t.interrupt();
            assertTrue(t.join(LIVENESS));
            assertEquals(Errno.EINTR, result.get());
            assertEquals(1, s.getValue());
            assertEquals(0, s.waiterCount());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void permitsAreConservedUnderMixedCounts(final Futex f) throws Exception {
        try (Memory m = Memory.allocate(SemLayout.SIZE)) {
            final Sem s = new Sem(m.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT), false, 5, f);
            final AtomicInteger inUse = new AtomicInteger();
            final AtomicInteger errors = new AtomicInteger();
            final List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                final int n = i % 3 + 1;
                ts.add(Thread.ofPlatform().start(() -> {
                    for (int r = 0; r < 3_000; r++) {
                        if (s.timedAwait(n, Timespec.CLOCK_MONOTONIC, in(LIVENESS.toMillis()), false) != 0) {
                            errors.incrementAndGet();
                            return;
                        }
                        if (inUse.addAndGet(n) > 5) {
                            errors.incrementAndGet();
                        }
                        inUse.addAndGet(-n);
                        if (s.post(n) != 0) {
                            errors.incrementAndGet();
                        }
                    }
                }));
            }
            for (final Thread t : ts) {
                assertTrue(t.join(LIVENESS.multipliedBy(2)));
            }
            assertEquals(0, errors.get());
            assertEquals(5, s.getValue());
        }
    }
}
