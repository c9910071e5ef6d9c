package org.pthread4j.juc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.RwLockAttr;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Memory;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.juc.JucTestSupport.LIVENESS;

/**
 * The queue introspection of {@code ReentrantLock} and relatives: which threads wait for a lock
 * (known on the parking backend, which queues its sleepers in the JVM; the kernel backends
 * answer empty while the counts still count), which wait on a condition, and who owns a lock.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class QueueIntrospectionTest {
    /** Waits (within the liveness bound) until {@code condition} holds. */
    private static void await(final BooleanSupplier condition, final String what) {
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "never: " + what);
            Thread.yield();
        }
    }

    @Test
    void onTheParkingBackendTheLockListsExactlyTheThreadsAsleepOnIt() throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(Futexes.parking()));
        assertTrue(lock.getQueuedThreads().isEmpty());
        lock.lock();
        final JucTestSupport.Call<Void> first = JucTestSupport.Call.start("first", () -> {
            lock.lockInterruptibly();
            lock.unlock();
            return null;
        });
        await(() -> lock.hasQueuedThread(first.thread), "the first locker queued");
        final JucTestSupport.Call<Void> second = JucTestSupport.Call.start("second", () -> {
            lock.lockInterruptibly();
            lock.unlock();
            return null;
        });
        await(() -> lock.getQueuedThreads().equals(List.of(first.thread, second.thread)),
            "both lockers queued, in the order they came");
        assertFalse(lock.hasQueuedThread(Thread.currentThread()), "the owner does not wait");
        assertThrows(NullPointerException.class, () -> lock.hasQueuedThread(null));

        first.interruptExpectingInterruptedException();
        assertFalse(lock.hasQueuedThread(first.thread), "an interrupted locker left the queue");
        await(() -> lock.getQueuedThreads().equals(List.of(second.thread)), "the second locker alone queued");
        lock.unlock();
        second.assertResult(null);
        await(() -> lock.getQueuedThreads().isEmpty(), "the queue empty");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#sharedBackends")
    void onTheKernelBackendsTheThreadsAreCountedButNotListed(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        lock.lock();
        final JucTestSupport.Call<Void> locker = JucTestSupport.Call.start("locker", () -> {
            lock.lock();
            lock.unlock();
            return null;
        });
        await(() -> lock.getQueueLength() == 1, "the locker counted");
        assertTrue(lock.getQueuedThreads().isEmpty(), "the kernel does not tell which threads sleep");
        assertFalse(lock.hasQueuedThread(locker.thread));
        lock.unlock();
        locker.assertResult(null);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void getOwnerNamesTheHoldingThreadOfThisProcess(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        assertNull(lock.getOwner());
        lock.lock();
        assertSame(Thread.currentThread(), lock.getOwner());
        lock.unlock();
        assertNull(lock.getOwner());
        for (final Thread.Builder builder : List.of(Thread.ofPlatform(), Thread.ofVirtual())) {
            final CountDownLatch held = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            final Thread holder = builder.start(() -> {
                lock.lock();
                held.countDown();
                try {
                    release.await();
                } catch (final InterruptedException e) {
                    throw new AssertionError(e);
                } finally {
                    lock.unlock();
                }
            });
            assertTrue(held.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            assertSame(holder, lock.getOwner(), holder.toString());
            release.countDown();
            assertTrue(holder.join(LIVENESS));
            assertNull(lock.getOwner());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void getWaitingThreadsListsTheConditionsWaitersUntilTheyAreSignalled(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        final PthreadCondition c = lock.newCondition();
        assertThrows(IllegalMonitorStateException.class, () -> lock.getWaitingThreads(c));
        lock.lock();
        assertTrue(lock.getWaitingThreads(c).isEmpty());
        assertThrows(NullPointerException.class, () -> lock.getWaitingThreads(null));
        assertThrows(IllegalArgumentException.class, () -> lock.getWaitingThreads(new PthreadLock().newCondition()));
        lock.unlock();
        final JucTestSupport.Call<Void> a = waiter("a", lock, c);
        final JucTestSupport.Call<Void> b = waiter("b", lock, c);
        await(() -> waiting(lock, c).equals(List.of(a.thread, b.thread)) || waiting(lock, c).equals(
            List.of(b.thread, a.thread)), "both waiters listed");
        lock.lock();
        c.signalAll();
        assertTrue(lock.getWaitingThreads(c).isEmpty(), "signalled waiters wait for the lock, not on the condition");
        assertEquals(0, lock.getWaitQueueLength(c));
        lock.unlock();
        a.assertResult(null);
        b.assertResult(null);
    }

    private static JucTestSupport.Call<Void> waiter(final String name, final PthreadLock lock, final Condition c)
        throws InterruptedException {
        return JucTestSupport.Call.start(name, () -> {
            lock.lock();
            try {
                c.await();
            } finally {
                lock.unlock();
            }
            return null;
        });
    }

    private static List<Thread> waiting(final PthreadLock lock, final Condition c) {
        lock.lock();
        try {
            return List.copyOf(lock.getWaitingThreads(c));
        } finally {
            lock.unlock();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#sharedBackends")
    void aProcessSharedConditionCountsItsWaitersButCannotNameThem(final Futex f) throws Exception {
        try (Memory memory = Memory.allocate(256)) {
            final PthreadLock lock = new PthreadLock(memory.block(0, MutexLayout.SIZE, MutexLayout.ALIGNMENT),
                MutexAttr.builder().type(MutexAttr.RECURSIVE).pshared(true).futex(f).build());
            final PthreadCondition c = lock.newCondition(memory.block(128, org.pthread4j.CondLayout.SIZE,
                org.pthread4j.CondLayout.ALIGNMENT), org.pthread4j.CondAttr.builder().pshared(true).futex(f).build());
            final JucTestSupport.Call<Void> w = JucTestSupport.Call.start("waiter", () -> {
                lock.lock();
                try {
                    c.awaitUninterruptibly();
                } finally {
                    lock.unlock();
                }
                return null;
            });
            await(() -> {
                lock.lock();
                try {
                    return lock.getWaitQueueLength(c) == 1;
                } finally {
                    lock.unlock();
                }
            }, "the waiter counted");
            lock.lock();
            assertTrue(lock.getWaitingThreads(c).isEmpty(), "its waiters may be in other processes");
            c.signal();
            lock.unlock();
            w.assertResult(null);
        }
    }

    @Test
    void theReadWriteLockListsItsSleepersOwnerAndConditionWaiters() throws Exception {
        final PthreadReadWriteLock rw = new PthreadReadWriteLock(RwLockAttr.privateOn(Futexes.parking()));
        final Condition c = rw.writeLock().newCondition();
        assertNull(rw.getOwner());
        rw.writeLock().lock();
        assertSame(Thread.currentThread(), rw.getOwner());
        final JucTestSupport.Call<Void> reader = JucTestSupport.Call.start("reader", () -> {
            rw.readLock().lock();
            rw.readLock().unlock();
            return null;
        });
        final JucTestSupport.Call<Void> writer = JucTestSupport.Call.start("writer", () -> {
            rw.writeLock().lock();
            rw.writeLock().unlock();
            return null;
        });
        await(() -> Set.copyOf(rw.getQueuedThreads()).equals(Set.of(reader.thread, writer.thread)),
            "a reader and a writer queued");
        assertTrue(rw.hasQueuedThread(reader.thread));
        assertTrue(rw.hasQueuedThread(writer.thread));
        assertTrue(rw.getWaitingThreads(c).isEmpty());
        rw.writeLock().unlock();
        reader.assertResult(null);
        writer.assertResult(null);
        assertNull(rw.getOwner());

        final JucTestSupport.Call<Void> waiter = JucTestSupport.Call.start("waiter", () -> {
            rw.writeLock().lock();
            try {
                c.await();
            } finally {
                rw.writeLock().unlock();
            }
            return null;
        });
        await(() -> {
            rw.writeLock().lock();
            try {
                return rw.getWaitingThreads(c).equals(List.of(waiter.thread));
            } finally {
                rw.writeLock().unlock();
            }
        }, "the waiter listed");
        rw.writeLock().lock();
        c.signal();
        assertTrue(rw.getWaitingThreads(c).isEmpty());
        rw.writeLock().unlock();
        waiter.assertResult(null);
        assertThrows(IllegalMonitorStateException.class, () -> rw.getWaitingThreads(c));
    }

    @Test
    void theSemaphoreListsItsSleepersOnTheParkingBackend() throws Exception {
        final PthreadSemaphore s = new PthreadSemaphore(0, Futexes.parking());
        final JucTestSupport.Call<Void> acquirer = JucTestSupport.Call.start("acquirer", () -> {
            s.acquire();
            return null;
        });
        await(() -> s.getQueuedThreads().equals(List.of(acquirer.thread)), "the acquirer listed");
        s.release();
        acquirer.assertResult(null);
        await(() -> s.getQueuedThreads().isEmpty(), "nobody listed");

        final PthreadSemaphore k = new PthreadSemaphore(0, Futexes.linux());
        final JucTestSupport.Call<Void> sleeper = JucTestSupport.Call.start("sleeper", () -> {
            k.acquire();
            return null;
        });
        await(() -> k.getWaiterCount() == 1, "the sleeper counted");
        assertTrue(k.getQueuedThreads().isEmpty(), "the kernel does not tell which threads sleep");
        k.release();
        sleeper.assertResult(null);
    }
}
