package org.pthread4j.jmh;

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
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.memory.Memory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The uncontended lock and unlock of a robust mutex, which links it into the thread's kernel
 * robust list and out again. {@code aloneOnTheList}: the list goes from empty to one mutex and
 * back at every pair, so the thread's kernel head goes to this library's list and back to
 * glibc's ({@code set_robust_list} twice); {@code besideAnotherHeld}: the thread holds a second
 * robust mutex all along, so the list never empties and the kernel's head stays.
 * {@link ReentrantLock} for scale, in the same run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Flags.NATIVE_ACCESS, Flags.ADD_EXPORTS, Flags.MISC})
public class RobustUncontendedBenchmark {
    private Memory memory;
    private Mutex robust;
    private final ReentrantLock lock = new ReentrantLock();

    /** A robust mutex. */
    @Setup
    public void setUp() {
        memory = Memory.allocate(64);
        robust = new Mutex(memory.block(0, MutexLayout.SIZE, 8), MutexAttr.builder().type(MutexAttr.ERRORCHECK)
            .robust(true).build());
    }

    /** Frees it. */
    @TearDown
    public void tearDown() {
        memory.close();
    }

    /** @return the unlock's result */
    @Benchmark
    public int aloneOnTheList() {
        robust.lock();
        return robust.unlock();
    }

    /** @return the unlock's result */
    @Benchmark
    public int besideAnotherHeld(final Holding h) {
        h.robust.lock();
        return h.robust.unlock();
    }

    /** A robust mutex and a second one the benchmark thread holds for the whole trial. */
    @State(Scope.Thread)
    public static class Holding {
        private Memory memory;
        private Mutex robust;
        private Mutex held;

        /** Locks the second mutex on the benchmark thread. */
        @Setup
        public void setUp() {
            memory = Memory.allocate(128);
            final MutexAttr attr = MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).build();
            robust = new Mutex(memory.block(0, MutexLayout.SIZE, 8), attr);
            held = new Mutex(memory.block(64, MutexLayout.SIZE, 8), attr);
            held.lock();
        }

        /** Unlocks and frees. */
        @TearDown
        public void tearDown() {
            held.unlock();
            memory.close();
        }
    }

    /** For scale: j.u.c's uncontended lock and unlock. */
    @Benchmark
    public void reentrantLock() {
        lock.lock();
        lock.unlock();
    }
}
