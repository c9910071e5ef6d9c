package org.pthread4j.juc;

import org.junit.jupiter.api.Test;
import org.pthread4j.SleepProtocol;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.juc.JucTestSupport.LIVENESS;

/**
 * The fair modes of the adapters: {@code PthreadLock(true)}, {@code PthreadReadWriteLock(true)}
 * and {@code PthreadSemaphore(permits, true)} answer {@code isFair()}, serve their waiters in
 * FIFO order, count them in their queue length, survive waiters that time out or are
 * interrupted, and serialize their fairness.
 */
class FairAdaptersTest {

    @Test
    void fairnessIsReported() {
        assertTrue(new PthreadLock(true).isFair());
        assertFalse(new PthreadLock(false).isFair());
        assertFalse(new PthreadLock().isFair());
        assertEquals(SleepProtocol.FAIR, new PthreadLock(true).mutex().sleepProtocol());
        assertTrue(new PthreadReadWriteLock(true).isFair());
        assertFalse(new PthreadReadWriteLock(false).isFair());
        assertFalse(new PthreadReadWriteLock().isFair());
        assertTrue(new PthreadSemaphore(1, true).isFair());
        assertFalse(new PthreadSemaphore(1, false).isFair());
        assertFalse(new PthreadSemaphore(1).isFair());
    }

    @Test
    void fairnessSurvivesSerialization() throws Exception {
        assertTrue(copy(new PthreadLock(true)).isFair());
        assertFalse(copy(new PthreadLock(false)).isFair());
        assertTrue(copy(new PthreadReadWriteLock(true)).isFair());
        assertFalse(copy(new PthreadReadWriteLock(false)).isFair());
        final PthreadSemaphore s = copy(new PthreadSemaphore(3, true));
        assertTrue(s.isFair());
        assertEquals(3, s.availablePermits());
        assertFalse(copy(new PthreadSemaphore(3, false)).isFair());
    }

