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
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The uncontended lock path of a futex word, as musl's normal mutex does it: lock is a CAS
 * 0 -> 1 that must witness 0 ({@code a_cas}), unlock a swap to 0 whose old value tells
 * whether anyone waits ({@code a_swap}). The same two operations on a {@link Block} (the
 * library's memory segment VarHandle with its bounds and liveness checks), on a raw segment
 * VarHandle, on an Agrona {@link UnsafeBuffer} over the same memory, and on an
 * {@link AtomicInteger}; {@link ReentrantLock} for scale. This answers whether a segment
 * VarHandle costs more than UnsafeBuffer on the uncontended path (a prototype had measured
 * UnsafeBuffer's CAS about 15% faster).
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
}
