package org.pthread4j.ipc;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.ChildJvm;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.*;

class FutexIdleStrategyTest {
    private static final int BATCHES = 30;
    private static final int PER_BATCH = 5;

    @TempDir
    Path dir;

    /** Polls a condition that another thread or process makes true; fails after a generous time. */
    private static void await(final BooleanSupplier cond, final String what) throws InterruptedException {
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    private static void produce(final OneToOneRingBuffer ring, final FutexDoorbell bell, final BooleanSupplier consumerAsleep)
            throws InterruptedException {
        final UnsafeBuffer msg = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
        long v = 0;
        for (int b = 0; b < BATCHES; b++) {
            // Publish only once the consumer is asleep (or about to be): every batch then needs a wake.
            await(consumerAsleep, "the consumer to sleep before batch " + b);
            for (int k = 0; k < PER_BATCH; k++) {
                msg.putLong(0, v++);
                while (!ring.write(1, msg, 0, 8)) {
                    Thread.onSpinWait();
                }
            }
            bell.ring();
        }
    }

    @Test
    void aConsumerInTheSameProcessSleepsAndIsWokenForEveryBatch() throws Exception {
        for (final boolean mapped : new boolean[] {false, true}) {
            final int size = RingConsumerChild.CAPACITY + RingBufferDescriptor.TRAILER_LENGTH;
            try (Memory mem = Memory.allocate(size);
                 Memory bellMem = Memory.allocate(8);
                 SyncFile f = SyncFile.create(dir.resolve("local" + mapped), 2)) {
                final OneToOneRingBuffer ring = new OneToOneRingBuffer(new UnsafeBuffer(mem.block(0, size, 64).address(0), size));
                final FutexDoorbell bell = mapped ? f.doorbell("bell") : new FutexDoorbell(bellMem.block(0, 8, 8));
                final FutexIdleStrategy idle = new FutexIdleStrategy(bell);
                final AtomicLong received = new AtomicLong();
                final AtomicReference<Throwable> error = new AtomicReference<>();
                final Thread consumer = Thread.ofPlatform().start(() -> {
                    try {
                        final long total = (long) BATCHES * PER_BATCH;
                        while (received.get() < total) {
                            final int n = ring.read((t, buf, i, len) -> {
                                assertEquals(received.get(), buf.getLong(i));
                                received.incrementAndGet();
                            });
                            idle.idle(n);
                        }
                        idle.reset();
                    } catch (final Throwable e) {
                        error.set(e);
                    }
                });
                final long[] lastSleeps = {0};
                produce(ring, bell, () -> {
                    final long s = idle.sleeps();
                    if (s > lastSleeps[0] || !consumer.isAlive()) {
                        lastSleeps[0] = s;
                        return true;
                    }
                    return false;
                });
                consumer.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(consumer.isAlive(), "every wake-up arrived (mapped=" + mapped + ")");
                assertNull(error.get());
                assertEquals((long) BATCHES * PER_BATCH, received.get());
                assertTrue(idle.sleeps() >= BATCHES, "slept before every batch: " + idle.sleeps());
                assertEquals(0, bell.sleepers(), "reset unregistered the consumer");
            }
        }
    }

    @Test
    void aRingWithoutSleepersWakesNobody() {
        try (Memory mem = Memory.allocate(8)) {
            final FutexDoorbell bell = new FutexDoorbell(mem.block(0, 8, 8));
            assertEquals(0, bell.ring());
            assertEquals(0, bell.seq(), "no sleeper, no bump");
            final FutexIdleStrategy idle = new FutexIdleStrategy(bell, 2, 1);
            idle.idle(0);
            idle.idle(0);
            idle.idle(0);
            assertEquals(0, bell.sleepers());
            idle.idle(0);
            assertEquals(1, bell.sleepers(), "spins, yields, then registers");
            assertEquals(0, bell.ring(), "registered but not asleep yet");
            assertEquals(1, bell.seq());
            idle.idle(0); // the sequence moved since registration: returns without sleeping
            assertEquals(0, idle.sleeps());
            idle.idle(3);
            assertEquals(0, bell.sleepers());
        }
    }

    /** Drives an adaptive strategy on a clock the test moves: how many idle calls until it registers. */
    private static int callsUntilRegistered(final FutexIdleStrategy idle, final FutexDoorbell bell, final long[] now,
                                            final long stepNanos) {
        int calls = 0;
        while (bell.sleepers() == 0) {
            idle.idle(0);
            calls++;
            now[0] += stepNanos;
            assertTrue(calls < 1_000_000, "never registered");
        }
        return calls;
    }

    @Test
    void anAdaptiveStrategySpinsTwiceTheLastShortGapAndHalvesItsSpinAfterALongOne() {
        try (Memory mem = Memory.allocate(8)) {
            final FutexDoorbell bell = new FutexDoorbell(mem.block(0, 8, 8));
            final long[] now = {1_000_000_000L};
            final FutexIdleStrategy idle = new FutexIdleStrategy(bell, Duration.ofMillis(4), () -> now[0]);
            assertEquals(FutexIdleStrategy.MIN_SPIN_NANOS, idle.spinNanos(), "a new strategy spins the least");
            // 1 us per call: 20 calls of spin, then the 10 yields, then the call that registers.
            assertEquals(20 + FutexIdleStrategy.DEFAULT_YIELDS + 1, callsUntilRegistered(idle, bell, now, 1_000));

            // Work after a gap of 1 ms (at most half the 4 ms maximum): the next spin lasts 2 ms.
            now[0] += 1_000_000;
            idle.idle(1);
            assertEquals(0, bell.sleepers(), "work leaves the sleepers");
            final long twiceTheGap = 2 * (1_000_000 + 31_000);
            assertEquals(twiceTheGap, idle.spinNanos());

            // A shorter gap does not shorten the spin.
            idle.idle(0);
            now[0] += 10_000;
            idle.idle(1);
            assertEquals(twiceTheGap, idle.spinNanos());
            assertEquals(2 * (1_000 + 31) + FutexIdleStrategy.DEFAULT_YIELDS + 1, callsUntilRegistered(idle, bell, now, 1_000),
                "spun through a gap like the last long one before yielding");

            // Work after gaps of 3 ms (over half the maximum): each halves the spin, down to the shortest.
            now[0] += 3_000_000;
            idle.idle(1);
            long expected = twiceTheGap / 2;
            assertEquals(expected, idle.spinNanos());
            for (int i = 0; i < 12; i++) {
                idle.idle(0);
                now[0] += 3_000_000;
                idle.idle(1);
                expected = Math.max(FutexIdleStrategy.MIN_SPIN_NANOS, expected / 2);
                assertEquals(expected, idle.spinNanos(), "after long gap " + i);
            }
            assertEquals(20 + FutexIdleStrategy.DEFAULT_YIELDS + 1, callsUntilRegistered(idle, bell, now, 1_000),
                "sparse traffic sleeps after the shortest spin");
            idle.reset();
            assertEquals(0, bell.sleepers());
        }
    }

    @Test
    void strategiesRefuseSpinBoundsTheyCannotKeep() {
        try (Memory mem = Memory.allocate(8)) {
            final FutexDoorbell bell = new FutexDoorbell(mem.block(0, 8, 8));
            assertThrows(IllegalArgumentException.class, () -> new FutexIdleStrategy(bell, Duration.ofNanos(19_999)));
            assertThrows(IllegalArgumentException.class, () -> new FutexIdleStrategy(bell, Duration.ofMillis(1_001)));
            assertThrows(IllegalArgumentException.class, () -> new FutexIdleStrategy(bell, Duration.ofMillis(-1)));
            assertThrows(NullPointerException.class, () -> new FutexIdleStrategy(bell, (Duration) null));
            assertThrows(IllegalArgumentException.class, () -> new FutexIdleStrategy(bell, -1, 0));
            assertEquals(-1, new FutexIdleStrategy(bell, 5, 0).spinNanos(), "a fixed count does not adapt");
            assertEquals(FutexIdleStrategy.MIN_SPIN_NANOS, new FutexIdleStrategy(bell).spinNanos());
        }
    }

    @Test
    void aSleepingConsumerAnswersInterrupt() throws Exception {
        try (Memory mem = Memory.allocate(8)) {
            final FutexDoorbell bell = new FutexDoorbell(mem.block(0, 8, 8));
            final FutexIdleStrategy idle = new FutexIdleStrategy(bell, 0, 0);
            final Thread t = Thread.ofPlatform().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    idle.idle(0);
                }
            });
            await(() -> idle.sleeps() > 0, "the consumer to sleep");
            t.interrupt();
            t.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(t.isAlive());
        }
    }

    @Test
    void aConsumerInAnotherJvmSleepsOnTheDoorbellAndGetsEveryMessage() throws Exception {
        final Path p = dir.resolve("ipc-ring");
        final long total = (long) BATCHES * PER_BATCH;
        try (SyncFile f = SyncFile.create(p, 4, 8192 + RingBufferDescriptor.TRAILER_LENGTH, SyncFile.DEFAULT_MODE);
             ChildJvm c = ChildJvm.start(RingConsumerChild.class, p.toString(), Long.toString(total))) {
            final OneToOneRingBuffer ring = RingConsumerChild.ring(f);
            final FutexDoorbell bell = f.doorbell("bell");
            c.expect("ready", Duration.ofSeconds(60));
            produce(ring, bell, () -> bell.sleepers() == 1 || !c.process().isAlive());
            final String line = c.expectLine(Duration.ofSeconds(60));
            assertTrue(line.startsWith("got " + total + " sleeps "), line + c.transcript());
            assertTrue(Long.parseLong(line.substring(line.lastIndexOf(' ') + 1)) > 0, line);
            assertEquals(0, c.waitFor(Duration.ofSeconds(60)));
        }
    }
}
