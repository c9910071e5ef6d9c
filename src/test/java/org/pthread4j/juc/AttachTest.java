package org.pthread4j.juc;

import org.junit.jupiter.api.Test;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.RwLockAttr;
import org.pthread4j.RwLockLayout;
import org.pthread4j.Sem;
import org.pthread4j.SemLayout;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The adapters open a primitive initialized elsewhere the way the core does: {@code attach(Block)},
 * {@code attach(Block, Futex)} for a private one's backend, and {@code of(primitive)}; and a
 * mutex answers the accessors the other primitives have.
 */
class AttachTest {
    @Test
    void aReadWriteLockAttachedByItsBlockSharesTheLock() {
        try (Memory memory = Memory.allocate(RwLockLayout.SIZE)) {
            final Block block = memory.block(0, RwLockLayout.SIZE, 8);
            final PthreadReadWriteLock lock = new PthreadReadWriteLock(block, RwLockAttr.PSHARED);
            final PthreadReadWriteLock view = PthreadReadWriteLock.attach(block);
            lock.writeLock().lock();
            assertTrue(view.isWriteLocked());
            lock.writeLock().unlock();
            assertFalse(view.isWriteLocked());
        }
    }

    @Test
    void aPrivateSemaphoreAttachedWithItsBackendSharesThePermits() throws InterruptedException {
        final Futex parking = Futexes.parking();
        try (Memory memory = Memory.allocate(SemLayout.SIZE)) {
            final Block block = memory.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
            final PthreadSemaphore sem = PthreadSemaphore.of(new Sem(block, false, 2, parking));
            final PthreadSemaphore view = PthreadSemaphore.attach(block, parking);
            assertSame(parking, view.sem().futex());
            view.acquire();
            assertEquals(1, sem.availablePermits());
        }
    }

    @Test
    void aMutexNamesItsBlockBackendSharingAndTypeWord() {
        try (Memory memory = Memory.allocate(2 * MutexLayout.SIZE)) {
            final Block privateBlock = memory.block(0, MutexLayout.SIZE, 8);
            final Mutex priv = new Mutex(privateBlock, MutexAttr.privateOn(Futexes.linux()));
            assertSame(privateBlock, priv.block());
            assertSame(Futexes.linux(), priv.futex());
            assertFalse(priv.isPshared());
            final MutexAttr attr = MutexAttr.builder().type(MutexAttr.RECURSIVE).pshared(true).build();
            final Mutex shared = new Mutex(memory.block(MutexLayout.SIZE, MutexLayout.SIZE, 8), attr);
            assertTrue(shared.isPshared());
            assertSame(Futexes.shared(), shared.futex());
            assertEquals(attr.bits(), shared.bits());
            assertEquals(MutexAttr.RECURSIVE, shared.attr().type());
        }
    }
}
