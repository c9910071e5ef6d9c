package org.pthread4j;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.FutexTraceScenarioTest.Party;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Why a broadcast group raises the mutex's {@code _m_waiters} (musl commit 27b2fc9d,
 * docs/sources.md, "musl: the condition variable"): a requeued waiter sleeps on the mutex word without being counted
 * there. An unrelated locker queued on the mutex ahead of it takes the one wake of an unlock and
 * relocks with a CAS that drops the waiters bit; without the group's count its own unlock would
 * wake nobody and the requeued waiter would sleep for ever.
 */
class CondRequeueTest {
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void anUnrelatedLockerTakingTheWakeDoesNotStrandARequeuedWaiter(final Futex futex) throws Exception {
        try (Memory memory = Memory.allocate(4096)) {
            final Block mb = memory.block(0, MutexLayout.SIZE, 8);
            final Block cb = memory.block(64, CondLayout.SIZE, 8);
            final Mutex m = new Mutex(mb, MutexAttr.builder().futex(futex).build());
            final Cond c = new Cond(cb, CondAttr.builder().futex(futex).build());
            final long lock = mb.address(MutexLayout.LOCK);
            final boolean[] flag = new boolean[1];
            final ConcurrentLinkedQueue<String> owners = new ConcurrentLinkedQueue<>();

            final Party w1 = waiter("W1", m, c, flag, owners);
            final long w1Node = awaitHead(cb, 0);
            w1.asleepOn(w1Node + CondLayout.NODE_BARRIER, () -> true);
            final Party w2 = waiter("W2", m, c, flag, owners);
            final long w2Node = awaitHead(cb, w1Node);
            w2.asleepOn(w2Node + CondLayout.NODE_BARRIER, () -> true);

            assertEquals(0, m.lock());
            flag[0] = true;
            assertEquals(0, c.broadcast());
            // W1 signaled: requeued onto the held mutex by the broadcast (the default), or woken and
            // asleep on the mutex in its own lock (musl's way); either way counted in _m_waiters.
            w1.asleepOn(0, () -> m.waiterCount() == 1);
            final Party x = new Party("X", () -> {
                final int r = m.lock();
                owners.add("X");
                return r != 0 ? r : m.unlock();
            }).asleepOn(lock, () -> m.waiterCount() == 2); // the unrelated locker, queued behind W1
            assertEquals(0, m.unlock());

            // W1 relocks, requeues W2 behind X and unlocks: its one wake goes to X. Only the group's
            // raise of _m_waiters makes X record bit 31 as it acquires, so that X's unlock wakes W2.
            assertEquals(0, w1.get());
            assertEquals(0, x.get());
            assertEquals(0, w2.get());
            if (futex instanceof ParkingFutex) {
                assertEquals(List.of("W1", "X", "W2"), List.copyOf(owners), "FIFO queues: X is woken before W2");
            }
            assertEquals(3, owners.size(), owners.toString());
            assertEquals(0, m.waiterCount(), "the group's raise of _m_waiters was undone");
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    /**
     * A signaled waiter requeued onto the held mutex takes the unlock's one wake, which consumed
     * bit 31, while a plain locker sleeps on the mutex behind it. The waiter must relock
     * recording the bit again (through the sleeping path, not the fast path), or its own unlock
     * would wake nobody and the locker would sleep for ever.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aRequeuedWaiterRelocksWithTheBitSoTheLockerBehindItIsWoken(final Futex futex) throws Exception {
        try (Memory memory = Memory.allocate(4096)) {
            final Block mb = memory.block(0, MutexLayout.SIZE, 8);
            final Block cb = memory.block(64, CondLayout.SIZE, 8);
            final Mutex m = new Mutex(mb, MutexAttr.builder().futex(futex).build());
            final Cond c = new Cond(cb, CondAttr.builder().futex(futex).build());
            final long lock = mb.address(MutexLayout.LOCK);
            final boolean[] flag = new boolean[1];
            final ConcurrentLinkedQueue<String> owners = new ConcurrentLinkedQueue<>();

            final Party w = waiter("W", m, c, flag, owners);
            final long node = awaitHead(cb, 0);
            w.asleepOn(node + CondLayout.NODE_BARRIER, () -> true);

            assertEquals(0, m.lock());
            flag[0] = true;
            assertEquals(0, c.signal());
            // W is requeued onto the held mutex (the default) and counted for; or woken, and then
            // asleep in its own lock of the mutex (musl's way). Either way it sleeps on the word.
            w.asleepOn(0, () -> m.waiterCount() == 1);
            final Party x = new Party("X", () -> {
                final int r = m.lock();
                owners.add("X");
                return r != 0 ? r : m.unlock();
            }).asleepOn(lock, () -> m.waiterCount() == 2); // queued behind W
            assertEquals(0, m.unlock());

            assertEquals(0, w.get());
            assertEquals(0, x.get());
            if (futex instanceof ParkingFutex) {
                assertEquals(List.of("W", "X"), List.copyOf(owners), "FIFO queues: W is woken first");
            }
            assertEquals(2, owners.size(), owners.toString());
            assertEquals(0, m.waiterCount());
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    private static Party waiter(final String name, final Mutex m, final Cond c, final boolean[] flag,
                                final ConcurrentLinkedQueue<String> owners) {
        return new Party(name, () -> {
            int r = m.lock();
            while (r == 0 && !flag[0]) {
                r = c.await(m);
            }
            owners.add(name);
            return r != 0 ? r : m.unlock();
        });
    }

    private static long awaitHead(final Block cb, final long before) {
        final long end = System.nanoTime() + 60_000_000_000L;
        long head;
        while ((head = cb.getLong(CondLayout.HEAD)) == before || head == 0) {
            assertTrue(System.nanoTime() < end, "no waiter joined the condvar");
            Thread.onSpinWait();
        }
        if (head == 0) {
            fail("unreachable");
        }
        return head;
    }
}
