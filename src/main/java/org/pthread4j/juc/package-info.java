/**
 * The {@code java.util.concurrent} face of the library: {@link org.pthread4j.juc.PthreadLock}
 * ({@link java.util.concurrent.locks.Lock}, like {@code ReentrantLock}),
 * {@link org.pthread4j.juc.PthreadCondition} ({@link java.util.concurrent.locks.Condition}),
 * {@link org.pthread4j.juc.PthreadReadWriteLock} ({@link java.util.concurrent.locks.ReadWriteLock},
 * like {@code ReentrantReadWriteLock}) and {@link org.pthread4j.juc.PthreadSemaphore} (a
 * {@link java.util.concurrent.Semaphore}). Each adapts one musl primitive of
 * {@code org.pthread4j} and adds no synchronization algorithm: only the bookkeeping the
 * {@code java.util.concurrent} contracts ask for (hold counts, interrupts, exceptions), so code
 * written for the JDK's classes runs unchanged, with the state in off-heap memory that may be
 * shared with other processes.
 */
package org.pthread4j.juc;
