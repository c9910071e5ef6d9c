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
 * it any more; a futex wake issued after that never reads the memory.
 */
final class PrivateBlocks {
    private static final Cleaner CLEANER = Cleaner.create();

    private PrivateBlocks() {
    }

    /**
     * @param size      bytes
     * @param alignment alignment of the block
     * @return a zeroed block of its own private memory, freed when the block's segment is unreachable
     */
    static Block allocate(final int size, final int alignment) {
        final Memory memory = Memory.allocate(size, alignment);
        final Block block = memory.block(0, size, alignment);
        CLEANER.register(block.segment(), memory::close);
        return block;
    }
}
