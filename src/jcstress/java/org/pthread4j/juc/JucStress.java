package org.pthread4j.juc;

import org.pthread4j.MutexAttr;
import org.pthread4j.RwLockAttr;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the adapter jcstress tests share: the configurations each state rotates through, and a
 * pool of 64-byte blocks recycled by the states' arbiters (closing a shared arena per state would
 * cost a thread handshake each and starve the sampling).
 */
final class JucStress {
    /** The private backends, then process-shared (the kernel with shared futex operations). */
    static final List<String> CONFIG_NAMES = List.of("parking", "linux", "linux-noprivate", "shared");

    private static final List<MutexAttr> LOCK_ATTRS = List.of(
        recursive(Futexes.parking(), false), recursive(Futexes.linux(), false),
        recursive(Futexes.linuxNoPrivate(), false), recursive(null, true));
    private static final List<RwLockAttr> RW_ATTRS = List.of(
        RwLockAttr.privateOn(Futexes.parking()), RwLockAttr.privateOn(Futexes.linux()),
        RwLockAttr.privateOn(Futexes.linuxNoPrivate()), RwLockAttr.PSHARED);

    private static final int SLOT = 64;
    private static final int PER_SLAB = 4096;
    private static final ConcurrentLinkedQueue<Block> FREE = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger NEXT = new AtomicInteger();

    private JucStress() {
    }

    private static MutexAttr recursive(final Futex f, final boolean pshared) {
        return MutexAttr.builder().type(MutexAttr.RECURSIVE).pshared(pshared).futex(f).build();
    }

    /** @return the next state's number, for round-robin choices */
    static int next() {
        return NEXT.getAndIncrement() & Integer.MAX_VALUE;
    }

    /** @return configuration {@code i} of a {@link PthreadLock} (0-3: parking, linux, linux-noprivate, shared) */
    static MutexAttr lockAttr(final int i) {
        return LOCK_ATTRS.get(i % LOCK_ATTRS.size());
    }

    /** @return configuration {@code i} of a {@link PthreadReadWriteLock} */
    static RwLockAttr rwAttr(final int i) {
        return RW_ATTRS.get(i % RW_ATTRS.size());
    }

    /** @return a 64-byte block, its old contents undefined (every init sets its words) */
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
