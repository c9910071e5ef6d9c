package org.pthread4j;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.MutexTestSupport.Config;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Mutual exclusion under contention: N threads x M increments of a plain (non-atomic)
 * off-heap counter under each kind of mutex, private on every backend (the kernel one with
 * the private flag refused included) and shared. A lost update or an overlap is counted.
 */
class MutexStressTest {
    private static final int THREADS = 4;
    private static final int ITERATIONS = 20_000;

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.pthread4j.MutexTestSupport#configsAndKinds")
    void plainCounterUnderTheMutexIsExact(final Config c, final int kind) throws Exception {
        try (Memory mem = Memory.allocate(256)) {
            final Mutex m = new Mutex(mem.block(0, MutexLayout.SIZE, 8), c.attr(kind));
            final MemorySegment counter = mem.segment().asSlice(128, 8);
            final AtomicInteger overlaps = new AtomicInteger();
            final AtomicInteger errors = new AtomicInteger();
            final int[] inside = {0};
            final CyclicBarrier start = new CyclicBarrier(THREADS);
            final List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                final int id = t;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await(30, TimeUnit.SECONDS);
                    } catch (final Exception e) {
                        errors.incrementAndGet();
                        return;
                    }
                    for (int i = 0; i < ITERATIONS; i++) {
                        // Mix the entry points: lock, trylock-then-lock, timedlock.
                        final int r = switch ((i + id) % 3) {
                            case 0 -> m.lock();
                            case 1 -> m.tryLock() == 0 ? 0 : m.lock();
                            default -> m.timedLock(MutexTestSupport.inMillis(60_000));
                        };
                        if (r != 0) {
                            errors.incrementAndGet();
                            continue;
                        }
                        if (inside[0]++ != 0) {
                            overlaps.incrementAndGet();
                        }
                        counter.set(ValueLayout.JAVA_INT, 0, counter.get(ValueLayout.JAVA_INT, 0) + 1);
                        inside[0]--;
                        if (m.unlock() != 0) {
                            errors.incrementAndGet();
                        }
                    }
                }));
            }
            for (final Thread t : threads) {
                t.join(MutexTestSupport.LIVENESS.toMillis() * 4);
                assertFalse(t.isAlive(), "a thread did not finish: " + m);
            }
            assertEquals(0, errors.get());
            assertEquals(0, overlaps.get());
            assertEquals(THREADS * ITERATIONS, counter.get(ValueLayout.JAVA_INT, 0));
            assertEquals(0, m.waiterCount());
            assertEquals(Mutex.State.FREE, m.state());
        }
    }
}
