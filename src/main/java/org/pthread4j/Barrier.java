package org.pthread4j;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

import static org.pthread4j.BarrierLayout.COUNT;
import static org.pthread4j.BarrierLayout.INST;
import static org.pthread4j.BarrierLayout.INST_COUNT;
import static org.pthread4j.BarrierLayout.INST_FINISHED;
import static org.pthread4j.BarrierLayout.INST_LAST;
import static org.pthread4j.BarrierLayout.INST_WAITERS;
import static org.pthread4j.BarrierLayout.LIMIT;
import static org.pthread4j.BarrierLayout.LOCK;
import static org.pthread4j.BarrierLayout.PSHARED;
import static org.pthread4j.BarrierLayout.WAITERS;
import static org.pthread4j.BarrierLayout.WAITERS2;

/**
 * musl's {@code pthread_barrier_t}: {@code count} threads meet, one of them is told it is the
 * serial thread, and the barrier is ready for the next cycle; private and process-shared
 * variants with musl's two different algorithms ({@link BarrierLayout}).
 *
 * <h2>Private barrier: a per-cycle instance</h2>
 *
 * <p>Arrivals take a small lock on the barrier ({@code _b_lock}, swapped to 1). The first
 * arrival finds no instance in {@code _b_inst} and becomes the cycle's <em>owner</em>: it
 * publishes a zeroed instance {@code {count, last, waiters, finished}}, releases the lock and
 * waits on {@code finished}; it is the serial thread. Later arrivals increment the instance's
 * count; the last of the {@code count - 1} clears {@code _b_inst} (the barrier can start its
 * next cycle at once), releases the lock, sets {@code last} and wakes everyone sleeping on it.
 * The others release the lock and sleep until {@code last} is set.
 *
 * <p>On the way out each non-owner decrements the instance count; the one that brings it to 0
 * meets the owner on {@code finished}, a two-party rendezvous: whichever side increments it
 * second knows the other is done or asleep, and the owner returns only after that. musl keeps
 * the instance on the owner's stack, so the owner must outlive every touch of it; here the
 * instance is an off-heap slot taken from a process-wide pool for the length of the owner's
 * call (see {@code BarrierInstances}), and {@code _b_inst} holds its real address. The barrier
 * object itself is never touched after the last arrival releases its lock, so a new cycle can
 * begin while the last one's threads are still leaving, and {@link #destroy()} of a private
 * barrier needs nothing.
 *
 * <h2>Process-shared barrier: a collectively held lock</h2>
 *
 * <p>An instance in one process's memory cannot serve another, so a shared barrier works in
 * the block alone. Arrivals take {@code _b_lock} by CAS from 0 to {@code count}. Each
 * increments {@code _b_count}; all but the last release the lock and sleep while the count is
 * positive. The last arrival (the serial thread here) resets the count to 0 and wakes them,
 * and does <em>not</em> release the lock: it is now held collectively by the whole cycle, so
 * next-cycle arrivals wait. A second rendezvous counts {@code _b_count} down to
 * {@code -count} and back to 0, so that every party has arrived at the exit before any leaves;
 * then each decrements {@code _b_lock}, the last one to 0, waking a next-cycle arrival or a
 * destroyer (bit 31). musl also takes its {@code __vm_lock} between the two rendezvous so that
 * no thread can unmap the barrier while a sibling in the same process still touches it; Java
 * needs no such lock to stay safe (an access to closed memory throws instead of faulting), and
 * {@link #destroy()} followed by closing the memory is the safe order.
 *
 * <p>Memory consistency: actions of every party before its {@link #await()} happen-before the
 * return of {@link #await()} in every party of the same cycle.
 *
 * <p>See {@code docs/06-once-barrier-spin.md}: the words, the states, the races and the tests that prove them.
 */
public final class Barrier {
    /** {@code PTHREAD_BARRIER_SERIAL_THREAD}: what exactly one party of each cycle is told. */
    public static final int SERIAL_THREAD = BarrierLayout.SERIAL_THREAD;

    private final Block block;
    private final MemorySegment seg;
    private final Futex futex;
    private final boolean priv;

