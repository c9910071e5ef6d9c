package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.MutexAttr;
import org.pthread4j.futex.Timespec;
import org.pthread4j.juc.OwnerDiedException;
import org.pthread4j.juc.PthreadCondition;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.juc.PthreadReadWriteLock;
import org.pthread4j.juc.PthreadSemaphore;
import org.pthread4j.memory.Block;
import org.pthread4j.testing.ChildJvm;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The java.util.concurrent faces of a sync file (issue 21, item 1): {@code lock(name)} is a
 * process-shared robust {@link PthreadLock}, with {@code readWriteLock}, {@code semaphore} and
 * {@code condition}; a process-shared lock's {@code newCondition()} refuses instead of handing
 * out a condition private to one process; owner death surfaces as {@link OwnerDiedException}
 * in another process.
 */
class SyncFileJucTest {
    private static final Duration CHILD = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void lockByNameIsARecursiveRobustProcessSharedLock() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("f"), 8)) {
            final PthreadLock lock = f.lock("l");
            final MutexAttr a = lock.mutex().attr();
            assertEquals(MutexAttr.RECURSIVE, a.type());
            assertTrue(a.robust());
            assertTrue(a.pshared());
            lock.lock();
            lock.lock();
            assertEquals(2, lock.getHoldCount(), "reentrant, as ReentrantLock");
            lock.unlock();
            lock.unlock();
            assertFalse(lock.isLocked());
        }
    }

    @Test
    void lockByNameAttachesToAnOwnerTrackedMutexAndRefusesANormalOne() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("f"), 8)) {
            f.mutex("e", MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).build());
            assertEquals(MutexAttr.ERRORCHECK, f.lock("e").mutex().attr().type());
            f.mutex("n");
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.lock("n"));
            assertTrue(e.getMessage().contains("NORMAL"), e.getMessage());
        }
    }

    @Test
    void aProcessSharedLocksNewConditionThrowsInsteadOfMakingAPrivateOne() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("f"), 8)) {
            final UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> PthreadLock.of(f.mutex("b", MutexAttr.builder().type(MutexAttr.RECURSIVE).build())).newCondition());
            assertTrue(e.getMessage().contains("SyncFile.condition"), e.getMessage());
            assertThrows(UnsupportedOperationException.class, () -> f.lock("l").newCondition());
            assertThrows(UnsupportedOperationException.class, () -> f.readWriteLock("rw").writeLock().newCondition());
            final PthreadCondition c = f.condition("c", f.lock("l"));
            assertTrue(c.cond().isPshared());
            assertEquals(Timespec.CLOCK_MONOTONIC, c.cond().clock());
            assertThrows(IllegalArgumentException.class, () -> f.condition("c", new PthreadLock()),
                "a private lock cannot wait on a condvar other processes signal");
        }
    }

    @Test
    void ownerDeathSurfacesAsOwnerDiedExceptionInAnotherProcess() throws Exception {
        final Path p = dir.resolve("f");
        try (SyncFile f = SyncFile.create(p, 8)) {
            final PthreadLock lock = f.lock("l");
            try (ChildJvm child = ChildJvm.start(JucChild.class, p.toString())) {
                child.expect("ready", CHILD);
                child.send("hold");
                final String locked = child.expectLine(CHILD);
                assertTrue(locked.startsWith("locked "), locked + "\n" + child.transcript());
                assertEquals(Integer.parseInt(locked.substring(7)), lock.getOwnerId());
                assertFalse(lock.tryLock());
                child.kill9();
            }
            final OwnerDiedException e = assertThrows(OwnerDiedException.class,
                () -> lock.tryLock(60, TimeUnit.SECONDS));
            assertTrue(lock.isHeldByCurrentThread(), "the lock is held when OwnerDiedException is thrown");
            e.markConsistent();
            lock.unlock();
            lock.lock();
            lock.unlock();
        }
    }

    @Test
    void aConditionOfTheFileWakesAWaiterInAnotherProcess() throws Exception {
        final Path p = dir.resolve("f");
        final int rounds = 500;
        try (SyncFile f = SyncFile.create(p, 8)) {
            final PthreadLock lock = f.lock("l");
            final PthreadCondition c = f.condition("c", lock);
            final Block turn = f.slot("turn", SlotType.RAW, 8);
            try (ChildJvm child = ChildJvm.start(JucChild.class, p.toString())) {
                child.expect("ready", CHILD);
                child.send("pong " + rounds);
                for (int i = 0; i < rounds; i++) {
                    lock.lock();
                    try {
                        while (turn.get(0) != 0) {
                            assertTrue(c.await(60, TimeUnit.SECONDS), "round " + i + ": " + child.transcript());
                        }
                        turn.set(0, 1);
                        c.signal();
                    } finally {
                        lock.unlock();
                    }
                }
                child.expect("done", CHILD);
            }
        }
    }

    @Test
    void aSemaphoreOfTheFileHandsPermitsToAnotherProcess() throws Exception {
        final Path p = dir.resolve("f");
        try (SyncFile f = SyncFile.create(p, 8)) {
            final PthreadSemaphore s = f.semaphore("s", 0);
            try (ChildJvm child = ChildJvm.start(JucChild.class, p.toString())) {
                child.expect("ready", CHILD);
                child.send("acquire 3");
                final long end = System.nanoTime() + CHILD.toNanos();
                while (!s.hasWaiters() && System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                assertTrue(s.hasWaiters(), "the other process waits for permits");
                s.release(3);
                child.expect("acquired", CHILD);
            }
            assertEquals(0, s.availablePermits());
            assertEquals(0, f.semaphore("s", 9).availablePermits(), "permits only for a new semaphore");
        }
    }

    @Test
    void aReadWriteLockOfTheFileExcludesReadersInAnotherProcess() throws Exception {
        final Path p = dir.resolve("f");
        try (SyncFile f = SyncFile.create(p, 8)) {
            final PthreadReadWriteLock rw = f.readWriteLock("rw");
            try (ChildJvm child = ChildJvm.start(JucChild.class, p.toString())) {
                child.expect("ready", CHILD);
                child.send("write");
                child.expect("writing", CHILD);
                assertTrue(rw.isWriteLocked());
                assertFalse(rw.readLock().tryLock(), "written in the other process");
                child.send("release");
                child.expect("released", CHILD);
                assertTrue(rw.readLock().tryLock(60, TimeUnit.SECONDS));
                rw.readLock().unlock();
            }
        }
    }
}
