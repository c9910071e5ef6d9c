package org.pthread4j.futex;

import org.pthread4j.internal.ThreadIds;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Sleepers;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The futex contract, on every backend that serves private words. */
class FutexTest {
    private static final Duration LIVENESS = Duration.ofSeconds(60);

    private Memory memory;
    private MemorySegment seg;

    @BeforeEach
    void setUp() {
        memory = Memory.allocate(4096);
        seg = memory.segment();
    }

    @AfterEach
    void tearDown() {
        memory.close();
    }

    /** A platform thread that makes one futex wait and records what it returned. */
    static final class Sleeper {
        final Thread thread;
        volatile int tid;
        final CompletableFuture<Integer> result = new CompletableFuture<>();

        Sleeper(final java.util.function.IntSupplier wait) {
            thread = Thread.ofPlatform().daemon().start(() -> {
                tid = ThreadIds.current();
                result.complete(wait.getAsInt());
            });
        }

        Sleeper awaitAsleep(final long address) {
            while (tid == 0) {
                Thread.onSpinWait();
            }
            Sleepers.awaitAsleep(thread, tid, address, LIVENESS);
            return this;
        }

        int get() throws Exception {
            return result.get(LIVENESS.toSeconds(), TimeUnit.SECONDS);
        }
    }

    static List<Futex> backends() {
        return Futexes.allPrivate();
    }

