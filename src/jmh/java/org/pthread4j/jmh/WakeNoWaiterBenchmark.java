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
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A wake with no waiter, per backend and for private and shared words: what an unlock would
 * pay if it woke without checking for sleepers. {@code unparkNotParked} is the Java floor:
 * {@code LockSupport.unpark} of a thread that is not parked.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Flags.NATIVE_ACCESS, Flags.ADD_EXPORTS, Flags.MISC})
public class WakeNoWaiterBenchmark {
    /** The backend: parking, linux, linux-noprivate, or linux-shared (a shared word). */
    @Param({"parking", "linux", "linux-noprivate", "linux-shared"})
    public String backend;

    private Memory memory;
    private MemorySegment seg;
    private Futex futex;
    private boolean priv;

    /** Allocates the word. */
    @Setup
    public void setUp() {
        memory = Memory.allocate(64);
        seg = memory.segment();
        priv = !backend.equals("linux-shared");
        futex = Futexes.byName(priv ? backend : "linux");
    }

    /** Frees the word. */
    @TearDown
    public void tearDown() {
        memory.close();
    }

    /** @return the wake's result (0) */
    @Benchmark
    public int wake() {
        return futex.wake(seg, 0, 1, priv);
    }

    /** The reference: unpark of the running thread itself (its permit is already set). */
    @Benchmark
    public void unparkNotParked() {
        LockSupport.unpark(Thread.currentThread());
    }
}
