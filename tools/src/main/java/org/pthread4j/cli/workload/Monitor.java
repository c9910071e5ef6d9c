package org.pthread4j.cli.workload;

import org.pthread4j.Cond;
import org.pthread4j.Mutex;
import org.pthread4j.memory.Memory;

import java.io.IOException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A mutex with one condition variable, as seed 002's condvar benchmarks use them: the library's
 * {@link Mutex} and {@link Cond} in a {@link BenchBackends.Place}, or the reference,
 * {@code ReentrantLock} and its {@code Condition}. Every method fails loudly on an error result.
 */
interface Monitor extends AutoCloseable {
    /** Locks the mutex. */
    void lock();

    /** Unlocks the mutex. */
    void unlock();

    /** Waits on the condition variable; the caller holds the mutex. */
    void await();

    /** Wakes one waiter (signal); the caller holds the mutex. */
    void signal();

    /** Wakes every waiter (broadcast); the caller holds the mutex. */
    void signalAll();

    /** Frees the memory, if any. */
    @Override
    default void close() {
    }

    /** @return {@code ReentrantLock} and a {@code Condition} of it, non-fair as by default */
    static Monitor juc() {
        final ReentrantLock lock = new ReentrantLock();
        final Condition cond = lock.newCondition();
        return new Monitor() {
            @Override
            public void lock() {
                lock.lock();
            }

            @Override
            public void unlock() {
                lock.unlock();
            }

            @Override
            public void await() {
                cond.awaitUninterruptibly();
            }

            @Override
            public void signal() {
                cond.signal();
            }

            @Override
            public void signalAll() {
                cond.signalAll();
            }
        };
    }

    /**
     * @param place where the mutex and the condvar live and sleep
     * @return a NORMAL {@link Mutex} and a {@link Cond}, private on the place's backend (so the
     *     condvar can requeue onto the mutex) or both process-shared
     * @throws IOException when shared memory cannot be mapped
     */
    static Monitor of(final BenchBackends.Place place) throws IOException {
        final Memory memory = place.memory(128);
        final Mutex mutex = place.mutex(memory, 0);
        final Cond cond = place.cond(memory, 64);
        return new Monitor() {
            @Override
            public void lock() {
                BenchBackends.check(mutex.lock(), "pthread_mutex_lock");
            }

            @Override
            public void unlock() {
                BenchBackends.check(mutex.unlock(), "pthread_mutex_unlock");
            }

            @Override
            public void await() {
                BenchBackends.check(cond.await(mutex), "pthread_cond_wait");
            }

            @Override
            public void signal() {
                BenchBackends.check(cond.signal(), "pthread_cond_signal");
            }

            @Override
            public void signalAll() {
                BenchBackends.check(cond.broadcast(), "pthread_cond_broadcast");
            }

            @Override
            public void close() {
                memory.close();
            }
        };
    }
}
