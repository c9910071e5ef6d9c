package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the mutex jcstress tests share: the configurations they rotate through (one per
 * state, so every kind and backend is covered without one test class each; the index is part
 * of every result, so a forbidden outcome names its configuration), and a pool of mutex
 * blocks that the arbiter hands back, so millions of states do not each map and close memory.
 */
final class MutexStressSupport {
    /** A deadline far in the future (2100-01-01, CLOCK_REALTIME). */
    static final Timespec FAR = new Timespec(4_102_444_800L, 0);
    /** A deadline long past. */
    static final Timespec PAST = new Timespec(1, 0);

    /**
     * The configurations, by index: 0-2 NORMAL/RECURSIVE/ERRORCHECK on parking, 3-5 the same
     * on linux, 6-8 on linux-noprivate, 9-11 process-shared, 12-14 robust private, 15-17
     * robust process-shared.
     */
    static final List<MutexAttr> CONFIGS = List.of(
        attr(0, Futexes.parking()), attr(1, Futexes.parking()), attr(2, Futexes.parking()),
        attr(0, Futexes.linux()), attr(1, Futexes.linux()), attr(2, Futexes.linux()),
        attr(0, Futexes.linuxNoPrivate()), attr(1, Futexes.linuxNoPrivate()), attr(2, Futexes.linuxNoPrivate()),
        MutexAttr.builder().type(0).pshared(true).build(),
        MutexAttr.builder().type(1).pshared(true).build(),
        MutexAttr.builder().type(2).pshared(true).build(),
        MutexAttr.builder().type(0).robust(true).build(),
        MutexAttr.builder().type(1).robust(true).build(),
        MutexAttr.builder().type(2).robust(true).build(),
        MutexAttr.builder().type(0).robust(true).pshared(true).build(),
        MutexAttr.builder().type(1).robust(true).pshared(true).build(),
        MutexAttr.builder().type(2).robust(true).pshared(true).build());

    /** Indexes of the non-robust NORMAL configurations (no owner: any thread may unlock). */
    static final int[] NORMAL_CONFIGS = {0, 3, 6, 9};

    private static final int SLAB = 4096;
    private static final ConcurrentLinkedQueue<Block> FREE = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger NEXT = new AtomicInteger();

    private MutexStressSupport() {
    }

    private static MutexAttr attr(final int kind, final org.pthread4j.futex.Futex f) {
        return MutexAttr.builder().type(kind).futex(f).build();
    }

    /** @return the next configuration index, round robin */
    static int nextConfig() {
        return Math.floorMod(NEXT.getAndIncrement(), CONFIGS.size());
    }

    /** @return the next NORMAL configuration index, round robin */
    static int nextNormalConfig() {
        return NORMAL_CONFIGS[Math.floorMod(NEXT.getAndIncrement(), NORMAL_CONFIGS.length)];
    }

    /** @return a 40-byte, 64-aligned block no live state uses */
    static Block take() {
        final Block b = FREE.poll();
        if (b != null) {
            return b;
        }
        final Memory slab = Memory.allocate(64L * SLAB);
        for (int i = 1; i < SLAB; i++) {
            FREE.add(slab.block(64L * i, MutexLayout.SIZE, MutexLayout.ALIGNMENT));
        }
        return slab.block(0, MutexLayout.SIZE, MutexLayout.ALIGNMENT);
    }

    /**
     * Hands a block back, from the arbiter, when every actor is done with it and its mutex is
     * free (a held robust mutex is still on its owner's robust list and must not be reused).
     *
     * @param m the state's mutex
     * @return 0 when the mutex was free with no waiter, 1 otherwise (the block is then dropped)
     */
    static int give(final Mutex m) {
        if (m.state() != Mutex.State.FREE || m.waiterCount() != 0) {
            return 1;
        }
        FREE.add(m.block());
        return 0;
    }
}
