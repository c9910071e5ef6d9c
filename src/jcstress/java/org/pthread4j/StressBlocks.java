package org.pthread4j;

import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * 64-byte, 64-aligned blocks for jcstress states, recycled instead of allocated and freed per
 * state: a state takes one in its constructor and gives it back in its {@code @Arbiter}, which
 * jcstress runs after every actor of that state has returned. Closing a shared arena per state
 * would cost a thread handshake each and starve the sampling.
 */
final class StressBlocks {
    private static final int SLOT = 64;
    private static final int PER_SLAB = 4096;
    private static final ConcurrentLinkedQueue<Block> FREE = new ConcurrentLinkedQueue<>();

    private StressBlocks() {
    }

    /** @return a block of 64 bytes, its old contents undefined (every primitive's init sets its words) */
    static Block take() {
        final Block b = FREE.poll();
        return b != null ? b : refill();
    }

    /** @param b a block no actor touches any longer */
    static void give(final Block b) {
        FREE.offer(b);
    }

    private static synchronized Block refill() {
        final Block b = FREE.poll();
        if (b != null) {
            return b;
        }
        final Memory slab = Memory.allocate((long) SLOT * PER_SLAB, SLOT); // never closed: recycled
        for (int i = 1; i < PER_SLAB; i++) {
            FREE.offer(slab.block((long) i * SLOT, SLOT, SLOT));
        }
        return slab.block(0, SLOT, SLOT);
    }
}