    /**
     * {@code pthread_barrier_init}: zeroes the block and sets the count.
     *
     * @param block at least 32 bytes, 8-byte aligned
     * @param attr  the attributes, or null for {@link BarrierAttr#DEFAULT}
     * @param count how many threads must call {@link #await()} to complete a cycle, at least 1
     * @throws IllegalArgumentException when the count is below 1 (musl's EINVAL), the block is
     *                                  unsuitable, or a process-shared barrier is given a backend
     *                                  that cannot serve shared words
     */
    public Barrier(final Block block, final BarrierAttr attr, final int count) {
        // src/thread/pthread_barrier_init.c
        BarrierLayout.checkBlock(block);
        if (count < 1) {
            throw new IllegalArgumentException(Backing.einval("barrier count " + Integer.toUnsignedString(count)
                + " is not in [1, INT_MAX]"));
        }
        final BarrierAttr a = attr != null ? attr : BarrierAttr.DEFAULT;
        this.block = block;
        this.seg = block.segment();
        this.priv = !a.pshared();
        this.futex = Backing.futex(a.pshared(), a.futex(), "process-shared barrier");
        seg.asSlice(0, BarrierLayout.SIZE).fill((byte) 0);
        block.set(LIMIT, (count - 1) | (a.pshared() ? PSHARED : 0));
    }

    /**
     * {@code pthread_barrier_init} with default attributes (private, default backend).
     *
     * @param block the block
     * @param count the party count, at least 1
     */
    public Barrier(final Block block, final int count) {
        this(block, null, count);
    }

    private Barrier(final Block block, final Futex futex, final boolean priv) {
        this.block = block;
        this.seg = block.segment();
        this.futex = futex;
        this.priv = priv;
    }

    /**
     * Views a barrier initialized elsewhere without changing it. A private one gets
     * {@link Futexes#defaultPrivate()}.
     *
     * @param block the block
     * @return the view
     * @throws IllegalArgumentException when the block does not hold a consistent barrier
     */
    public static Barrier attach(final Block block) {
        return attach(block, null);
    }

    /**
     * Views a barrier initialized elsewhere, with the backend to use if it is private (it must
     * be the one its other users sleep on).
     *
     * @param block        the block
     * @param privateFutex backend of a private barrier (of a process-shared one: a backend that
     *                     serves shared words), or null for the default
     * @return the view
     * @throws IllegalArgumentException when the block does not hold a consistent barrier, or a
     *                                  process-shared one is given a backend that cannot serve
     *                                  shared words
     */
    public static Barrier attach(final Block block, final Futex privateFutex) {
        BarrierLayout.checkInitialized(block);
        final boolean pshared = block.get(LIMIT) < 0;
        return new Barrier(block, Backing.futex(pshared, privateFutex, "process-shared barrier"), !pshared);
    }

    /**
     * {@code pthread_barrier_wait} (named {@code await} because {@link Object#wait()} is final):
     * waits until {@code count} threads have called it in this cycle. Not interruptible.
     *
     * <p>Memory effects: every party's actions before its call happen-before every party's
     * return from this cycle.
     *
     * @return {@link #SERIAL_THREAD} in exactly one party of each cycle (the first arrival of a
     *     private barrier, the last of a shared one), 0 in the others
     */
    public int await() {
        // src/thread/pthread_barrier_wait.c: pthread_barrier_wait
        final int limit = block.get(LIMIT);
        if (limit == 0) {
            return SERIAL_THREAD;
        }
        if (limit < 0) {
            return psharedWait();
        }
        while (block.getAndSet(LOCK, 1) != 0) {
            MuslWait.await(futex, seg, LOCK, WAITERS, 1, true);
        }
        final long instAddress = block.getLong(INST);
        if (instAddress == 0) {
            return ownerWait();
        }
        final BarrierInstances.Instance inst;
        try {
            inst = BarrierInstances.resolve(instAddress);
        } catch (final IllegalStateException e) {
            unlockBarrier();
            throw e;
        }
        if (inst.getAndAdd(INST_COUNT, 1) + 1 == limit) {
            // Last to enter: the barrier is free for the next cycle; wake the non-owners.
            block.setLong(INST, 0);
            unlockBarrier();
            inst.set(INST_LAST, 1);
            if (inst.get(INST_WAITERS) != 0) {
                futex.wake(inst.seg, inst.off + INST_LAST, -1, true);
            }
        } else {
            unlockBarrier();
            MuslWait.await(futex, inst.seg, inst.off + INST_LAST, inst.off + INST_WAITERS, 0, true);
        }
        // Last to leave wakes the owner, who may then give the instance back.
        if (inst.getAndAdd(INST_COUNT, -1) == 1 && inst.getAndAdd(INST_FINISHED, 1) != 0) {
            futex.wake(inst.seg, inst.off + INST_FINISHED, 1, true);
        }
        return 0;
    }

