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
import org.pthread4j.futex.Errno;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Seed 003's swap test: one benchmark call is a round trip with a partner thread (started in
 * set-up), each thread on its own word: set own word 0, set the partner's 1, wake it (or swap),
 * sleep while own word is 0. Modes: {@code wake+wait}, {@code swap}, and {@code lockSupport}
 * (park/unpark, the reference; the backend is then ignored).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Flags.NATIVE_ACCESS, Flags.ADD_EXPORTS, Flags.MISC})
public class SwapPingPongBenchmark {
    private static final long MAIN = 0;
    private static final long PARTNER = 64;

    /** The backend: parking, linux, linux-noprivate. */
    @Param({"parking", "linux", "linux-noprivate"})
    public String backend;

    /** How a round trip is done. */
    @Param({"wake+wait", "swap", "lockSupport"})
    public String mode;

    private Memory memory;
    private MemorySegment seg;
    private Futex futex;
    private boolean swap;
    private boolean lockSupport;
    private volatile boolean stop;
    private Thread partner;
    private volatile Thread mainThread;
    private final AtomicInteger mainWord = new AtomicInteger();
    private final AtomicInteger partnerWord = new AtomicInteger();

    /** Starts the partner. */
    @Setup
    public void setUp() {
        memory = Memory.allocate(128);
        seg = memory.segment();
        futex = Futexes.byName(backend);
        swap = mode.equals("swap");
        lockSupport = mode.equals("lockSupport");
        partner = Thread.ofPlatform().daemon().name("jmh-partner").start(() -> {
            if (lockSupport) {
                while (partnerWord.get() == 0) {
                    LockSupport.park();
                }
                while (!stop) {
                    parkOp(partnerWord, mainWord, mainThread);
                }
            } else {
                await(PARTNER);
                while (!stop) {
                    futexOp(PARTNER, MAIN);
                }
            }
        });
    }

    /** Stops the partner. */
    @TearDown
    public void tearDown() throws InterruptedException {
        stop = true;
        partnerWord.set(1);
        LockSupport.unpark(partner);
        Block.INT.setVolatile(seg, PARTNER, 1);
        futex.wake(seg, PARTNER, 1, true);
        partner.join(10_000);
        memory.close();
    }

    private void await(final long self) {
        while ((int) Block.INT.getVolatile(seg, self) == 0) {
            final int r = futex.wait(seg, self, 0, true);
            if (r != 0 && r != Errno.EAGAIN) {
                throw new IllegalStateException(Errno.name(r));
            }
        }
    }

    private void futexOp(final long self, final long other) {
        Block.INT.setVolatile(seg, self, 0);
        Block.INT.setVolatile(seg, other, 1);
        if (swap) {
            futex.swap(seg, self, 0, seg, other, true);
        } else {
            futex.wake(seg, other, 1, true);
        }
        await(self);
    }

    private static void parkOp(final AtomicInteger self, final AtomicInteger other, final Thread otherThread) {
        self.set(0);
        other.set(1);
        LockSupport.unpark(otherThread);
        while (self.get() == 0) {
            LockSupport.park();
        }
    }

    /** One round trip. */
    @Benchmark
    public void roundTrip() {
        if (lockSupport) {
            mainThread = Thread.currentThread();
            parkOp(mainWord, partnerWord, partner);
        } else {
            futexOp(MAIN, PARTNER);
        }
    }
}
