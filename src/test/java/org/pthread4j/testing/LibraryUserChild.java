package org.pthread4j.testing;

import org.agrona.concurrent.UnsafeBuffer;
import org.pthread4j.Barrier;
import org.pthread4j.BarrierAttr;
import org.pthread4j.Cond;
import org.pthread4j.CondAttr;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.Once;
import org.pthread4j.RwLock;
import org.pthread4j.RwLockAttr;
import org.pthread4j.Sem;
import org.pthread4j.SpinLock;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.ipc.FutexDoorbell;
import org.pthread4j.ipc.FutexIdleStrategy;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.juc.PthreadReadWriteLock;
import org.pthread4j.juc.PthreadSemaphore;
import org.pthread4j.memory.Memory;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A program using the library as a user's would, in a JVM started with the flags a test chooses
 * ({@code JvmFlagsTest}). It lives outside the library's packages so that it also runs with the
 * library on the module path. Each scenario prints one line: {@code ok SCENARIO}, or
 * {@code threw CLASS: MESSAGE} for the first exception it meets.
 * <pre>
 *   robust        lock and unlock a private robust mutex (system calls: gettid, set_robust_list)
 *   private       lock and unlock a private mutex on the default backend
 *   private-tour  every private primitive on every backend of the platform, contended by two
 *                 threads, and the juc adapters
 *   shared DIR    every primitive in a sync file in DIR, contended by two threads, and a futex
 *                 doorbell's idle strategy
 *   tour DIR      both
 *   unsafe-buffer wrap an Agrona UnsafeBuffer in a Memory
 * </pre>
 */
public final class LibraryUserChild {
    private LibraryUserChild() {
    }

    /**
     * Runs one scenario.
     *
     * @param args the scenario and its arguments
     */
    public static void main(final String[] args) {
        try {
            switch (args[0]) {
                case "robust" -> robust();
                case "private" -> privateMutex();
                case "private-tour" -> privateTour();
                case "shared" -> shared(Path.of(args[1]));
                case "tour" -> {
                    privateTour();
                    shared(Path.of(args[1]));
                }
                case "unsafe-buffer" -> unsafeBuffer();
                default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
            }
            System.out.println("ok " + args[0]);
        } catch (final Throwable e) {
            System.out.println("threw " + e.getClass().getName() + ": " + e.getMessage());
        }
    }

    private static void robust() {
        try (Memory memory = Memory.allocate(MutexLayout.SIZE)) {
            final Mutex m = new Mutex(memory.block(0, MutexLayout.SIZE, 8), MutexAttr.builder().robust(true).build());
            check(m.lock(), "lock");
            check(m.unlock(), "unlock");
        }
    }

    private static void privateMutex() {
        try (Memory memory = Memory.allocate(MutexLayout.SIZE)) {
            final Mutex m = new Mutex(memory.block(0, MutexLayout.SIZE, 8), MutexAttr.DEFAULT);
            check(m.lock(), "lock");
            check(m.unlock(), "unlock");
        }
    }