    /** A lock and its queue: three threads queued in turn acquire in that order, counted while they wait. */
    @Test
    void fairLockServesInFifoOrderAndCountsItsQueue() throws Exception {
        final QueuedLock lock = new QueuedLock();
        lock.lock();
        final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        final List<CompletableFuture<Void>> done = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            final int index = i;
            final CompletableFuture<Void> f = new CompletableFuture<>();
            done.add(f);
            threads.add(Thread.ofPlatform().daemon().start(() -> runQuietly(f, () -> {
                lock.lock();
                order.add(index);
                lock.unlock();
            })));
            awaitQueue(lock::getQueueLength, i + 1);
        }
        assertTrue(lock.hasQueuedThreads());
        for (final Thread t : threads) {
            awaitQueued(lock, t);
        }
        assertTrue(lock.tryLock(0, TimeUnit.SECONDS), "the owner's relock only counts, even with threads queued");
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        for (final CompletableFuture<Void> f : done) {
            f.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        }
        assertEquals(List.of(0, 1, 2), order);
        assertEquals(0, lock.getQueueLength());
    }

    /** A timed waiter and an interrupted one leave the fair lock's queue; the others still get it, in order. */
    @Test
    void fairLockWaitersThatLeaveDoNotBreakTheQueue() throws Exception {
        final PthreadLock lock = new PthreadLock(true);
        lock.lock();
        final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Boolean> timed = new CompletableFuture<>();
        final CompletableFuture<Void> first = queue(lock, order, 0);
        awaitQueue(lock::getQueueLength, 1);
        Thread.ofPlatform().daemon().start(() -> runQuietly(new CompletableFuture<>(), () -> {
            try {
                timed.complete(lock.tryLock(300, TimeUnit.MILLISECONDS));
            } catch (final InterruptedException e) {
                timed.completeExceptionally(e);
            }
        }));
        awaitQueue(lock::getQueueLength, 2);
        final CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        final Thread t = Thread.ofPlatform().daemon().start(() -> {
            try {
                lock.lockInterruptibly();
                interrupted.complete(false);
            } catch (final InterruptedException e) {
                interrupted.complete(true);
            }
        });
        awaitQueue(lock::getQueueLength, 3);
        final CompletableFuture<Void> last = queue(lock, order, 3);
        awaitQueue(lock::getQueueLength, 4);
        t.interrupt();
        assertTrue(interrupted.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
        assertFalse(timed.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(2, lock.getQueueLength());
        lock.unlock();
        first.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        last.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(List.of(0, 3), order);
        assertFalse(lock.isLocked());
        assertTrue(lock.tryLock());
        lock.unlock();
    }

    /** A reader that arrives after a waiting writer enters after it (musl's reader preference would let it in). */
    @Test
    void fairReadWriteLockQueuesAReaderBehindAWaitingWriter() throws Exception {
        final PthreadReadWriteLock rw = new PthreadReadWriteLock(true);
        rw.readLock().lock();
        final List<String> order = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Void> writer = queue(rw.writeLock(), order, "writer");
        awaitQueue(rw::getQueueLength, 1);
        final CompletableFuture<Void> reader = queue(rw.readLock(), order, "reader");
        awaitQueue(rw::getQueueLength, 2);
        assertTrue(rw.hasQueuedThreads());
        assertTrue(rw.readLock().tryLock(0, TimeUnit.SECONDS), "a reentrant read only counts, even with a writer queued");
        assertEquals(2, rw.getReadHoldCount());
        rw.readLock().unlock();
        assertEquals(1, rw.getReadHoldCount());
        rw.readLock().unlock();
        writer.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        reader.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(List.of("writer", "reader"), order);
        assertEquals(0, rw.getQueueLength());
        assertFalse(rw.isWriteLocked());
    }

    /** The fair rwlock: a timed writer that gives up in the queue does not hold back the reader behind it. */
    @Test
    void fairReadWriteLockTimedWaiterLeaves() throws Exception {
        final PthreadReadWriteLock rw = new PthreadReadWriteLock(true);
        rw.writeLock().lock();
        final CompletableFuture<Boolean> timed = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                timed.complete(rw.writeLock().tryLock(200, TimeUnit.MILLISECONDS));
            } catch (final InterruptedException e) {
                timed.completeExceptionally(e);
            }
        });
        awaitQueue(rw::getQueueLength, 1);
        final List<String> order = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Void> reader = queue(rw.readLock(), order, "reader");
        awaitQueue(rw::getQueueLength, 2);
        assertFalse(timed.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
        rw.writeLock().unlock();
        reader.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(List.of("reader"), order);
        assertTrue(rw.writeLock().tryLock());
        rw.writeLock().unlock();
    }

    /**
     * A fair semaphore serves a large request at the head of its queue before a small one behind
     * it, though the small one could be served first; the untimed tryAcquire still barges.
     */
    @Test
    void fairSemaphoreServesTheHeadOfItsQueueFirst() throws Exception {
        final PthreadSemaphore s = new PthreadSemaphore(0, true);
        final List<String> order = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Void> big = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> runQuietly(big, () -> {
            s.acquireUninterruptibly(2);
            order.add("two");
        }));
        awaitQueue(s::getWaiterCount, 1);
        final CompletableFuture<Void> small = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> runQuietly(small, () -> {
            s.acquireUninterruptibly(1);
            order.add("one");
        }));
        awaitQueue(s::getWaiterCount, 2);
        s.release(1);
        assertTrue(s.tryAcquire(), "the untimed tryAcquire barges, as Semaphore's");
        assertFalse(s.tryAcquire(0, TimeUnit.SECONDS), "the timed one queues");
        s.release(1);
        s.release(1);
        big.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        s.release(1);
        small.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(List.of("two", "one"), order);
        assertEquals(0, s.getWaiterCount());
        assertEquals(0, s.availablePermits());
    }

    /** A fair semaphore's waiter that times out or is interrupted leaves the queue, and the next one is served. */
    @Test
    void fairSemaphoreWaitersThatLeaveDoNotBreakTheQueue() throws Exception {
        final PthreadSemaphore s = new PthreadSemaphore(0, true);
        final CompletableFuture<Boolean> timed = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                timed.complete(s.tryAcquire(200, TimeUnit.MILLISECONDS));
            } catch (final InterruptedException e) {
                timed.completeExceptionally(e);
            }
        });
        awaitQueue(s::getWaiterCount, 1);
        final CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        final Thread t = Thread.ofPlatform().daemon().start(() -> {
            try {
                s.acquire();
                interrupted.complete(false);
            } catch (final InterruptedException e) {
                interrupted.complete(true);
            }
        });
        awaitQueue(s::getWaiterCount, 2);
        final CompletableFuture<Void> last = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> runQuietly(last, s::acquireUninterruptibly));
        awaitQueue(s::getWaiterCount, 3);
        t.interrupt();
        assertTrue(interrupted.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
        assertFalse(timed.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
        s.release();
        last.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(0, s.getWaiterCount());
    }

    /** A condition of a fair lock: a waiter released by a signal relocks through the queue (no requeue onto a fair word). */
    @Test
    void aFairLocksConditionWorks() throws Exception {
        final PthreadLock lock = new PthreadLock(true);
        final java.util.concurrent.locks.Condition ready = lock.newCondition();
        final boolean[] flag = new boolean[1];
        final CompletableFuture<Void> waiter = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> runQuietly(waiter, () -> {
            lock.lock();
            try {
                while (!flag[0]) {
                    ready.awaitUninterruptibly();
                }
            } finally {
                lock.unlock();
            }
        }));
        final long end = System.nanoTime() + LIVENESS.toNanos();
        for (;;) {
            lock.lock();
            try {
                if (lock.hasWaiters(ready)) {
                    flag[0] = true;
                    ready.signalAll();
                    break;
                }
            } finally {
                lock.unlock();
            }
            assertTrue(System.nanoTime() < end, "the waiter never waited");
            Thread.sleep(1);
        }
        waiter.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        assertFalse(lock.isLocked());
        assertEquals(0, lock.getQueueLength());
    }

    @Test
    void fairWriteLockStillRefusesAnUpgrade() {
        final PthreadReadWriteLock rw = new PthreadReadWriteLock(true);
        rw.readLock().lock();
        assertThrows(IllegalMonitorStateException.class, () -> rw.writeLock().lock());
        rw.readLock().unlock();
    }

    // ---------------------------------------------------------------------------------------

    /** A fair lock whose queued threads the test can see. */
    static final class QueuedLock extends PthreadLock {
        QueuedLock() {
            super(true);
        }

        java.util.Collection<Thread> queued() {
            return getQueuedThreads();
        }
    }

    private static void awaitQueued(final QueuedLock lock, final Thread t) throws InterruptedException {
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (!lock.hasQueuedThread(t)) {
            if (System.nanoTime() > end) {
                throw new AssertionError(t + " not seen queued on " + lock + ": " + lock.queued());
            }
            Thread.sleep(1);
        }
    }

    private static void awaitQueue(final IntSupplier length, final int n) throws InterruptedException {
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (length.getAsInt() < n) {
            if (System.nanoTime() > end) {
                throw new AssertionError("queue length " + length.getAsInt() + ", not " + n);
            }
            Thread.sleep(1);
        }
    }

    private static <T> CompletableFuture<Void> queue(final Lock lock, final List<T> order, final T name) {
        final CompletableFuture<Void> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> runQuietly(f, () -> {
            lock.lock();
            order.add(name);
            lock.unlock();
        }));
        return f;
    }

    private static void runQuietly(final CompletableFuture<Void> f, final Runnable body) {
        try {
            body.run();
            f.complete(null);
        } catch (final Throwable t) {
            f.completeExceptionally(t);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T copy(final T object) throws Exception {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(object);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (T) in.readObject();
        }
    }
}