    @ParameterizedTest
    @MethodSource("backends")
    void waitReturnsEagainAtOnceWhenTheWordDiffers(final Futex futex) {
        Block.INT.setVolatile(seg, 0L, 7);
        assertEquals(Errno.EAGAIN, futex.wait(seg, 0, 6, true));
        assertEquals(Errno.EAGAIN, futex.timedWait(seg, 0, 6, true, Timespec.CLOCK_MONOTONIC,
            Timespec.after(Timespec.CLOCK_MONOTONIC, 10, TimeUnit.SECONDS), true));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void timedWaitReturnsEtimedoutNoEarlierThanItsDeadline(final Futex futex) {
        for (final int clock : new int[] {Timespec.CLOCK_MONOTONIC, Timespec.CLOCK_REALTIME}) {
            final Timespec deadline = Timespec.after(clock, 30, TimeUnit.MILLISECONDS);
            final int r = futex.timedWait(seg, 0, 0, true, clock, deadline, false);
            assertEquals(Errno.ETIMEDOUT, r, "clock " + clock);
            assertTrue(Timespec.nowNanos(clock) >= deadline.toNanos(), "returned before the deadline, clock " + clock);
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aPassedDeadlineTimesOutWithoutSleeping(final Futex futex) {
        final Timespec past = Timespec.after(Timespec.CLOCK_REALTIME, -1, TimeUnit.SECONDS);
        assertEquals(Errno.ETIMEDOUT, futex.timedWait(seg, 0, 0, true, Timespec.CLOCK_REALTIME, past, false));
        final Timespec longAgo = new Timespec(Long.MIN_VALUE / 2, 0); // nanos saturate at Long.MIN_VALUE
        assertEquals(Errno.ETIMEDOUT, futex.timedWait(seg, 0, 0, true, Timespec.CLOCK_MONOTONIC, longAgo, true));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void badDeadlinesAndClocksAreEinval(final Futex futex) {
        assertEquals(Errno.EINVAL, futex.timedWait(seg, 0, 0, true, Timespec.CLOCK_REALTIME, new Timespec(1, -1), false));
        assertEquals(Errno.EINVAL, futex.timedWait(seg, 0, 0, true, Timespec.CLOCK_REALTIME,
            new Timespec(1, 1_000_000_000L), false));
        assertEquals(Errno.EINVAL, futex.timedWait(seg, 0, 0, true, 7, null, false));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void badOffsetsAndClosedMemoryAreRefusedWithoutTouchingMemory(final Futex futex) {
        assertThrows(IllegalArgumentException.class, () -> futex.wait(seg, 2, 0, true));
        assertThrows(IndexOutOfBoundsException.class, () -> futex.wait(seg, 4096, 0, true));
        assertThrows(IndexOutOfBoundsException.class, () -> futex.wait(seg, -4, 0, true));
        final Memory other = Memory.allocate(64);
        other.close();
        assertThrows(IllegalStateException.class, () -> futex.wait(other.segment(), 0, 0, true));
        // a wake on closed memory is harmless (an unlock followed by a destroy)
        assertEquals(0, futex.wake(other.segment(), 0, 1, true));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void wakeWakesMinOfNAndTheWaitersAndReturnsTheCount(final Futex futex) throws Exception {
        final List<Sleeper> sleepers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sleepers.add(new Sleeper(() -> futex.wait(seg, 0, 0, true)).awaitAsleep(seg.address()));
        }
        assertEquals(0, futex.wake(seg, 0, 0, true));
        assertEquals(0, futex.wake(seg, 4, 5, true), "a wake of another word wakes nobody");
        assertEquals(2, futex.wake(seg, 0, 2, true));
        assertEquals(1, futex.wake(seg, 0, 5, true));
        assertEquals(0, futex.wake(seg, 0, 5, true));
        for (final Sleeper s : sleepers) {
            assertEquals(0, s.get());
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void requeueMovesWaitersWithoutWakingThem(final Futex futex) throws Exception {
        final List<Sleeper> sleepers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sleepers.add(new Sleeper(() -> futex.wait(seg, 0, 0, true)).awaitAsleep(seg.address()));
        }
        assertEquals(3, futex.requeue(seg, 0, 0, 3, seg, 64, true));
        for (final Sleeper s : sleepers) {
            Sleepers.awaitAsleep(s.thread, s.tid, 0, LIVENESS); // /proc still shows the original address
            assertFalse(s.result.isDone(), "a requeued waiter was woken");
        }
        assertEquals(0, futex.wake(seg, 0, -1, true), "nobody is left on the first word");
        assertEquals(1, futex.requeue(seg, 64, 1, 0, seg, 128, true), "nWake=1, nRequeue=0 wakes one");
        assertEquals(2, futex.wake(seg, 64, -1, true));
        for (final Sleeper s : sleepers) {
            assertEquals(0, s.get());
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void cmpRequeueReturnsEagainWhenTheWordChanged(final Futex futex) throws Exception {
        final Sleeper s = new Sleeper(() -> futex.wait(seg, 0, 0, true)).awaitAsleep(seg.address());
        Block.INT.setVolatile(seg, 0L, 5);
        assertEquals(-Errno.EAGAIN, futex.cmpRequeue(seg, 0, 0, 1, seg, 64, 0, true));
        assertEquals(1, futex.cmpRequeue(seg, 0, 0, 1, seg, 64, 5, true));
        assertEquals(1, futex.wake(seg, 64, 1, true));
        assertEquals(0, s.get());
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aHundredThousandHandoffsLoseNoWakeup(final Futex futex) throws Exception {
        final int rounds = 100_000;
        // word 0 holds whose turn it is; each side waits for its turn, passes it, wakes the other
        final Thread[] players = new Thread[2];
        final AtomicInteger failures = new AtomicInteger();
        for (int p = 0; p < 2; p++) {
            final int me = p;
            players[p] = Thread.ofPlatform().daemon().start(() -> {
                for (int i = 0; i < rounds; i++) {
                    int turn;
                    while ((turn = (int) Block.INT.getVolatile(seg, 0L)) != me) {
                        final int r = futex.wait(seg, 0, turn, true);
                        if (r != 0 && r != Errno.EAGAIN) {
                            failures.incrementAndGet();
                        }
                    }
                    Block.INT.setVolatile(seg, 0L, 1 - me);
                    futex.wake(seg, 0, 1, true);
                }
            });
        }
        for (final Thread t : players) {
            t.join(Duration.ofSeconds(300));
            assertFalse(t.isAlive(), "a handoff was lost: " + t + " is stuck");
        }
        assertEquals(0, failures.get());
    }

    @ParameterizedTest
    @MethodSource("backends")
    void anInterruptedWaiterReturnsEintrPromptlyWithItsInterruptStatusKept(final Futex futex) throws Exception {
        long best = Long.MAX_VALUE;
        for (int trial = 0; trial < 5; trial++) {
            final AtomicInteger status = new AtomicInteger(-1);
            final Sleeper s = new Sleeper(() -> {
                final int r = futex.timedWait(seg, 0, 0, true, Timespec.CLOCK_MONOTONIC, null, true);
                status.set(Thread.currentThread().isInterrupted() ? 1 : 0);
                return r;
            }).awaitAsleep(seg.address());
            final long t0 = System.nanoTime();
            s.thread.interrupt();
            assertEquals(Errno.EINTR, s.get());
            best = Math.min(best, System.nanoTime() - t0);
            assertEquals(1, status.get(), "interrupt status must be kept");
        }
        // the design bound is 20 ms (the kernel backend's slice); the best of five trials must meet
        // 50 ms even on a loaded machine
        assertTrue(best < TimeUnit.MILLISECONDS.toNanos(50), "best interrupt latency " + best + " ns");
    }

    @ParameterizedTest
    @MethodSource("backends")
    void anUninterruptibleWaitIgnoresInterruptsButKeepsTheStatus(final Futex futex) throws Exception {
        final AtomicInteger status = new AtomicInteger(-1);
        final Sleeper s = new Sleeper(() -> {
            final int r = futex.wait(seg, 0, 0, true);
            status.set(Thread.currentThread().isInterrupted() ? 1 : 0);
            return r;
        }).awaitAsleep(seg.address());
        s.thread.interrupt();
        Sleepers.awaitAsleep(s.thread, s.tid, seg.address(), LIVENESS);
        assertFalse(s.result.isDone(), "an uninterruptible wait returned on interrupt");
        Block.INT.setVolatile(seg, 0L, 1);
        assertEquals(1, futex.wake(seg, 0, 1, true));
        assertEquals(0, s.get());
        assertEquals(1, status.get());
    }

    @ParameterizedTest
    @MethodSource("backends")
    void setWaitSetsTheWordAndSleepsAndRefusesOtherValues(final Futex futex) throws Exception {
        Block.INT.setVolatile(seg, 0L, 5);
        assertEquals(Errno.EAGAIN, futex.setWait(seg, 0, 1, 2, true, Timespec.CLOCK_MONOTONIC, null, false));
        Block.INT.setVolatile(seg, 0L, 1);
        final Sleeper s = new Sleeper(() -> futex.setWait(seg, 0, 1, 2, true, Timespec.CLOCK_MONOTONIC, null, false))
            .awaitAsleep(seg.address());
        assertEquals(2, (int) Block.INT.getVolatile(seg, 0L));
        final Sleeper s2 = new Sleeper(() -> futex.setWait(seg, 0, 1, 2, true, Timespec.CLOCK_MONOTONIC, null, false))
            .awaitAsleep(seg.address());
        assertEquals(2, futex.wake(seg, 0, -1, true));
        assertEquals(0, s.get());
        assertEquals(0, s2.get());
    }

    @ParameterizedTest
    @MethodSource("backends")
    void swapWakesThePartnerAndSleeps(final Futex futex) throws Exception {
        final Sleeper partner = new Sleeper(() -> futex.wait(seg, 64, 0, true)).awaitAsleep(seg.address() + 64);
        final Sleeper swapper = new Sleeper(() -> futex.swap(seg, 0, 0, seg, 64, true));
        assertEquals(0, partner.get());
        swapper.awaitAsleep(seg.address());
        assertEquals(1, futex.wake(seg, 0, 1, true));
        assertEquals(0, swapper.get());
    }
}
