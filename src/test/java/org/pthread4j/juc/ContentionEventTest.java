package org.pthread4j.juc;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.RwLockAttr;
import org.pthread4j.futex.Futex;
import org.pthread4j.internal.ThreadIds;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.juc.JucTestSupport.LIVENESS;

/**
 * The JFR events of contended waits, read back from a recording ({@link Recording}, dumped and
 * read with {@link RecordingFile}): a blocked acquisition is an {@code org.pthread4j.ContendedAcquire}
 * with the primitive, its name and address, the owner when the wait began, the backend and
 * whether it acquired; a condition wait is an {@code org.pthread4j.ConditionWait}; uncontended
 * locking records nothing, even with a threshold of zero.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ContentionEventTest {
    @TempDir
    Path dir;

    /** A body that may throw. */
    @FunctionalInterface
    private interface Body {
        void run() throws Exception;
    }

    /** The events of both types recorded (threshold zero) while {@code body} ran. */
    private List<RecordedEvent> recorded(final Body body) throws Exception {
        final Path file = dir.resolve("contention-" + System.nanoTime() + ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable(ContendedAcquireEvent.NAME).withThreshold(Duration.ZERO).withStackTrace();
            recording.enable(ConditionWaitEvent.NAME).withThreshold(Duration.ZERO);
            recording.start();
            body.run();
            recording.stop();
            recording.dump(file);
        }
        return RecordingFile.readAllEvents(file);
    }

    /** {@return the one event of that type whose thread is {@code thread}} */
    private static RecordedEvent onlyEvent(final List<RecordedEvent> events, final String type, final Thread thread) {
        final List<RecordedEvent> mine = events.stream().filter(e -> e.getEventType().getName().equals(type))
            .filter(e -> isThread(e.getThread(), thread)).toList();
        assertEquals(1, mine.size(), type + " events of " + thread + ": " + mine);
        return mine.get(0);
    }

    private static boolean isThread(final RecordedThread recorded, final Thread thread) {
        return recorded != null && recorded.getJavaThreadId() == thread.threadId();
    }

    /** Holds {@code lock} on this thread while a platform thread blocks in {@code blocked}, then releases. */
    private static Thread blockBehind(final Runnable unlock, final Body blocked, final java.util.function.IntSupplier queued)
        throws Exception {
        final JucTestSupport.Call<Void> call = JucTestSupport.Call.start("blocked", () -> {
            blocked.run();
            return null;
        });
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (queued.getAsInt() < 1) {
            assertTrue(System.nanoTime() < end, "the blocked thread never counted as a waiter");
            Thread.yield();
        }
        unlock.run();
        call.assertResult(null);
        return call.thread;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aContendedLockIsRecordedWithItsOwnerAddressAndBackend(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        final Thread[] waiter = new Thread[1];
        final List<RecordedEvent> events = recorded(() -> {
            lock.lock();
            waiter[0] = blockBehind(lock::unlock, () -> {
                lock.lock();
                lock.unlock();
            }, lock::getQueueLength);
        });
        final RecordedEvent e = onlyEvent(events, ContendedAcquireEvent.NAME, waiter[0]);
        assertEquals("PthreadLock", e.getString("primitive"));
        assertEquals("PthreadLock@" + Integer.toHexString(System.identityHashCode(lock)), e.getString("name"));
        assertEquals(lock.mutex().block().segment().address(), e.getLong("address"));
        assertEquals(ThreadIds.current(), e.getLong("ownerId"), "the main thread held it");
        assertTrue(isThread(e.getThread("owner"), Thread.currentThread()), "the owner as a thread");
        assertEquals(f.name(), e.getString("backend"));
        assertTrue(e.getBoolean("acquired"));
        assertFalse(e.getDuration().isNegative() || e.getDuration().isZero(), e.getDuration().toString());
        assertTrue(e.getStackTrace().getFrames().stream()
            .anyMatch(fr -> fr.getMethod().getName().equals("lock")
                && fr.getMethod().getType().getName().equals(PthreadLock.class.getName())), "the stack shows lock()");
    }

    @Test
    void uncontendedLockingAndFailedTriesRecordNothingEvenAtThresholdZero() throws Exception {
        final PthreadLock lock = new PthreadLock();
        final PthreadReadWriteLock rw = new PthreadReadWriteLock();
        final PthreadSemaphore sem = new PthreadSemaphore(1);
        final List<RecordedEvent> events = recorded(() -> {
            for (int i = 0; i < 1_000; i++) {
                lock.lock();
                lock.lockInterruptibly();
                lock.unlock();
                lock.unlock();
                rw.readLock().lock();
                rw.readLock().unlock();
                rw.writeLock().lockInterruptibly();
                rw.writeLock().unlock();
                sem.acquire();
                sem.release();
            }
            try (JucTestSupport.Holder h = new JucTestSupport.Holder(lock)) {
                assertFalse(lock.tryLock(), "a try that fails does not block");
                assertFalse(lock.tryLock(0, TimeUnit.SECONDS), "nor does a timed try with no time");
                h.release();
            }
        });
        final List<String> names = List.of(ContendedAcquireEvent.nameOf(lock), ContendedAcquireEvent.nameOf(rw),
            ContendedAcquireEvent.nameOf(sem));
        assertEquals(List.of(), events.stream().filter(e -> names.contains(e.getString("name"))).toList());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aTimedTryThatTimesOutIsRecordedAsNotAcquired(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        final List<RecordedEvent> events;
        final Thread holder;
        try (JucTestSupport.Holder h = new JucTestSupport.Holder(lock)) {
            holder = h.thread();
            events = recorded(() -> assertFalse(lock.tryLock(1, TimeUnit.MILLISECONDS)));
            h.release();
        }
        final RecordedEvent e = onlyEvent(events, ContendedAcquireEvent.NAME, Thread.currentThread());
        assertFalse(e.getBoolean("acquired"));
        assertTrue(isThread(e.getThread("owner"), holder));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void theReadWriteLockRecordsItsWriterAsOwnerAndTheSemaphoreItsWaits(final Futex f) throws Exception {
        final PthreadReadWriteLock rw = new PthreadReadWriteLock(RwLockAttr.privateOn(f));
        final Thread[] reader = new Thread[1];
        final List<RecordedEvent> events = recorded(() -> {
            rw.writeLock().lock();
            reader[0] = blockBehind(rw.writeLock()::unlock, () -> {
                rw.readLock().lock();
                rw.readLock().unlock();
            }, rw::getQueueLength);
        });
        final RecordedEvent e = onlyEvent(events, ContendedAcquireEvent.NAME, reader[0]);
        assertEquals("PthreadReadWriteLock.ReadLock", e.getString("primitive"));
        assertEquals(rw.rwLock().block().segment().address(), e.getLong("address"));
        assertTrue(isThread(e.getThread("owner"), Thread.currentThread()), "the writer");
        assertEquals(0, e.getLong("ownerId"), "the rwlock word records no owner");
        assertEquals(f.name(), e.getString("backend"));

        final PthreadSemaphore sem = new PthreadSemaphore(0, f);
        final AtomicInteger got = new AtomicInteger();
        final Thread[] acquirer = new Thread[1];
        final List<RecordedEvent> semEvents = recorded(() -> acquirer[0] = blockBehind(sem::release, () -> {
            sem.acquire();
            got.incrementAndGet();
        }, sem::getWaiterCount));
        final RecordedEvent s = onlyEvent(semEvents, ContendedAcquireEvent.NAME, acquirer[0]);
        assertEquals("PthreadSemaphore", s.getString("primitive"));
        assertEquals(sem.sem().block().segment().address(), s.getLong("address"));
        assertNull(s.getThread("owner"));
        assertTrue(s.getBoolean("acquired"));
        assertEquals(1, got.get());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aConditionWaitIsRecordedWithTheLockAndWhetherItTimedOut(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        final PthreadCondition c = lock.newCondition();
        final List<RecordedEvent> events = recorded(() -> {
            lock.lock();
            try {
                assertFalse(c.await(1, TimeUnit.MILLISECONDS));
            } finally {
                lock.unlock();
            }
        });
        final RecordedEvent e = onlyEvent(events, ConditionWaitEvent.NAME, Thread.currentThread());
        assertEquals("PthreadCondition", e.getString("primitive"));
        assertEquals(ContendedAcquireEvent.nameOf(lock), e.getString("name"));
        assertEquals(c.cond().block().segment().address(), e.getLong("address"));
        assertEquals(f.name(), e.getString("backend"));
        assertTrue(e.getBoolean("timedOut"));
    }
}
