package org.pthread4j.jmh;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.juc.PthreadReadWriteLock;
import org.pthread4j.juc.PthreadSemaphore;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The uncontended lock path of a futex word, as musl's normal mutex does it: lock is a CAS
 * 0 -> 1 that must witness 0 ({@code a_cas}), unlock a swap to 0 whose old value tells
 * whether anyone waits ({@code a_swap}). The same two operations on a {@link Block} (the
 * library's memory segment VarHandle with its bounds and liveness checks), on a raw segment
 * VarHandle, on an Agrona {@link UnsafeBuffer} over the same memory, and on an
 * {@link AtomicInteger}; {@link ReentrantLock} for scale. This answers whether a segment
 * VarHandle costs more than UnsafeBuffer on the uncontended path (a prototype had measured
 * UnsafeBuffer's CAS about 15% faster).
 *
 * <p>The {@code java.util.concurrent} adapters' uncontended calls, each next to the JDK class
 * it replaces: their JFR events ({@code org.pthread4j.ContendedAcquire}) are made only after a
 * failed try, so these paths must cost the same with the events disabled, enabled
 * ({@code -jvmArgsAppend -XX:StartFlightRecording}), or absent (a build without them).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Flags.NATIVE_ACCESS, Flags.ADD_EXPORTS, Flags.MISC})
public class UncontendedLockBenchmark {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private Memory memory;
    private Block block;
    private MemorySegment segment;
    private UnsafeBuffer buffer;
    private final AtomicInteger atomic = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final PthreadLock pthreadLock = new PthreadLock();
    private final ReentrantReadWriteLock readWriteLock = new ReentrantReadWriteLock();
    private final PthreadReadWriteLock pthreadReadWriteLock = new PthreadReadWriteLock();
    private final Semaphore semaphore = new Semaphore(1);
    private final PthreadSemaphore pthreadSemaphore = new PthreadSemaphore(1);

    /** Allocates one word, seen through each API. */
    @Setup
    public void setUp() {
        memory = Memory.allocate(64);
        block = memory.block(0, 40, 8);
        segment = block.segment();
        buffer = new UnsafeBuffer(segment.address(), 64);
    }

    /** Frees the word. */
    @TearDown
    public void tearDown() {
        memory.close();
    }

    /** @return the unlock's old value (1) */
    @Benchmark
    public int block() {
        if (block.cas(4, 0, 1) != 0) {
            throw new IllegalStateException();
        }
        return block.getAndSet(4, 0);
    }

    /** @return the unlock's old value (1) */
    @Benchmark
    public int segmentVarHandle() {
        if ((int) INT.compareAndExchange(segment, 4L, 0, 1) != 0) {
            throw new IllegalStateException();
        }
        return (int) INT.getAndSet(segment, 4L, 0);
    }

    /** @return the unlock's old value (1) */
    @Benchmark
    public int unsafeBuffer() {
        if (buffer.compareAndExchangeInt(4, 0, 1) != 0) {
            throw new IllegalStateException();
        }
        return buffer.getAndSetInt(4, 0);
    }

    /** @return the unlock's old value (1) */
    @Benchmark
    public int atomicInteger() {
        if (atomic.compareAndExchange(0, 1) != 0) {
            throw new IllegalStateException();
        }
        return atomic.getAndSet(0);
    }

    /** @return 0: CAS lock, then a volatile store to unlock (what ReentrantLock's release does) */
    @Benchmark
    public int atomicIntegerStore() {
        if (atomic.compareAndExchange(0, 1) != 0) {
            throw new IllegalStateException();
        }
        atomic.set(0);
        return 0;
    }

    /** @return the unlock's witness (1): CAS lock, CAS unlock */
    @Benchmark
    public int atomicIntegerCasUnlock() {
        if (atomic.compareAndExchange(0, 1) != 0) {
            throw new IllegalStateException();
        }
        return atomic.compareAndExchange(1, 0);
    }

    /** For scale: j.u.c's uncontended lock and unlock. */
    @Benchmark
    public void reentrantLock() {
        lock.lock();
        lock.unlock();
    }

    /** The Lock adapter's uncontended lock and unlock. */
    @Benchmark
    public void pthreadLock() {
        pthreadLock.lock();
        pthreadLock.unlock();
    }

    /**
     * j.u.c's uncontended lockInterruptibly and unlock.
     *
     * @throws InterruptedException never (nobody interrupts)
     */
    @Benchmark
    public void reentrantLockInterruptibly() throws InterruptedException {
        lock.lockInterruptibly();
        lock.unlock();
    }

    /**
     * The Lock adapter's uncontended lockInterruptibly and unlock.
     *
     * @throws InterruptedException never (nobody interrupts)
     */
    @Benchmark
    public void pthreadLockInterruptibly() throws InterruptedException {
        pthreadLock.lockInterruptibly();
        pthreadLock.unlock();
    }

    /** j.u.c's uncontended read lock and unlock. */
    @Benchmark
    public void reentrantReadLock() {
        readWriteLock.readLock().lock();
        readWriteLock.readLock().unlock();
    }

    /** The read-write adapter's uncontended read lock and unlock. */
    @Benchmark
    public void pthreadReadLock() {
        pthreadReadWriteLock.readLock().lock();
        pthreadReadWriteLock.readLock().unlock();
    }

    /** j.u.c's uncontended write lock and unlock. */
    @Benchmark
    public void reentrantWriteLock() {
        readWriteLock.writeLock().lock();
        readWriteLock.writeLock().unlock();
    }

    /** The read-write adapter's uncontended write lock and unlock. */
    @Benchmark
    public void pthreadWriteLock() {
        pthreadReadWriteLock.writeLock().lock();
        pthreadReadWriteLock.writeLock().unlock();
    }

    /**
     * j.u.c's uncontended acquire and release.
     *
     * @throws InterruptedException never (nobody interrupts)
     */
    @Benchmark
    public void semaphore() throws InterruptedException {
        semaphore.acquire();
        semaphore.release();
    }

    /**
     * The semaphore adapter's uncontended acquire and release.
     *
     * @throws InterruptedException never (nobody interrupts)
     */
    @Benchmark
    public void pthreadSemaphore() throws InterruptedException {
        pthreadSemaphore.acquire();
        pthreadSemaphore.release();
    }
}
