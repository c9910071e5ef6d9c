package org.pthread4j;

import org.pthread4j.memory.Block;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.pthread4j.BarrierLayout.INST_COUNT;
import static org.pthread4j.BarrierLayout.INST_FINISHED;
import static org.pthread4j.BarrierLayout.INST_LAST;
import static org.pthread4j.BarrierLayout.INST_WAITERS;

/**
 * Where a private barrier's per-cycle instances live. musl's first arrival builds its
 * {@code struct instance} on its own stack and publishes the address in {@code _b_inst}; the
 * struct lives exactly as long as the owner's {@code pthread_barrier_wait} call, which returns
 * only after every other party stopped touching it. The Java equivalent of that stack frame is
 * a slot taken from this process-wide pool of off-heap instances when a thread becomes owner
 * and given back when its wait returns. The words are real native memory (futex words need
 * addresses) and {@code _b_inst} holds the slot's real address, as in musl.
 *
 * <p>A non-owner turns the address it reads from {@code _b_inst} back into a slot by looking
 * it up among the pool's chunks, never by dereferencing it: a corrupt {@code _b_inst} makes
 * the wait throw {@link IllegalStateException} instead of touching arbitrary memory.
 *
 * <p>Slots are a cache line apart, so two barriers' instances never share a line. Chunks grow
 * geometrically and are never freed: the pool is as large as the most barrier owners that ever
 * waited at the same time.
 */
final class BarrierInstances {
    /** Distance between two instances: a cache line. */
    static final int STRIDE = 64;
    private static final int FIRST_CHUNK = 16;

    /** One instance slot: a view of 16 bytes of a chunk. */
    static final class Instance {
        final MemorySegment seg;
        final long off;
        final long address;
        /** Next free slot; guarded by {@link #POOL}. */
        Instance nextFree;

        Instance(final MemorySegment seg, final long off) {
            this.seg = seg;
            this.off = off;
            this.address = seg.address() + off;
        }

        int get(final int field) {
            return (int) Block.INT.getVolatile(seg, off + field);
        }

        void set(final int field, final int value) {
            Block.INT.setVolatile(seg, off + field, value);
        }

        int getAndAdd(final int field, final int delta) {
            return (int) Block.INT.getAndAdd(seg, off + field, delta);
        }

        /** {@code struct instance new_inst = { 0 }}. */
        void clear() {
            set(INST_COUNT, 0);
            set(INST_LAST, 0);
            set(INST_WAITERS, 0);
            set(INST_FINISHED, 0);
        }
    }

    private record Chunk(long base, long size, Instance[] slots) {
    }

    private static final Object POOL = new Object();
    private static volatile Chunk[] chunks = new Chunk[0];
    /** Head of the free list; guarded by {@link #POOL}. */
    private static Instance free;

    private BarrierInstances() {
    }

    /** {@return a free instance slot, not yet cleared} */
    static Instance acquire() {
        synchronized (POOL) {
            if (free == null) {
                grow();
            }
            final Instance i = free;
            free = i.nextFree;
            i.nextFree = null;
            return i;
        }
    }

    /** @param i a slot no thread touches any longer (a stale futex wake on it is harmless) */
    static void release(final Instance i) {
        synchronized (POOL) {
            i.nextFree = free;
            free = i;
        }
    }

    /**
     * {@return the slot at that address}
     *
     * @param address a value read from {@code _b_inst}
     * @throws IllegalStateException when no slot of this pool is at that address
     */
    static Instance resolve(final long address) {
        final Instance i = find(address);
        if (i == null) {
            throw new IllegalStateException("pthread_barrier_t: _b_inst 0x" + Long.toHexString(address)
                + " is not a barrier instance of this process: the memory was overwritten");
        }
        return i;
    }

    /** {@return whether {@code address} is a slot of this pool} */
    static boolean isInstance(final long address) {
        return find(address) != null;
    }

    private static Instance find(final long address) {
        for (final Chunk c : chunks) {
            final long d = address - c.base;
            if (d >= 0 && d < c.size) {
                return d % STRIDE == 0 ? c.slots[(int) (d / STRIDE)] : null;
            }
        }
        return null;
    }

    /** Adds a chunk twice the size of the last one; called under {@link #POOL}. */
    private static void grow() {
        final Chunk[] old = chunks;
        final int n = old.length == 0 ? FIRST_CHUNK : old[old.length - 1].slots.length * 2;
        final MemorySegment seg = Arena.global().allocate((long) n * STRIDE, STRIDE);
        final Instance[] slots = new Instance[n];
        for (int k = n - 1; k >= 0; k--) {
            slots[k] = new Instance(seg, (long) k * STRIDE);
            slots[k].nextFree = free;
            free = slots[k];
        }
        final Chunk[] next = java.util.Arrays.copyOf(old, old.length + 1);
        next[old.length] = new Chunk(seg.address(), seg.byteSize(), slots);
        chunks = next;
    }
}
