package org.pthread4j.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.memory.Memory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Seed 000's lock/unlock with an empty critical section, one JMH method per lock so each
 * call site stays monomorphic: {@code ReentrantLock}, the library's {@link Mutex} (NORMAL and
 * RECURSIVE) and {@link PthreadLock}. Run with {@code -t 1} for the uncontended cost and
 * {@code -t 2} (all threads on one shared lock) for contention.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Flags.NATIVE_ACCESS, Flags.ADD_EXPORTS, Flags.MISC})
public class MutexBenchmark {
    /** The mutex kind: NORMAL or RECURSIVE. */
    @Param({"NORMAL", "RECURSIVE"})
    public String kind;

    private Memory memory;
    private Mutex mutex;
    private final ReentrantLock reentrantLock = new ReentrantLock();
    private Lock pthreadLock;

    /** Makes the locks. */
    @Setup
    public void setUp() {
        memory = Memory.allocate(64);
        final int type = "NORMAL".equals(kind) ? MutexAttr.NORMAL : MutexAttr.RECURSIVE;
        mutex = new Mutex(memory.block(0, 40, 8), MutexAttr.builder().type(type).build());
        pthreadLock = new PthreadLock();
    }

    /** Frees the mutex. */
    @TearDown
    public void tearDown() {
        memory.close();
    }

    /** The reference. */
    @Benchmark
    public void reentrantLock() {
        reentrantLock.lock();
        reentrantLock.unlock();
    }

    /** The library's mutex. */
    @Benchmark
    public void mutex() {
        mutex.lock();
        mutex.unlock();
    }

    /** The Lock adapter (RECURSIVE). */
    @Benchmark
    public void pthreadLock() {
        pthreadLock.lock();
        pthreadLock.unlock();
    }
}
