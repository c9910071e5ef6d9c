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
import org.pthread4j.MutexLayout;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.FutexTrace;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * What the futex trace costs. With the trace off, a futex operation pays one volatile read of
 * a static field; the uncontended lock and unlock of a mutex make no futex operation at all, so
 * they cannot pay anything. Each figure is measured with the trace off and on:
 * {@code mutexLockUnlock} and {@code errorcheckLockUnlock} (the uncontended paths, which must
 * not move), {@code casSwap} (the same two atomics on a bare word, the floor under the mutex),
 * and {@code wakeNoWaiter} on the parking backend (an operation the trace records, to show what
 * recording costs when it is on).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Flags.NATIVE_ACCESS, Flags.ADD_EXPORTS, Flags.MISC})
public class TraceOverheadBenchmark {
    /** Whether the trace records. */
    @Param({"off", "on"})
    public String trace;

    private Memory memory;
    private Mutex normal;
    private Mutex errorcheck;
    private Block word;
    private MemorySegment seg;
    private Futex parking;

    /** Makes the mutexes and switches the trace. */
    @Setup
    public void setUp() {
        memory = Memory.allocate(256);
        normal = new Mutex(memory.block(0, MutexLayout.SIZE, 8), MutexAttr.DEFAULT);
        errorcheck = new Mutex(memory.block(64, MutexLayout.SIZE, 8),
            MutexAttr.builder().type(MutexAttr.ERRORCHECK).build());
        word = memory.block(128, 8, 8);
        seg = memory.segment();
        parking = Futexes.parking();
        if (trace.equals("on")) {
            FutexTrace.enable(FutexTrace.DEFAULT_CAPACITY);
        } else {
            FutexTrace.disable();
        }
    }

    /** Switches the trace off and frees the memory. */
    @TearDown
    public void tearDown() {
        FutexTrace.disable();
        memory.close();
    }

    /** @return unlock's result (0) */
    @Benchmark
    public int mutexLockUnlock() {
        normal.lock();
        return normal.unlock();
    }

    /** @return unlock's result (0) */
    @Benchmark
    public int errorcheckLockUnlock() {
        errorcheck.lock();
        return errorcheck.unlock();
    }

    /** @return the swap's old value (16) */
    @Benchmark
    public int casSwap() {
        if (word.cas(0, 0, 16) != 0) {
            throw new IllegalStateException();
        }
        return word.getAndSet(0, 0);
    }

    /** @return the wake's result (0) */
    @Benchmark
    public int wakeNoWaiter() {
        return parking.wake(seg, 192, 1, true);
    }
}
