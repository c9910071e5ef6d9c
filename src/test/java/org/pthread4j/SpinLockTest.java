package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpinLockTest {
    private final List<Memory> memories = new ArrayList<>();

    @AfterEach
    void closeMemory() {
        memories.forEach(Memory::close);
    }

    private Block block() {
        final Memory m = Memory.allocate(SpinLockLayout.SIZE);
        memories.add(m);
        return m.block(0, SpinLockLayout.SIZE, SpinLockLayout.ALIGNMENT);
    }

    @Test
    void trylockOnAHeldLockIsEBUSYFromAnotherThreadAndTheWordHoldsEBUSY() throws Exception {
        final Block b = block();
        b.set(0, 1234);
        final SpinLock s = new SpinLock(b);
        assertEquals(0, b.get(0), "init stores 0");
        assertEquals(0, s.lock());
        assertEquals(Errno.EBUSY, b.get(0));
        assertTrue(s.isLocked());
        assertEquals(Errno.EBUSY, Spawn.call(s::tryLock).get());
        assertEquals(Errno.EBUSY, s.tryLock(), "no owner: the holder is refused too");
        assertEquals(0, s.unlock());
        assertEquals(0, b.get(0));
        assertEquals(0, Spawn.call(s::tryLock).get());
        assertEquals(0, s.unlock(), "no owner: any thread may unlock");
        assertFalse(s.isLocked());
        assertEquals(0, s.destroy());
    }

    @Test
    void aWaiterSpinsUntilTheHolderUnlocks() throws Exception {
        final SpinLock s = new SpinLock(block());
        assertEquals(0, s.lock());
        final Spawn.Running<Integer> w = Spawn.call(() -> s.lock() | s.unlock());
        Spawn.until("waiter spinning", () -> w.thread().getState() == Thread.State.RUNNABLE);
        assertFalse(w.isDone());
        assertEquals(0, s.unlock());
        assertEquals(0, w.get());
        assertFalse(s.isLocked());
    }

    @Test
    void lockExcludesUnderStress() throws Exception {
        final SpinLock s = new SpinLock(block());
        final long[] counter = new long[1];
        final int threads = 3;
        final int per = 20_000;
        final List<Spawn.Running<Integer>> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            all.add(Spawn.call(() -> {
                for (int i = 0; i < per; i++) {
                    if ((i & 1) == 0) {
                        s.lock();
                    } else {
                        while (s.tryLock() != 0) {
                            Thread.onSpinWait();
                        }
                    }
                    counter[0]++;
                    s.unlock();
                }
                return 0;
            }));
        }
        for (final Spawn.Running<Integer> r : all) {
            assertEquals(0, r.get());
        }
        assertEquals((long) threads * per, counter[0]);
    }

    @Test
    void attachAcceptsOnlyZeroOrEBUSY() {
        final Block b = block();
        b.set(0, 5);
        assertThrows(IllegalArgumentException.class, () -> SpinLock.attach(b));
        b.set(0, Errno.EBUSY);
        final SpinLock held = SpinLock.attach(b);
        assertTrue(held.isLocked());
        assertEquals(Errno.EBUSY, held.tryLock());
        assertEquals(0, held.unlock());
        assertThrows(NullPointerException.class, () -> new SpinLock(null));
    }
}
