package org.pthread4j.juc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.RwLockAttr;
import org.pthread4j.RwLockLayout;
import org.pthread4j.SemLayout;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.memory.Memory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Serialization of the adapters, as the JDK's: a private lock comes back as a new, unlocked lock
 * of the same kind and backend, a private semaphore with its permits; process-shared ones are
 * refused with the reason.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AdapterSerializationTest {
    @SuppressWarnings("unchecked")
    private static <T> T copy(final T o) throws IOException, ClassNotFoundException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (T) in.readObject();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aHeldLockDeserializesAsANewUnlockedLockOfTheSameKindAndBackend(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        lock.lock();
        lock.lock();
        final PthreadLock clone = copy(lock);
        assertNotSame(lock.mutex().block(), clone.mutex().block());
        assertTrue(lock.isLocked());
        assertEquals(2, lock.getHoldCount());
        assertFalse(clone.isLocked());
        assertEquals(0, clone.getHoldCount());
        assertEquals(lock.isFair(), clone.isFair());
        assertEquals(MutexAttr.RECURSIVE, clone.mutex().attr().type());
        assertSame(f, clone.mutex().attr().futex());
        clone.lock();
        clone.lock();
        assertEquals(2, clone.getHoldCount());
        assertEquals(2, lock.getHoldCount(), "the two locks are separate");
        clone.unlock();
        clone.unlock();
        assertFalse(clone.isLocked());
        lock.unlock();
        lock.unlock();
        final PthreadLock errorcheck = copy(new PthreadLock(JucTestSupport.errorcheck(f)));
        assertEquals(MutexAttr.ERRORCHECK, errorcheck.mutex().attr().type());
        errorcheck.lock();
        assertThrows(IllegalStateException.class, errorcheck::lock);
        errorcheck.unlock();
    }

    @Test
    void aDefaultLockStaysOnTheDefaultBackendAndAnUnnamedTableFallsBackToIt() throws Exception {
        assertNull(copy(new PthreadLock()).mutex().attr().futex());
        final ParkingFutex table = ParkingFutex.create(16, true);
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(table));
        assertNull(copy(lock).mutex().attr().futex(), "a table made with create has no name that finds it again");
    }

    @Test
    void aProcessSharedLockIsRefusedWithTheReason() {
        try (Memory memory = Memory.allocate(256)) {
            final PthreadLock lock = new PthreadLock(memory.block(0, MutexLayout.SIZE, MutexLayout.ALIGNMENT),
                MutexAttr.builder().type(MutexAttr.RECURSIVE).pshared(true).build());
            final NotSerializableException e = assertThrows(NotSerializableException.class, () -> copy(lock));
            assertTrue(e.getMessage().contains("process-shared"), e.getMessage());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aHeldReadWriteLockDeserializesUnlockedOnTheSameBackend(final Futex f) throws Exception {
        final PthreadReadWriteLock lock = new PthreadReadWriteLock(RwLockAttr.privateOn(f));
        lock.writeLock().lock();
        lock.readLock().lock();
        final PthreadReadWriteLock clone = copy(lock);
        assertTrue(lock.isWriteLocked());
        assertFalse(clone.isWriteLocked());
        assertEquals(1, lock.getReadLockCount());
        assertEquals(0, clone.getReadLockCount());
        assertEquals(0, clone.getReadHoldCount());
        assertSame(f, clone.rwLock().futex());
        clone.writeLock().lock();
        clone.readLock().lock();
        assertTrue(clone.isWriteLocked());
        assertEquals(1, clone.getReadLockCount());
        clone.readLock().unlock();
        clone.writeLock().unlock();
        assertFalse(clone.isWriteLocked());
        assertTrue(lock.isWriteLocked());
        lock.readLock().unlock();
        lock.writeLock().unlock();
    }

    @Test
    void theReadAndWriteLocksDeserializeAsTheSidesOfANewLock() throws Exception {
        final PthreadReadWriteLock lock = new PthreadReadWriteLock();
        lock.writeLock().lock();
        final PthreadReadWriteLock.WriteLock write = copy(lock.writeLock());
        final PthreadReadWriteLock.ReadLock read = copy(lock.readLock());
        assertTrue(write.tryLock(), "a new, unlocked lock");
        write.unlock();
        assertTrue(read.tryLock());
        read.unlock();
        final Object[] pair = copy(new Object[] {lock.readLock(), lock.writeLock()});
        final PthreadReadWriteLock.ReadLock r = assertInstanceOf(PthreadReadWriteLock.ReadLock.class, pair[0]);
        final PthreadReadWriteLock.WriteLock w = assertInstanceOf(PthreadReadWriteLock.WriteLock.class, pair[1]);
        r.lock();
        assertFalse(w.tryLock(), "the two sides of one stream belong to one new lock");
        r.unlock();
        lock.writeLock().unlock();
    }

    @Test
    void aProcessSharedReadWriteLockIsRefusedWithTheReason() {
        try (Memory memory = Memory.allocate(256)) {
            final PthreadReadWriteLock lock = new PthreadReadWriteLock(
                memory.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT), RwLockAttr.PSHARED);
            final NotSerializableException e = assertThrows(NotSerializableException.class, () -> copy(lock));
            assertTrue(e.getMessage().contains("process-shared"), e.getMessage());
            assertThrows(NotSerializableException.class, () -> copy(lock.readLock()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aSemaphoreDeserializesWithItsPermitsAsSemaphoreDoes(final Futex f) throws Exception {
        final PthreadSemaphore s = new PthreadSemaphore(3, f);
        s.acquire();
        s.acquire();
        s.release();
        final PthreadSemaphore clone = copy(s);
        assertEquals(2, s.availablePermits());
        assertEquals(2, clone.availablePermits());
        assertSame(f, clone.sem().futex());
        clone.acquire();
        clone.acquire();
        clone.release();
        assertEquals(2, s.availablePermits());
        assertEquals(1, clone.availablePermits());
        assertFalse(clone.isFair());
    }

    @Test
    void aProcessSharedSemaphoreIsRefusedWithTheReason() {
        try (Memory memory = Memory.allocate(256)) {
            final PthreadSemaphore s = new PthreadSemaphore(memory.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT),
                true, 1);
            final NotSerializableException e = assertThrows(NotSerializableException.class, () -> copy(s));
            assertTrue(e.getMessage().contains("process-shared"), e.getMessage());
        }
    }

    /** A subclass of a lock or semaphore. */
    static final class CountingSemaphore extends PthreadSemaphore {
        private static final long serialVersionUID = 1L;
        final int tag;

        CountingSemaphore(final int permits, final int tag) {
            super(new PthreadSemaphore(permits).sem());
            this.tag = tag;
        }
    }

    /** A subclass of a lock. */
    static final class NamedLock extends PthreadLock {
        private static final long serialVersionUID = 1L;
        final String label;

        NamedLock(final String label) {
            this.label = label;
        }
    }

    /** A subclass of a read-write lock. */
    static final class NamedReadWriteLock extends PthreadReadWriteLock {
        private static final long serialVersionUID = 1L;
        final String label;

        NamedReadWriteLock(final String label) {
            this.label = label;
        }
    }

    @Test
    void subclassesDeserializeAsThemselvesWithTheirFields() throws Exception {
        final CountingSemaphore s = copy(new CountingSemaphore(2, 7));
        assertEquals(7, s.tag);
        assertEquals(2, s.availablePermits());
        assertTrue(s.tryAcquire(2));
        final NamedLock held = new NamedLock("a");
        held.lock();
        final NamedLock lock = copy(held);
        assertEquals("a", lock.label);
        assertFalse(lock.isLocked());
        lock.lock();
        assertEquals(1, lock.getHoldCount());
        lock.unlock();
        held.unlock();
        final NamedReadWriteLock rw = copy(new NamedReadWriteLock("b"));
        assertEquals("b", rw.label);
        rw.writeLock().lock();
        assertTrue(rw.isWriteLocked());
        rw.writeLock().unlock();
    }
}