    private static void unsafeBuffer() {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(MutexLayout.SIZE));
        try (Memory memory = Memory.wrap(buffer, 0, MutexLayout.SIZE)) {
            final Mutex m = new Mutex(memory.block(0, MutexLayout.SIZE, 8), MutexAttr.DEFAULT);
            check(m.lock(), "lock");
            check(m.unlock(), "unlock");
        }
    }

    /** Every private primitive's sleeping and waking paths, on every backend of the platform. */
    private static void privateTour() throws InterruptedException {
        for (final Futex futex : Futexes.allPrivate()) {
            try (Memory memory = Memory.allocate(1024)) {
                final Mutex mutex = new Mutex(memory.block(0, 64, 8), MutexAttr.builder().futex(futex).build());
                final Cond cond = new Cond(memory.block(64, 64, 8), CondAttr.builder().futex(futex).build());
                final RwLock rwlock = new RwLock(memory.block(128, 64, 8), RwLockAttr.privateOn(futex));
                final Sem sem = new Sem(memory.block(192, 64, 8), false, 0, futex);
                final Barrier barrier = new Barrier(memory.block(256, 64, 8), BarrierAttr.privateOn(futex), 2);
                final Once once = new Once(memory.block(320, 64, 8), false, futex);
                final SpinLock spin = new SpinLock(memory.block(384, 64, 8));
                final Mutex recursive = new Mutex(memory.block(448, 64, 8),
                    MutexAttr.builder().type(MutexAttr.RECURSIVE).futex(futex).build());
                contend(mutex, cond, rwlock, sem, barrier);
                check(once.run(() -> { }), "once");
                check(spin.lock(), "spin lock");
                check(spin.unlock(), "spin unlock");
                check(recursive.lock(), "recursive lock");
                check(recursive.lock(), "recursive relock");
                check(recursive.unlock(), "recursive unlock");
                check(recursive.unlock(), "recursive unlock");
            }
        }
        juc();
    }

    /** Every primitive of a sync file, and a doorbell's idle strategy. */
    private static void shared(final Path dir) throws Exception {
        final Path path = dir.resolve("tour.sync");
        try (SyncFile file = SyncFile.create(path, 16)) {
            contend(file.mutex("m", MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).build()),
                file.cond("c"), file.rwlock("rw"), file.sem("s", 0), file.barrier("b", 2));
            check(file.once("o").run(() -> { }), "shared once");
            final FutexDoorbell bell = file.doorbell("bell");
            final FutexIdleStrategy idle = new FutexIdleStrategy(bell, 0, 0);
            final CountDownLatch idling = new CountDownLatch(1);
            final Thread consumer = Thread.ofPlatform().start(() -> {
                idling.countDown();
                idle.idle(0);
            });
            idling.await();
            while (consumer.isAlive()) {
                bell.ring();
                consumer.join(10);
            }
        } finally {
            SyncFile.unlink(path);
        }
    }

    /** A second thread sleeps on each primitive until this one wakes it. */
    private static void contend(final Mutex mutex, final Cond cond, final RwLock rwlock, final Sem sem,
                                final Barrier barrier) throws InterruptedException {
        final int[] turn = {0};
        final Thread other = Thread.ofPlatform().start(() -> {
            check(mutex.lock(), "lock");
            while (turn[0] == 0) {
                check(cond.await(mutex), "await");
            }
            check(mutex.unlock(), "unlock");
            check(rwlock.wrLock(), "wrlock");
            check(rwlock.unlock(), "rwlock unlock");
            check(sem.await(), "sem await");
            barrier.await();
        });
        check(mutex.lock(), "lock");
        turn[0] = 1;
        check(cond.signal(), "signal");
        check(mutex.unlock(), "unlock");
        check(rwlock.rdLock(), "rdlock");
        check(rwlock.unlock(), "rwlock unlock");
        check(sem.post(), "sem post");
        barrier.await();
        other.join();
    }

    private static void juc() throws InterruptedException {
        final PthreadLock lock = new PthreadLock();
        final Condition changed = lock.newCondition();
        final PthreadReadWriteLock rw = new PthreadReadWriteLock();
        final PthreadSemaphore permits = new PthreadSemaphore(0);
        final boolean[] done = {false};
        final Thread other = Thread.ofPlatform().start(() -> {
            lock.lock();
            try {
                done[0] = true;
                changed.signal();
            } finally {
                lock.unlock();
            }
            rw.writeLock().lock();
            rw.writeLock().unlock();
            permits.release();
        });
        lock.lock();
        try {
            while (!done[0]) {
                changed.await();
            }
        } finally {
            lock.unlock();
        }
        if (!permits.tryAcquire(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no permit within 60 s");
        }
        other.join();
    }

    private static void check(final int rc, final String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned " + rc);
        }
    }
}
