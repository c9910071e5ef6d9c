package org.pthread4j;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.FutexTraceScenarioTest.Party;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.SampleFutexLock;
import org.pthread4j.memory.Memory;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * docs/01-futex.md, "The smallest futex lock": the 0/1/2 lock on every private backend. Each
 * test fails without one step of the lock: the counter without the CAS that takes it, the wake
 * without the unlock's {@code wake}, the second sleeper without the woken thread's "take it as 2".
 */
class SampleFutexLockTest {
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aPlainCounterUnderTheLockIsExact(final Futex futex) throws Exception {
        try (Memory mem = Memory.allocate(64)) {
            final SampleFutexLock lock = new SampleFutexLock(futex, mem.segment(), 0, true);
            final long[] counter = new long[1];
            final int threads = 4;
            final int rounds = 20_000;
            final List<Party> parties = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                parties.add(new Party("C" + i, () -> {
                    for (int r = 0; r < rounds; r++) {
                        lock.lock();
                        counter[0]++;
                        lock.unlock();
                    }
                    return 0;
                }));
            }
            for (final Party p : parties) {
                assertEquals(0, p.get());
            }
            assertEquals((long) threads * rounds, counter[0]);
            assertEquals(0, lock.word());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void anUnlockOfTwoWakesTheSleeperAndTheWokenThreadTakesTheLockAsTwo(final Futex futex) throws Exception {
        try (Memory mem = Memory.allocate(64)) {
            final SampleFutexLock lock = new SampleFutexLock(futex, mem.segment(), 0, true);
            final long word = mem.segment().address();
            lock.lock();
            assertEquals(1, lock.word(), "uncontended: 0 -> 1");
            final Party t2 = new Party("T2", () -> {
                lock.lock();
                lock.unlock();
                return 0;
            }).asleepOn(word, () -> lock.word() == 2);
            final Party t3 = new Party("T3", () -> {
                lock.lock();
                lock.unlock();
                return 0;
            }).asleepOn(word, () -> true);
            // Both sleep on 2. The unlock wakes one; that one takes the lock as 2, so its own
            // unlock wakes the other (taken as 1, the other would sleep for ever).
            lock.unlock();
            assertEquals(0, t2.get());
            assertEquals(0, t3.get());
            assertEquals(0, lock.word());
        }
    }

    @Test
    void badWordsAreRefused() {
        try (Memory mem = Memory.allocate(8)) {
            assertThrows(IllegalArgumentException.class, () -> new SampleFutexLock(Futexes.parking(), mem.segment(), 2, true));
            assertThrows(IllegalArgumentException.class, () -> new SampleFutexLock(Futexes.parking(), mem.segment(), 8, true));
            assertThrows(NullPointerException.class, () -> new SampleFutexLock(null, mem.segment(), 0, true));
        }
    }
}
