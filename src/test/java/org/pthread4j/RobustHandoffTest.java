package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.pthread4j.FutexTraceScenarioTest.Party;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Why an owner of a robust mutex records bit 31 when it acquires while others are counted in
 * {@code _m_waiters} (musl commit 4220d298; docs/sources.md, "musl: the mutex"): the kernel, marking
 * the word of a thread that died, sees only the word, and wakes a sleeper only if bit 31 is set.
 * Two threads sleep on a robust mutex; the unlock wakes one, which takes it (with the bit, since
 * the other is still counted) and ends holding it; the kernel must wake the other, which then
 * gets EOWNERDEAD. Without the bit the other would sleep until its deadline.
 */
class RobustHandoffTest {
    @ParameterizedTest(name = "pshared={0}")
    @ValueSource(booleans = {false, true})
    void theKernelWakesASecondSleeperWhenTheFirstHeirDiesHoldingTheMutex(final boolean pshared) throws Exception {
        try (Memory memory = Memory.allocate(64)) {
            final Block b = memory.block(0, MutexLayout.SIZE, 8);
            final Mutex m = new Mutex(b, MutexAttr.builder().robust(true).pshared(pshared).build());
            final long lock = b.address(MutexLayout.LOCK);
            assertEquals(0, m.lock());
            final java.util.function.IntSupplier body = () -> {
                final int r = m.timedLock(Timespec.after(Timespec.CLOCK_REALTIME, 30, TimeUnit.SECONDS));
                if (r == Errno.EOWNERDEAD) {
                    return (m.consistent() | m.unlock()) == 0 ? r : -1;
                }
                return r; // 0: end the thread holding the mutex
            };
            final Party a = new Party("A", body).asleepOn(lock, () -> m.waiterCount() == 1);
            final Party c = new Party("B", body).asleepOn(lock, () -> m.waiterCount() == 2);
            assertEquals(0, m.unlock());
            final List<Integer> results = List.of(a.get(), c.get()).stream().sorted().toList();
            assertEquals(List.of(0, Errno.EOWNERDEAD), results,
                "one heir took it normally and died; the kernel must have woken the other");
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.waiterCount());
        }
    }
}
