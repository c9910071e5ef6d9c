package org.pthread4j.juc;

import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.ref.Cleaner;

/**
 * Private off-heap memory for the adapters' default constructors: one {@link Memory} per
 * primitive, freed when the primitive can no longer be reached.
 *
 * <p>The cleaner is registered on the block's {@linkplain Block#segment() segment}, the very
 * object every access of the primitive goes through, not on the adapter: a thread inside a
 * primitive's method keeps the segment reachable until its last access, even after the
 * adapter object itself became unreachable. The memory is closed only when no thread can touch
 * it any more; a futex wake issued after that never reads the memory. Mutexes the kernel may
 * write to after their owner thread ended get {@linkplain #permanent permanent} blocks instead.
 */
final class PrivateBlocks {
    private static final Cleaner CLEANER = Cleaner.create();
    /** Size of the slots of {@link #permanent}, enough for every musl type. */
    private static final int SLOT = 64;
    private static final int SLOTS_PER_SLAB = 64;
    private static Memory slab;
    private static int nextSlot = SLOTS_PER_SLAB;

    private PrivateBlocks() {
    }

    /**
     * {@return a zeroed block of its own private memory, freed when the block's segment is unreachable}
     *
     * @param size      bytes
     * @param alignment alignment of the block
     */
    static Block allocate(final int size, final int alignment) {
        final Memory memory = Memory.allocate(size, alignment);
        final Block block = memory.block(0, size, alignment);
        CLEANER.register(block.segment(), memory::close);
        return block;
    }

    /**
     * A block that is never freed, for a mutex on the kernel robust list (robust, or owner-tracked
     * and process-shared): the kernel writes to a held mutex when its owner thread exits, which
     * happens a moment after the Java thread ended and its references were dropped, so the memory
     * must outlive every thread that could hold the mutex. Carved from slabs of
     * {@value #SLOTS_PER_SLAB} slots of {@value #SLOT} bytes.
     *
     * @param size      bytes, at most 64
     * @param alignment alignment, at most 64
     * @return a zeroed block
     */
    static synchronized Block permanent(final int size, final int alignment) {
        if (size > SLOT || alignment > SLOT) {
            throw new IllegalArgumentException("a permanent block holds at most " + SLOT + " bytes: " + size);
        }
        if (nextSlot == SLOTS_PER_SLAB) {
            slab = Memory.allocate((long) SLOT * SLOTS_PER_SLAB, SLOT); // never closed
            nextSlot = 0;
        }
        return slab.block((long) SLOT * nextSlot++, size, alignment);
    }
}
