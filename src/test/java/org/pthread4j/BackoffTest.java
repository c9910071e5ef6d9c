package org.pthread4j;

import org.junit.jupiter.api.Test;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackoffTest {
    private static final long LIVENESS_MILLIS = MutexTestSupport.LIVENESS.toMillis();

    @Test
    void theStepDoublesUpToItsCap() {
        assertEquals(64, Backoff.MAX_STEP, "default cap");
        assertEquals(2, Backoff.pause(1));
        assertEquals(4, Backoff.pause(2));
        assertEquals(64, Backoff.pause(32));
        assertEquals(64, Backoff.pause(64), "stays at the cap");
        assertEquals(64, Backoff.pause(40), "never past the cap");
    }

    @Test
    void aSpinThatNeverSeesTheWordFreeEndsWithinItsBudget() {
        assertEquals(1000, Backoff.PAUSES, "default budget");
        int tests = 0;
        int paused = 0;
        for (int left = Backoff.PAUSES, step = 1; left > 0; left -= step, step = Backoff.pause(step)) {
            tests++;
            paused += step;
        }
        // 1 + 2 + ... + 64 = 127 in 7 tests, then 64 at a time: 7 + 14 tests, 1023 pauses.
        assertEquals(21, tests);
        assertTrue(paused >= Backoff.PAUSES && paused < Backoff.PAUSES + Backoff.MAX_STEP, "paused " + paused);
    }

    @Test
    void aWordThatStaysBusyEndsTheSpinOnItsBudgetNotOnRelocks() {
        try (Memory mem = Memory.allocate(8)) {
            final MemorySegment seg = mem.block(0, 8, 4).segment();
            Block.INT.setVolatile(seg, 0L, 16);
            assertFalse(Backoff.whileNonzero(seg, 0, -1, Backoff.RELOCKS), "no relock was seen");
            assertEquals(16, (int) Block.INT.getVolatile(seg, 0L), "the spin only reads");
        }
    }

    @Test
    void aWordFreeForGoodEndsTheSpinWithoutRelocks() {
        try (Memory mem = Memory.allocate(8)) {
            final MemorySegment seg = mem.block(0, 8, 4).segment();
            // Each look finds it free: the spin ends at once, and never counts it as a relock.
            assertFalse(Backoff.whileNonzero(seg, 0, -1, Backoff.RELOCKS), "free from the start");
        }
    }

    @Test
    void aSleeperEndsTheSpinAtOnce() {
        try (Memory mem = Memory.allocate(8)) {
            final MemorySegment seg = mem.block(0, 8, 4).segment();
            Block.INT.setVolatile(seg, 0L, 16);
            Block.INT.setVolatile(seg, 4L, 1);
            assertFalse(Backoff.whileNonzero(seg, 0, 4, Backoff.RELOCKS), "someone sleeps: no spin");
        }
    }

    /**
     * A holder that takes the word back a few nanoseconds after each release: the spin, which
     * would steal it in such a gap, ends on relocks instead. Whether one spin sees a relock
     * depends on where the holder's thread is scheduled, so spins are repeated (the holder keeps
     * running) until one does, within a liveness bound.
     */
    @Test
    void aHolderThatRelocksAtOnceEndsTheSpinOnRelocks() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Backoff.RELOCKS > 0, Backoff.RELOCKS_PROPERTY + "=0");
        try (Memory mem = Memory.allocate(8)) {
            final MemorySegment seg = mem.block(0, 8, 4).segment();
            final AtomicBoolean stop = new AtomicBoolean();
            final CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    for (int i = 0; i < 1000; i++) {
                        Block.INT.setVolatile(seg, 0L, 16);
                        Block.INT.setVolatile(seg, 0L, 0);
                    }
                }
            }, r -> Thread.ofPlatform().daemon().start(r));
            try {
                final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LIVENESS_MILLIS);
                boolean relocks = false;
                while (!relocks && System.nanoTime() < end) {
                    relocks = Backoff.whileNonzero(seg, 0, -1, Backoff.RELOCKS);
                }
                assertTrue(relocks, "no spin saw the holder relock within " + LIVENESS_MILLIS + " ms");
            } finally {
                stop.set(true);
                holder.get(LIVENESS_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
    }
}
