package org.pthread4j.futex;

import org.junit.jupiter.api.Test;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A wake of several waiters releases them first in line first: oldest first on the FIFO
 * parking backend, highest priority first on the priority-ordered one (seed 004), so the
 * waiter the queue puts first is also the first to get a CPU.
 */
class WakeOrderTest {
    private static final int WAITERS = 10;

    private static List<Integer> wakeAllAndRecord(final boolean priorityOrder, final int[] priorities) throws Exception {
        final List<Thread> released = new CopyOnWriteArrayList<>();
        final ParkingFutex f = new ParkingFutex(16, priorityOrder, "test", t -> {
            released.add(t);
            LockSupport.unpark(t);
        });
        try (Memory m = Memory.allocate(64)) {
            final MemorySegment seg = m.segment();
            final List<Thread> waiters = new ArrayList<>();
            for (final int p : priorities) {
                final Thread t = Thread.ofPlatform().daemon().priority(p).start(() -> {
                    while ((int) org.pthread4j.memory.Block.INT.getVolatile(seg, 0L) == 0) {
                        f.wait(seg, 0L, 0, true);
                    }
                });
                // Queue them one by one, so the FIFO order is the start order.
                final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (t.getState() != Thread.State.WAITING) {
                    if (System.nanoTime() - end > 0) {
                        throw new AssertionError("waiter did not go to sleep");
                    }
                    Thread.sleep(1);
                }
                waiters.add(t);
            }
            org.pthread4j.memory.Block.INT.setVolatile(seg, 0L, 1);
            assertEquals(WAITERS, f.wake(seg, 0L, -1, true));
            for (final Thread t : waiters) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
            final List<Integer> order = new ArrayList<>();
            for (final Thread t : released) {
                order.add(waiters.indexOf(t));
            }
            return order;
        }
    }

    @Test
    void fifoWakeAllReleasesTheLongestWaitingFirst() throws Exception {
        final int[] priorities = new int[WAITERS];
        java.util.Arrays.fill(priorities, Thread.NORM_PRIORITY);
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), wakeAllAndRecord(false, priorities));
    }

    @Test
    void priorityWakeAllReleasesTheHighestPriorityFirst() throws Exception {
        // start order: priorities 3, 9, 1, 10, 5, 7, 2, 8, 4, 6 (indexes 0..9)
        final int[] priorities = {3, 9, 1, 10, 5, 7, 2, 8, 4, 6};
        assertEquals(List.of(3, 1, 7, 5, 9, 4, 8, 0, 6, 2), wakeAllAndRecord(true, priorities));
    }
}