    /** The first arrival of a private cycle: publish an instance, wait for the last leaver. */
    private int ownerWait() {
        final BarrierInstances.Instance inst = BarrierInstances.acquire();
        inst.clear();
        block.setLong(INST, inst.address);
        unlockBarrier();
        for (int spins = 200; spins > 0 && inst.get(INST_FINISHED) == 0; spins--) {
            Thread.onSpinWait();
        }
        inst.getAndAdd(INST_FINISHED, 1);
        while (inst.get(INST_FINISHED) == 1) {
            futex.wait(inst.seg, inst.off + INST_FINISHED, 1, true);
        }
        // No party touches the instance any longer (a late futex wake on it is harmless).
        BarrierInstances.release(inst);
        return SERIAL_THREAD;
    }

    private void unlockBarrier() {
        block.set(LOCK, 0);
        if (block.get(WAITERS) != 0) {
            futex.wake(seg, LOCK, 1, true);
        }
    }

    /** {@code pshared_barrier_wait} (src/thread/pthread_barrier_wait.c). */
    private int psharedWait() {
        final int limit = (block.get(LIMIT) & Integer.MAX_VALUE) + 1;
        int ret = 0;
        int v;
        if (limit == 1) {
            return SERIAL_THREAD;
        }
        while ((v = block.cas(LOCK, 0, limit)) != 0) {
            MuslWait.await(futex, seg, LOCK, WAITERS, v, false);
        }
        // Wait for limit threads to get to the barrier.
        if (block.getAndAdd(COUNT, 1) + 1 == limit) {
            block.set(COUNT, 0);
            ret = SERIAL_THREAD;
            if (block.get(WAITERS2) != 0) {
                futex.wake(seg, COUNT, -1, false);
            }
        } else {
            block.set(LOCK, 0);
            if (block.get(WAITERS) != 0) {
                futex.wake(seg, LOCK, 1, false);
            }
            while ((v = block.get(COUNT)) > 0) {
                MuslWait.await(futex, seg, COUNT, WAITERS2, v, false);
            }
        }
        // Second rendezvous: every party reaches the exit before any leaves (musl also takes
        // __vm_lock here; see the class description).
        if (block.getAndAdd(COUNT, -1) == 1 - limit) {
            block.set(COUNT, 0);
            if (block.get(WAITERS2) != 0) {
                futex.wake(seg, COUNT, -1, false);
            }
        } else {
            while ((v = block.get(COUNT)) != 0) {
                MuslWait.await(futex, seg, COUNT, WAITERS2, v, false);
            }
        }
        // A recursive unlock suitable for self-synchronized destruction.
        int w;
        do {
            v = block.get(LOCK);
            w = block.get(WAITERS);
        } while (block.cas(LOCK, v, v == Integer.MIN_VALUE + 1 ? 0 : v - 1) != v);
        // Wake a thread waiting to reuse or destroy the barrier.
        if (v == Integer.MIN_VALUE + 1 || (v == 1 && w != 0)) {
            futex.wake(seg, LOCK, 1, false);
        }
        return ret;
    }

    /**
     * {@code pthread_barrier_destroy}: for a shared barrier, waits until the threads of a
     * cycle in progress have all left it (so the memory may then be closed); for a private
     * barrier, nothing. The barrier must not be waited on again.
     *
     * @return 0
     */
    public int destroy() {
        // src/thread/pthread_barrier_destroy.c
        if (block.get(LIMIT) < 0 && block.get(LOCK) != 0) {
            block.getAndOr(LOCK, Integer.MIN_VALUE);
            int v;
            while (((v = block.get(LOCK)) & Integer.MAX_VALUE) != 0) {
                MuslWait.await(futex, seg, LOCK, -1, v, false);
            }
        }
        return 0;
    }

    /** {@return the party count given at initialization} */
    public int count() {
        return (block.get(LIMIT) & Integer.MAX_VALUE) + 1;
    }

    /** {@return whether the barrier is process-shared ({@code _b_limit} negative)} */
    public boolean isPshared() {
        return !priv;
    }

    /** {@return the block this barrier lives in} */
    public Block block() {
        return block;
    }

    /** {@return the futex backend this barrier sleeps on} */
    public Futex futex() {
        return futex;
    }

    @Override
    public String toString() {
        return "Barrier[count=" + count() + (priv ? ", private on " + futex.name() + (block.getLong(INST) != 0
            ? ", cycle in progress" : "") : ", pshared, lock=" + block.get(LOCK) + ", arrived=" + block.get(COUNT))
            + "]";
    }
}
