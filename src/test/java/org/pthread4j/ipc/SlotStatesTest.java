package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class SlotStatesTest {
    private static String summary(final SlotType t, final int... words) {
        final int[] w = new int[Math.max(words.length, t.size() / 4)];
        System.arraycopy(words, 0, w, 0, words.length);
        return SlotStates.decode(t, w).summary();
    }

    @Test
    void mutexStates() throws Exception {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final int dead = (int) gone.pid();
        final int self = Liveness.selfPid();
        assertEquals("normal, free, 0 waiters", summary(SlotType.MUTEX, 128));
        assertEquals("normal, locked (no owner recorded), 1 waiter", summary(SlotType.MUTEX, 128, 16, 1));
        assertEquals("errorcheck robust, held by tid " + self + " (alive), 0 waiters", summary(SlotType.MUTEX, 132 | 2, self));
        assertEquals("normal robust, held by tid " + dead + " (dead), 3 waiters", summary(SlotType.MUTEX, 132, 0x8000_0000 | dead, 3));
        assertEquals("normal robust, owner died (the next locker gets EOWNERDEAD), 0 waiters",
            summary(SlotType.MUTEX, 132, 0x4000_0000));
        assertEquals("normal robust, held by tid " + self + " (alive) after EOWNERDEAD, not yet consistent, 0 waiters",
            summary(SlotType.MUTEX, 132, 0x4000_0000 | self));
        assertEquals("normal robust, unrecoverable, 0 waiters", summary(SlotType.MUTEX, 132, 0x7fff_ffff));
        assertEquals("recursive, held by virtual thread id " + (1 << 29) + ", 0 waiters, recursion count 4",
            summary(SlotType.MUTEX, 129, 1 << 29, 0, 0, 0, 4));
        assertEquals(false, SlotStates.decode(SlotType.MUTEX, new int[] {132, 0x8000_0000 | dead, 3, 0, 0, 0, 0, 0, 0, 0})
            .fields().get("ownerAlive"));
    }

    @Test
    void otherStates() {
        assertEquals("2 waiters, seq 7, clock monotonic", summary(SlotType.COND, -1, -1, 7, 2, 1));
        assertEquals("free, 0 waiters", summary(SlotType.RWLOCK, 0, 0, 128));
        assertEquals("3 readers, 1 waiter", summary(SlotType.RWLOCK, 0x8000_0003, 1, 128));
        assertEquals("write-locked, 2 waiters", summary(SlotType.RWLOCK, 0xffff_ffff, 2, 128));
        assertEquals("value 5, 0 waiters", summary(SlotType.SEM, 5));
        assertEquals("value 0, 2 waiters", summary(SlotType.SEM, 0x8000_0000, 2));
        assertEquals("count 3, 1 arrived in this cycle, 1 waiting", summary(SlotType.BARRIER, 3, 0, 0x8000_0002, 1, 1));
        assertEquals("done", summary(SlotType.ONCE, 2));
        assertEquals("locked", summary(SlotType.SPIN, 16));
        assertEquals("seq 4, 1 sleeper", summary(SlotType.DOORBELL, 4, 1));
        assertEquals("words 00000001 ffffffff", summary(SlotType.RAW, 1, -1));
    }
}
