package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.Cond;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.Sem;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Closing a sync file while threads of this process sleep in its primitives: each is woken,
 * re-reads its word, and gets {@link IllegalStateException}; nothing touches the unmapped memory.
 */
class SyncFileCloseTest {
    @TempDir
    Path dir;

    /** Runs {@code body} in a thread and returns what it threw once it ends. */
    private static Thread sleeper(final Runnable body, final AtomicReference<Throwable> outcome, final CountDownLatch started) {
        return Thread.ofPlatform().start(() -> {
            started.countDown();
            try {
                body.run();
                outcome.set(new AssertionError("returned normally"));
            } catch (final Throwable e) {
                outcome.set(e);
            }
        });
    }

    /** Waits until a waiter count says the sleeper is in (or entering) its futex wait. */
    private static void awaitWaiter(final java.util.function.IntSupplier waiters, final String what) throws InterruptedException {
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (waiters.getAsInt() == 0) {
            assertTrue(System.nanoTime() < end, what + " never started waiting");
            Thread.sleep(1);
        }
    }

    @Test
    void threadsAsleepInAMutexACondvarAndASemaphoreGetIllegalStateExceptionWhenTheFileIsClosed() throws Exception {
        final SyncFile f = SyncFile.create(dir.resolve("close"), 8);
        // NORMAL: it records no owner and is on no robust list, so holding it does not stop the close.
        final Mutex held = f.mutex("held");
        final Mutex m = f.mutex("m");
        final Cond c = f.cond("c");
        final Sem s = f.sem("s", 0);
        assertEquals(0, held.lock());
        final AtomicReference<Throwable> inLock = new AtomicReference<>();
        final AtomicReference<Throwable> inWait = new AtomicReference<>();
        final AtomicReference<Throwable> inSem = new AtomicReference<>();
        final CountDownLatch started = new CountDownLatch(3);
        final Thread a = sleeper(held::lock, inLock, started);
        final Thread b = sleeper(() -> {
            assertEquals(0, m.lock());
            for (;;) {
                c.await(m);
            }
        }, inWait, started);
        final Thread d = sleeper(s::await, inSem, started);
        assertTrue(started.await(10, TimeUnit.SECONDS));
        awaitWaiter(held::waiterCount, "the mutex sleeper");
        awaitWaiter(c::waiterCount, "the condvar sleeper");
        awaitWaiter(s::waiterCount, "the semaphore sleeper");
        f.close();
        for (final Thread t : new Thread[] {a, b, d}) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(t.isAlive(), t + " is still asleep after close");
        }
        assertInstanceOf(IllegalStateException.class, inLock.get());
        assertInstanceOf(IllegalStateException.class, inWait.get());
        assertInstanceOf(IllegalStateException.class, inSem.get());
        assertThrows(IllegalStateException.class, held::unlock);
        assertThrows(IllegalStateException.class, s::post);
        assertThrows(IllegalStateException.class, () -> f.mutex("m"));
    }

    @Test
    void closeIsRefusedWhileTheCallerHoldsARobustMutexOfTheFileAndTheFileStaysUsable() throws Exception {
        final SyncFile f = SyncFile.create(dir.resolve("held"), 8);
        final Mutex r = f.mutex("r", MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).build());
        assertEquals(0, r.lock());
        final IllegalStateException e = assertThrows(IllegalStateException.class, f::close);
        assertTrue(e.getMessage().contains("'r'") && e.getMessage().contains("(the caller)"), e.getMessage());
        assertTrue(f.isOpen());
        assertEquals(0, r.unlock(), "the mapping is still there");
        f.close();
        assertFalse(f.isOpen());
    }

    @Test
    void closeIsRefusedWhileAnotherThreadOfThisProcessHoldsAnOwnerTrackedMutexOfTheFile() throws Exception {
        final SyncFile f = SyncFile.create(dir.resolve("other"), 8);
        final Mutex m = f.mutex("m", MutexAttr.builder().type(MutexAttr.RECURSIVE).build());
        final CountDownLatch locked = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Thread holder = Thread.ofPlatform().start(() -> {
            m.lock();
            locked.countDown();
            try {
                release.await();
            } catch (final InterruptedException ignored) {
                // the test ends
            }
            m.unlock();
        });
        assertTrue(locked.await(30, TimeUnit.SECONDS));
        final IllegalStateException e = assertThrows(IllegalStateException.class, f::close);
        assertTrue(e.getMessage().contains("held by thread " + m.ownerId()), e.getMessage());
        release.countDown();
        holder.join(TimeUnit.SECONDS.toMillis(30));
        f.close();
    }

    @Test
    void aLockWordWrittenByHandWithoutLinksDoesNotStopTheClose() throws Exception {
        final SyncFile f = SyncFile.create(dir.resolve("forged"), 8);
        // The word of an errorcheck robust mutex held by this thread, as a tool's test writes it:
        // no locker linked it into a robust list (_m_prev is 0), so nothing points into the file.
        f.slot("m", SlotType.MUTEX, 40, b -> {
            b.set(0, 0x80 | 4 | 2);
            b.set(4, org.pthread4j.internal.ThreadIds.current());
        });
        f.close();
        assertFalse(f.isOpen());
    }

    @Test
    void aTruncatedFileIsRefusedByEveryLookupWithSyncFileFormatExceptionAndCloseDoesNotGrowItAgain() throws Exception {
        final Path p = dir.resolve("truncated");
        final SyncFile f = SyncFile.create(p, 8);
        f.mutex("m");
        try (java.nio.channels.FileChannel other = java.nio.channels.FileChannel.open(p,
                java.nio.file.StandardOpenOption.WRITE)) {
            other.truncate(0);
        }
        for (final org.junit.jupiter.api.function.Executable lookup : List.<org.junit.jupiter.api.function.Executable>of(
                f::slots, () -> f.find("m"), () -> f.mutex("m"), () -> f.mutex("new"), () -> f.lock("l"))) {
            final java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class, lookup);
            final SyncFileFormatException cause = assertInstanceOf(SyncFileFormatException.class, e.getCause());
            assertEquals(SyncFileFormatException.Problem.TRUNCATED, cause.problem());
            assertTrue(cause.getMessage().contains("truncated while in use"), cause.getMessage());
        }
        f.close();
        assertEquals(0, java.nio.file.Files.size(p), "close did not map past the end, which would grow it");
    }
}
