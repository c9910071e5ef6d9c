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
import org.pthread4j.RwLock;
import org.pthread4j.RwLockAttr;
import org.pthread4j.RwLockLayout;
import org.pthread4j.juc.PthreadReadWriteLock;
import org.pthread4j.memory.Memory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The read-mostly mix of {@code ./pthread4j bench juc} (each thread writes a pair under the write
 * lock once in ten operations and reads it under the read lock otherwise), one JVM per lock so
 * that no other lock's code shares its JIT profile: {@code ReentrantReadWriteLock},
 * {@link PthreadReadWriteLock}, and the bare {@link RwLock} under it. Run with {@code -t 2} or
 * {@code -t 4}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Flags.NATIVE_ACCESS, Flags.ADD_EXPORTS, Flags.MISC})
public class ReadWriteLockBenchmark {
    /** Which lock: {@code jdk}, {@code adapter} or {@code rwlock}. */
    @Param({"jdk", "adapter", "rwlock"})
    public String impl;

    private ReadWriteLock rwl;
    private Memory memory;
    private RwLock raw;
    private final long[] pair = new long[2];

    /** Per-thread position in the mix. */
    @State(Scope.Thread)
    public static class Turn {
        int k;
    }

    /** Makes the lock. */
    @Setup
    public void setUp() {
        switch (impl) {
            case "jdk" -> rwl = new ReentrantReadWriteLock();
            case "adapter" -> rwl = new PthreadReadWriteLock();
            case "rwlock" -> {
                memory = Memory.allocate(64);
                raw = new RwLock(memory.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT), RwLockAttr.DEFAULT);
            }
            default -> throw new IllegalArgumentException(impl);
        }
    }

    /** Frees the bare lock's memory. */
    @TearDown
    public void tearDown() {
        if (memory != null) {
            memory.close();
        }
    }

    /**
     * One operation of the mix.
     *
     * @param turn this thread's position
     * @return what was read
     */
    @Benchmark
    public long mix(final Turn turn) {
        final boolean write = ++turn.k == 10;
        if (write) {
            turn.k = 0;
        }
        if (raw != null) {
            if (write) {
                raw.wrLock();
                pair[0]++;
                pair[1]++;
                raw.unlock();
                return 0;
            }
            raw.rdLock();
            final long x = pair[0];
            raw.unlock();
            return x;
        }
        if (write) {
            rwl.writeLock().lock();
            pair[0]++;
            pair[1]++;
            rwl.writeLock().unlock();
            return 0;
        }
        rwl.readLock().lock();
        final long x = pair[0];
        rwl.readLock().unlock();
        return x;
    }
}
