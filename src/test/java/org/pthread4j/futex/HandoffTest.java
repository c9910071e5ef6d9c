package org.pthread4j.futex;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Seed 003's handoff (each thread its own word: set own word 0, set the other's 1, wake it,
 * sleep while own word is 0) repeated 25,000 times (50,000 handoffs): a waker that changes a word and then
 * wakes must never miss a waiter that saw the old value.
 */
class HandoffTest {
    private static final int ROUNDS = 25_000;

    static void op(final Futex f, final MemorySegment seg, final long self, final long other, final boolean swap) {
        Block.INT.setVolatile(seg, self, 0);
        Block.INT.setVolatile(seg, other, 1);
        if (swap) {
            final int r = f.swap(seg, self, 0, seg, other, true);
            assert r == 0 || r == Errno.EAGAIN : Errno.name(r);
        } else {
            assertEquals(true, f.wake(seg, other, 1, true) >= 0);
        }
        while ((int) Block.INT.getVolatile(seg, self) == 0) {
            final int r = f.wait(seg, self, 0, true);
            if (r != 0 && r != Errno.EAGAIN) {
                throw new AssertionError("wait returned " + Errno.name(r));
            }
        }
    }

    private static void pingPong(final Futex f, final boolean swap) throws Exception {
        pingPong(f, swap, false);
    }

    private static void pingPong(final Futex f, final boolean swap, final boolean virtual) throws Exception {
        try (Memory m = Memory.allocate(128)) {
            final MemorySegment seg = m.segment();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread partner = (virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon()).start(() -> {
                try {
                    while ((int) Block.INT.getVolatile(seg, 64L) == 0) {
                        f.wait(seg, 64L, 0, true);
                    }
                    for (int i = 1; i < ROUNDS; i++) {
                        op(f, seg, 64L, 0L, swap);
                    }
                    Block.INT.setVolatile(seg, 0L, 1);
                    f.wake(seg, 0L, 1, true);
                } catch (final Throwable t) {
                    failure.set(t);
                }
            });
            final Thread main = (virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon()).start(() -> {
                try {
                    for (int i = 0; i < ROUNDS; i++) {
                        op(f, seg, 0L, 64L, swap);
                    }
                } catch (final Throwable t) {
                    failure.set(t);
                }
            });
            main.join(TimeUnit.SECONDS.toMillis(300));
            partner.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(main.isAlive() || partner.isAlive(), "a wakeup was lost: both threads asleep on " + f.name());
            assertNull(failure.get());
        }
    }

    /**
     * A waker that never sleeps: it changes the word and wakes the moment the waiter has
     * acknowledged the previous change, so its wake lands while the waiter is on its way into
     * the next wait, the window where a waiter that read the old word must already be visible
     * to the waker.
     */
    @ParameterizedTest
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void wakeRacingAWaiterOnItsWayToSleepIsNotLost(final Futex f) throws Exception {
        final int rounds = 100_000;
        try (Memory m = Memory.allocate(128)) {
            final MemorySegment seg = m.segment();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final java.util.concurrent.atomic.AtomicInteger ack = new java.util.concurrent.atomic.AtomicInteger();
            final Thread waiter = Thread.ofPlatform().daemon().start(() -> {
                try {
                    int seen = 0;
                    while (seen < rounds) {
                        while ((int) Block.INT.getVolatile(seg, 0L) == seen) {
                            final int r = f.wait(seg, 0L, seen, true);
                            if (r != 0 && r != Errno.EAGAIN) {
                                throw new AssertionError("wait returned " + Errno.name(r));
                            }
                        }
                        seen = (int) Block.INT.getVolatile(seg, 0L);
                        ack.set(seen);
                    }
                } catch (final Throwable t) {
                    failure.set(t);
                }
            });
            final Thread waker = Thread.ofPlatform().daemon().start(() -> {
                for (int i = 1; i <= rounds && failure.get() == null; i++) {
                    Block.INT.setVolatile(seg, 0L, i);
                    f.wake(seg, 0L, 1, true);
                    // generous: a preempted waiter on a busy machine still answers within seconds
                    final long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (ack.get() != i && waiter.isAlive()) {
                        if (System.nanoTime() - giveUp > 0) {
                            return;
                        }
                        Thread.onSpinWait();
                    }
                }
            });
            waker.join(TimeUnit.SECONDS.toMillis(300));
            waiter.join(TimeUnit.SECONDS.toMillis(5));
            assertFalse(waiter.isAlive(), "a wakeup was lost: the waiter sleeps on " + f.name()
                + " after round " + ack.get() + " with the word at " + Block.INT.getVolatile(seg, 0L));
            assertNull(failure.get());
            assertEquals(rounds, ack.get());
        }
    }

    @ParameterizedTest
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void wakeThenWaitHandoffsLoseNoWakeup(final Futex f) throws Exception {
        pingPong(f, false);
    }

    @ParameterizedTest
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void swapHandoffsLoseNoWakeup(final Futex f) throws Exception {
        pingPong(f, true);
    }

    /** The same handoffs between two virtual threads, which park and unmount on every backend. */
    @ParameterizedTest
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void swapHandoffsBetweenVirtualThreadsLoseNoWakeup(final Futex f) throws Exception {
        pingPong(f, true, true);
    }
}
