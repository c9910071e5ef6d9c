package org.pthread4j;

import org.junit.jupiter.api.Test;
import org.pthread4j.futex.Errno;
import org.pthread4j.futex.Timespec;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.memory.Memory;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.inMillis;
import static org.pthread4j.MutexTestSupport.onThreadThatEnds;

/**
 * The kernel walks at most 2048 nodes of a dying thread's robust list ({@code ROBUST_LIST_LIMIT}):
 * a thread holding more would lose the owner-died recovery of the others in silence. So a lock
 * that would be the 2049th answers EAGAIN (the adapter throws), and every mutex the thread does
 * hold is recovered when it dies.
 */
class RobustListLimitTest {
    private static final int LIMIT = RobustList.LIMIT;
    private static final int SLOT = 64;

    private static List<Mutex> robustMutexes(final Memory mem, final int n, final MutexAttr attr) {
        final List<Mutex> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(new Mutex(mem.block((long) i * SLOT, MutexLayout.SIZE, MutexLayout.ALIGNMENT), attr));
        }
        return all;
    }

    @Test
    void aThreadHolding2048RobustMutexesGetsEAGAINForAnotherAndTheKernelRecoversEveryOneItHolds() throws Exception {
        assertEquals(2048, LIMIT, "the kernel's ROBUST_LIST_LIMIT");
        try (Memory mem = Memory.allocate((long) (LIMIT + 1) * SLOT)) {
            final List<Mutex> all = robustMutexes(mem, LIMIT + 1, MutexAttr.builder().type(MutexAttr.RECURSIVE)
                .robust(true).build());
            final Mutex extra = all.get(LIMIT);
            final String failures = onThreadThatEnds(() -> {
                final StringBuilder bad = new StringBuilder();
                for (int i = 0; i < LIMIT; i++) {
                    final int r = all.get(i).lock();
                    if (r != 0) {
                        bad.append("lock ").append(i).append(": ").append(Errno.name(r)).append('\n');
                    }
                }
                bad.append(check("lock of the 2049th", Errno.EAGAIN, extra.lock()));
                bad.append(check("trylock of the 2049th", Errno.EAGAIN, extra.tryLock()));
                bad.append(check("timedlock of the 2049th", Errno.EAGAIN, extra.timedLock(inMillis(10_000))));
                bad.append(check("a recursive relock, which links nothing", 0, all.get(7).lock()));
                bad.append(check("its unlock", 0, all.get(7).unlock()));
                return bad.toString();
            });
            assertEquals("", failures);
            assertEquals(Mutex.State.FREE, extra.state(), "the refused mutex was never taken");
            for (int i = 0; i < LIMIT; i++) {
                final Mutex m = all.get(i);
                assertEquals(Errno.EOWNERDEAD, m.timedLock(inMillis(LIVENESS.toMillis())), "mutex " + i);
                assertEquals(0, m.consistent());
                assertEquals(0, m.unlock());
            }
            assertEquals(0, extra.lock());
            assertEquals(0, extra.unlock());
        }
    }

    private static String check(final String what, final int expected, final int actual) {
        return expected == actual ? "" : what + ": " + Errno.name(actual) + ", expected " + Errno.name(expected) + "\n";
    }

    @Test
    void unlockingOneOfThe2048MakesRoomForAnother() throws Exception {
        try (Memory mem = Memory.allocate((long) (LIMIT + 1) * SLOT)) {
            final List<Mutex> all = robustMutexes(mem, LIMIT + 1, MutexAttr.builder().type(MutexAttr.ERRORCHECK)
                .robust(true).pshared(true).build());
            final String failures = onThreadThatEnds(() -> {
                final StringBuilder bad = new StringBuilder();
                for (int i = 0; i < LIMIT; i++) {
                    bad.append(check("lock " + i, 0, all.get(i).lock()));
                }
                bad.append(check("the 2049th", Errno.EAGAIN, all.get(LIMIT).lock()));
                bad.append(check("unlock of one", 0, all.get(100).unlock()));
                bad.append(check("the 2049th after it", 0, all.get(LIMIT).lock()));
                for (int i = 0; i <= LIMIT; i++) {
                    if (i != 100) {
                        bad.append(check("unlock " + i, 0, all.get(i).unlock()));
                    }
                }
                return bad.toString();
            });
            assertEquals("", failures);
        }
    }

    @Test
    void theLockAdapterThrowsWhenTheThreadHolds2048RobustLocks() throws Exception {
        try (Memory mem = Memory.allocate((long) (LIMIT + 1) * SLOT)) {
            final MutexAttr robust = MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).build();
            final List<PthreadLock> locks = new ArrayList<>();
            for (final Mutex m : robustMutexes(mem, LIMIT + 1, robust)) {
                locks.add(PthreadLock.of(m));
            }
            final String message = onThreadThatEnds(() -> {
                for (int i = 0; i < LIMIT; i++) {
                    locks.get(i).lock();
                }
                final IllegalStateException e = assertThrows(IllegalStateException.class, () -> locks.get(LIMIT).lock());
                assertThrows(IllegalStateException.class, () -> locks.get(LIMIT).tryLock());
                assertFalse(locks.get(LIMIT).isLocked());
                for (int i = 0; i < LIMIT; i++) {
                    locks.get(i).unlock();
                }
                locks.get(LIMIT).lock();
                locks.get(LIMIT).unlock();
                return e.getMessage();
            });
            assertTrue(message.startsWith("EAGAIN") && message.contains("2048"), message);
        }
    }
}
