package org.pthread4j.juc;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.RwLockAttr;
import org.pthread4j.futex.Futex;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.juc.JucTestSupport.LIVENESS;

/**
 * 10,000 virtual threads on one private lock and on a condition handoff complete, on every
 * private backend, and never pin their carriers: the JDK's {@code jdk.VirtualThreadPinned} event
 * (recorded with a threshold of zero) never fires.
 *
 * <p>On the kernel backends a virtual thread must not wait inside the native {@code FUTEX_WAIT}:
 * that holds its carrier (JFR does not report it as pinning, the thread never tries to unmount),
 * and with more sleepers than carriers a holder that yielded inside the lock never got a carrier
 * back. {@link org.pthread4j.futex.LinuxFutex} parks virtual threads in the JVM instead.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VirtualThreadTest {
    private static final int THREADS = 10_000;

    /**
     * Records every {@code jdk.VirtualThreadPinned} event while a body runs, with a
     * {@link RecordingStream}, except a pin inside the class loader: the JVM resolves a class
     * the first time a virtual thread reaches code that names it (a lambda of a sleeping path
     * that only a contended wake takes, for instance) through an upcall into
     * {@link ClassLoader#loadClass}, which pins for that once, whatever the lock does.
     */
    private static List<String> pinnedEventsDuring(final ThrowingRunnable body) throws Exception {
        final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        try (RecordingStream rs = new RecordingStream()) {
            rs.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            rs.onEvent("jdk.VirtualThreadPinned", e -> {
                if (!resolvingAClass(e)) {
                    events.add(describe(e));
                }
            });
            rs.startAsync();
            body.run();
            rs.stop(); // returns once every recorded event was delivered
        }
        return new ArrayList<>(events);
    }

    private static boolean resolvingAClass(final RecordedEvent event) {
        final RecordedStackTrace trace = event.getStackTrace();
        return trace != null && trace.getFrames().stream().anyMatch(f -> f.getMethod().getName().equals("loadClass")
            && f.getMethod().getType().getName().equals(ClassLoader.class.getName()));
    }

    /** @return an event's duration and top frames */
    private static String describe(final RecordedEvent event) {
        final StringBuilder b = new StringBuilder("pinned for " + event.getDuration());
        final RecordedStackTrace trace = event.getStackTrace();
        if (trace != null) {
            for (final RecordedFrame f : trace.getFrames().subList(0, Math.min(12, trace.getFrames().size()))) {
                b.append("\n    at ").append(f.getMethod().getType().getName()).append('.')
                    .append(f.getMethod().getName()).append(':').append(f.getLineNumber());
            }
        }
        return b.toString();
    }

    /** A body that may throw. */
    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static void joinAll(final List<Thread> threads) throws InterruptedException {
        final long end = System.nanoTime() + LIVENESS.toNanos() * 4;
        for (final Thread t : threads) {
            final long left = end - System.nanoTime();
            assertTrue(left > 0 && t.join(Duration.ofNanos(left)), "a virtual thread did not finish (deadlock?): " + t);
        }
    }

    /** Classes a first use would load and initialize, loaded here so no virtual thread parks in an initializer. */
    private static void warmUp(final PthreadLock lock, final PthreadCondition cond) throws Exception {
        final Thread v = Thread.ofVirtual().start(() -> {
            lock.lock();
            try {
                cond.awaitNanos(1_000);
                cond.signalAll();
            } catch (final InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                lock.unlock();
            }
        });
        assertTrue(v.join(LIVENESS));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void tenThousandVirtualThreadsContendOnOneLockWithoutPinning(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        warmUp(lock, lock.newCondition());
        final int rounds = 10;
        final long[] counter = new long[1];
        final List<String> pinned = pinnedEventsDuring(() -> {
            final List<Thread> threads = new ArrayList<>(THREADS);
            lock.lock(); // hold it while they start, so they all contend and sleep
            try {
                for (int i = 0; i < THREADS; i++) {
                    threads.add(Thread.ofVirtual().start(() -> {
                        for (int r = 0; r < rounds; r++) {
                            lock.lock();
                            try {
                                counter[0]++;
                                if (r % 3 == 0) {
                                    Thread.yield(); // unmount while holding it
                                }
                            } finally {
                                lock.unlock();
                            }
                        }
                    }));
                }
                final long end = System.nanoTime() + LIVENESS.toNanos();
                while (lock.getQueueLength() < 100 && System.nanoTime() < end) {
                    Thread.sleep(1);
                }
                assertTrue(lock.getQueueLength() >= 100, "virtual threads queue on the lock: " + lock);
            } finally {
                lock.unlock();
            }
            joinAll(threads);
        });
        assertEquals((long) THREADS * rounds, counter[0]);
        assertFalse(lock.isLocked());
        assertEquals(List.of(), pinned, "virtual threads pinned their carriers");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void tenThousandVirtualThreadsHandOffThroughConditionsWithoutPinning(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        final PthreadCondition notEmpty = lock.newCondition();
        final PthreadCondition notFull = lock.newCondition();
        warmUp(lock, notEmpty);
        final int[] slot = new int[1];
        final boolean[] full = new boolean[1];
        final long[] sum = new long[1];
        final List<String> pinned = pinnedEventsDuring(() -> {
            final List<Thread> threads = new ArrayList<>(THREADS);
            for (int i = 0; i < THREADS / 2; i++) {
                final int item = i + 1;
                threads.add(Thread.ofVirtual().start(() -> {
                    lock.lock();
                    try {
                        while (full[0]) {
                            notFull.awaitUninterruptibly();
                        }
                        slot[0] = item;
                        full[0] = true;
                        notEmpty.signal();
                    } finally {
                        lock.unlock();
                    }
                }));
                threads.add(Thread.ofVirtual().start(() -> {
                    lock.lock();
                    try {
                        while (!full[0]) {
                            notEmpty.await();
                        }
                        sum[0] += slot[0];
                        full[0] = false;
                        notFull.signal();
                    } catch (final InterruptedException e) {
                        throw new AssertionError(e);
                    } finally {
                        lock.unlock();
                    }
                }));
            }
            joinAll(threads);
        });
        assertEquals((long) (THREADS / 2) * (THREADS / 2 + 1) / 2, sum[0]);
        assertFalse(full[0]);
        assertEquals(List.of(), pinned, "virtual threads pinned their carriers");
    }

    /**
     * A virtual thread blocked in a lock, a read-write lock, a condition or a semaphore shows as
     * {@code WAITING} on every backend (it is parked, not in a native call) and answers an
     * interrupt with {@link InterruptedException}.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aBlockedVirtualThreadIsParkedAndAnswersInterrupts(final Futex f) throws Exception {
        final PthreadLock lock = new PthreadLock(JucTestSupport.recursive(f));
        final PthreadCondition cond = lock.newCondition();
        final PthreadReadWriteLock rw = new PthreadReadWriteLock(RwLockAttr.privateOn(f));
        final PthreadSemaphore sem = new PthreadSemaphore(0, f);
        lock.lock();
        rw.writeLock().lock();
        try {
            blockedVirtualThreadAnswersAnInterrupt(lock::lockInterruptibly);
            blockedVirtualThreadAnswersAnInterrupt(() -> rw.readLock().lockInterruptibly());
            blockedVirtualThreadAnswersAnInterrupt(sem::acquire);
        } finally {
            rw.writeLock().unlock();
            lock.unlock();
        }
        blockedVirtualThreadAnswersAnInterrupt(() -> {
            lock.lock();
            try {
                cond.await();
            } finally {
                lock.unlock();
            }
        });
        assertFalse(lock.isLocked());
    }

    private static void blockedVirtualThreadAnswersAnInterrupt(final ThrowingRunnable blocking) throws Exception {
        final AtomicReference<Throwable> outcome = new AtomicReference<>();
        final Thread v = Thread.ofVirtual().start(() -> {
            try {
                blocking.run();
            } catch (final Throwable t) {
                outcome.set(t);
            }
        });
        JucTestSupport.assertShows(v, Thread.State.WAITING);
        v.interrupt();
        assertTrue(v.join(LIVENESS), "the interrupted virtual thread ended");
        assertInstanceOf(InterruptedException.class, outcome.get());
    }

    /** The check can fail: a virtual thread parking inside a class initializer is pinned, and seen. */
    @Test
    void thePinnedEventCheckSeesARealPin() throws Exception {
        final List<String> pinned = pinnedEventsDuring(() ->
            assertTrue(Thread.ofVirtual().start(ParksInItsInitializer::touch).join(LIVENESS)));
        assertFalse(pinned.isEmpty(), "a park in a class initializer pins, and the recording must see it");
    }

    /** Parks in its static initializer. */
    private static final class ParksInItsInitializer {
        static {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }

        static void touch() {
            // initializes the class
        }
    }
}
