package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the condvar jcstress tests share: the configurations they rotate through, one per state
 * (private on each backend, process-shared), and a pool of mutex + condvar blocks.
 */
final class CondStressSupport {
    /** A mutex block and a condvar block. */
    record Slot(Block mutex, Block cond) {
    }

    /** A configuration: how the state's mutex and condvar are made. */
    record Config(String name, MutexAttr mutex, CondAttr cond) {
    }

    /**
     * The configurations, by index: 0 private on parking (NORMAL mutex), 1 private on linux
     * (ERRORCHECK), 2 private on linux-noprivate (NORMAL), 3 process-shared (ERRORCHECK).
     */
    static final List<Config> CONFIGS = List.of(
        priv("parking", MutexAttr.NORMAL, Futexes.parking()),
        priv("linux", MutexAttr.ERRORCHECK, Futexes.linux()),
        priv("linux-noprivate", MutexAttr.NORMAL, Futexes.linuxNoPrivate()),
        new Config("shared", MutexAttr.builder().type(MutexAttr.ERRORCHECK).pshared(true).build(),
            CondAttr.builder().pshared(true).build()));

    private static final int SLAB = 1024;
    private static final ConcurrentLinkedQueue<Slot> FREE = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger NEXT = new AtomicInteger();

    private CondStressSupport() {
    }

    private static Config priv(final String name, final int kind, final Futex f) {
        return new Config(name, MutexAttr.builder().type(kind).futex(f).build(), CondAttr.builder().futex(f).build());
    }

    /** @return the next configuration index, round robin */
    static int nextConfig() {
        return Math.floorMod(NEXT.getAndIncrement(), CONFIGS.size());
    }

    /** @return a slot no live state uses (from the pool, or a new slab) */
    static Slot take() {
        final Slot s = FREE.poll();
        return s != null ? s : fresh();
    }

    /**
     * @return a slot never used before: for tests without an arbiter, where no moment is known at
     *     which every thread has left the condvar (the memory is never freed; such tests run few states)
     */
    static Slot fresh() {
        final Memory slab = Memory.allocate(128L * SLAB);
        for (int i = 1; i < SLAB; i++) {
            FREE.add(slot(slab, i));
        }
        return slot(slab, 0);
    }

    private static Slot slot(final Memory slab, final int i) {
        return new Slot(slab.block(128L * i, MutexLayout.SIZE, 8), slab.block(128L * i + 64, CondLayout.SIZE, 8));
    }

    /**
     * Hands a slot back, from the arbiter (every actor has returned, so no thread is inside the
     * condvar or the mutex), if the mutex is free and nobody waits.
     *
     * @return 0 when the slot was clean, 1 otherwise (it is then dropped)
     */
    static int give(final Slot slot, final Mutex m, final Cond c) {
        if (m.state() != Mutex.State.FREE || m.waiterCount() != 0 || c.waiterCount() != 0) {
            return 1;
        }
        FREE.add(slot);
        return 0;
    }

    /** @return a liveness deadline: a wait that reaches it missed its wakeup */
    static Timespec liveness() {
        return Timespec.after(Timespec.CLOCK_REALTIME, 20, TimeUnit.SECONDS);
    }
}
