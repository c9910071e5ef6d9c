package org.pthread4j.futex;

import org.junit.jupiter.api.Test;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Sleepers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What only the parking backend does. */
class ParkingFutexTest {
    private static final Duration LIVENESS = Duration.ofSeconds(60);

    @Test
    void priorityOrderedWakeupTakesTheHighestPriorityFirstAndFifoWithinOne() throws Exception {
        final ParkingFutex futex = ParkingFutex.create(16, true);
        assertTrue(futex.isPriorityOrdered());
        try (Memory m = Memory.allocate(64)) {
            final ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
            final int[] priorities = {3, 7, 5, 7, 3};
            final List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < priorities.length; i++) {
                final String name = "p" + priorities[i] + "#" + i;
                final Thread t = Thread.ofPlatform().priority(priorities[i]).name(name).unstarted(() -> {
                    futex.wait(m.segment(), 0, 0, true);
                    order.add(Thread.currentThread().getName());
                });
                t.start();
                Sleepers.awaitAsleep(t, 0, 0, LIVENESS); // queue them one by one: FIFO order is the start order
                threads.add(t);
            }
            for (int i = 0; i < priorities.length; i++) {
                final int before = order.size();
                assertEquals(1, futex.wake(m.segment(), 0, 1, true));
                final long end = System.nanoTime() + LIVENESS.toNanos();
                while (order.size() == before) {
                    assertTrue(System.nanoTime() < end, "woken thread did not run");
                    Thread.onSpinWait();
                }
            }
            assertEquals(List.of("p7#1", "p7#3", "p5#2", "p3#0", "p3#4"), List.copyOf(order));
            for (final Thread t : threads) {
                t.join(LIVENESS);
            }
        }
    }

    @Test
    void fifoIsTheDefaultWakeupOrder() throws Exception {
        final ParkingFutex futex = Futexes.parking();
        assertFalse(futex.isPriorityOrdered());
        try (Memory m = Memory.allocate(64)) {
            final ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
            for (int i = 0; i < 4; i++) {
                final int id = i;
                final Thread t = Thread.ofPlatform().priority(id + 3).start(() -> {
                    futex.wait(m.segment(), 0, 0, true);
                    order.add(id);
                });
                Sleepers.awaitAsleep(t, 0, 0, LIVENESS);
            }
            for (int i = 0; i < 4; i++) {
                final int before = order.size();
                assertEquals(1, futex.wake(m.segment(), 0, 1, true));
                while (order.size() == before) {
                    Thread.onSpinWait();
                }
            }
            assertEquals(List.of(0, 1, 2, 3), List.copyOf(order));
        }
    }

    @Test
    void theBucketCountIsSettableAndValidated() throws Exception {
        for (final int buckets : new int[] {1, 16, 65536}) {
            final ParkingFutex futex = ParkingFutex.create(buckets, false);
            assertEquals(buckets, futex.bucketCount());
            try (Memory m = Memory.allocate(4096)) {
                // many words in few buckets: each wake still reaches only its own word's waiter
                final CountDownLatch done = new CountDownLatch(8);
                final List<Thread> threads = new ArrayList<>();
                for (int w = 0; w < 8; w++) {
                    final long off = w * 64L;
                    final Thread t = Thread.ofPlatform().start(() -> {
                        futex.wait(m.segment(), off, 0, true);
                        done.countDown();
                    });
                    Sleepers.awaitAsleep(t, 0, 0, LIVENESS);
                    threads.add(t);
                }
                for (int w = 0; w < 8; w++) {
                    assertEquals(1, futex.wake(m.segment(), w * 64L, 5, true), "word " + w);
                }
                assertTrue(done.await(60, TimeUnit.SECONDS));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> ParkingFutex.create(12, false));
        assertThrows(IllegalArgumentException.class, () -> ParkingFutex.create(0, false));
    }

    /**
     * Set-bit-and-wait: turned away only by a word that is not busy; on a busy word it sets the
     * bit into whatever value the word holds and sleeps; with {@code join} it sleeps behind a
     * thread already asleep on the word even while the word is free, and leaves the word alone.
     */
    @Test
    void setBitWaitSleepsOnAnyBusyValueAndJoinsQueuedSleepers() throws Exception {
        final ParkingFutex futex = ParkingFutex.create(16, false);
        final int bit = 0x80000000;
        try (Memory m = Memory.allocate(64)) {
            final java.lang.foreign.MemorySegment s = m.segment();
            final java.util.function.IntUnaryOperator attempt = join ->
                futex.setBitWait(s, 0, bit, 2, join != 0, true, org.pthread4j.futex.Timespec.CLOCK_MONOTONIC,
                    org.pthread4j.futex.Timespec.ofNanos(0), false);
            m.block(0, 4, 4).set(0, 1);
            assertEquals(Errno.EAGAIN, attempt.applyAsInt(0), "1 is below the busy threshold 2");
            assertEquals(Errno.EAGAIN, attempt.applyAsInt(1), "nobody to join: the word decides");
            assertEquals(1, m.block(0, 4, 4).get(0), "a refused sleep leaves the word alone");
            m.block(0, 4, 4).set(0, 5);
            assertEquals(Errno.ETIMEDOUT, attempt.applyAsInt(0), "busy: admitted, then the past deadline");
            assertEquals(5 | bit, m.block(0, 4, 4).get(0), "the bit was set into the busy value");

            // A thread asleep on the word (a plain wait on 0), then the word free: a joiner sleeps
            // behind it, a non-joiner is turned away.
            m.block(0, 4, 4).set(0, 0);
            final CountDownLatch done = new CountDownLatch(2);
            final Thread first = Thread.ofPlatform().start(() -> {
                futex.wait(s, 0, 0, true);
                done.countDown();
            });
            Sleepers.awaitAsleep(first, 0, 0, LIVENESS);
            assertEquals(Errno.EAGAIN, attempt.applyAsInt(0), "free and not joining");
            final Thread joiner = Thread.ofPlatform().start(() -> {
                futex.setBitWait(s, 0, bit, 1, true, true, org.pthread4j.futex.Timespec.CLOCK_MONOTONIC, null, false);
                done.countDown();
            });
            final long end = System.nanoTime() + LIVENESS.toNanos();
            while (joiner.getState() != Thread.State.WAITING) {
                assertTrue(System.nanoTime() < end, "the joiner did not sleep");
                Thread.onSpinWait();
            }
            assertEquals(0, m.block(0, 4, 4).get(0), "joining sets no bit");
            assertEquals(2, futex.wake(s, 0, -1, true), "both sleep on the word");
            assertTrue(done.await(LIVENESS.toSeconds(), TimeUnit.SECONDS));
        }
    }

    @Test
    void sharedWordsAreRefused() {
        try (Memory m = Memory.allocate(64)) {
            assertEquals(Errno.EINVAL, Futexes.parking().wait(m.segment(), 0, 0, false));
            assertEquals(-Errno.EINVAL, Futexes.parking().wake(m.segment(), 0, 1, false));
            assertFalse(Futexes.parking().supportsShared());
        }
    }

    @Test
    void virtualThreadsWaitWithoutHoldingACarrier() throws Exception {
        final ParkingFutex futex = Futexes.parking();
        try (Memory m = Memory.allocate(64)) {
            // far more sleeping virtual threads than carriers: only possible if they unmount
            final int n = 1000;
            final CountDownLatch done = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                Thread.ofVirtual().start(() -> {
                    while (m.word(0).get(0) == 0) {
                        futex.wait(m.segment(), 0, 0, true);
                    }
                    done.countDown();
                });
            }
            final Thread probe = Thread.ofVirtual().start(() -> { });
            probe.join(LIVENESS);
            assertFalse(probe.isAlive(), "a virtual thread could not run while 1000 others sleep");
            m.word(0).set(0, 1);
            futex.wake(m.segment(), 0, -1, true);
            assertTrue(done.await(60, TimeUnit.SECONDS));
        }
    }
}
