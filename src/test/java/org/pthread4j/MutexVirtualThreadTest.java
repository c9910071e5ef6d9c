package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;

/** NORMAL, RECURSIVE and ERRORCHECK private mutexes on virtual threads. */
class MutexVirtualThreadTest {
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.pthread4j.MutexTestSupport#privateKindArgs")
    void virtualThreadsExcludeEachOtherAndOwnTheirLocks(final Futex f, final int kind) throws Exception {
        final int threads = 16;
        final int iterations = 2_000;
        try (Memory mem = Memory.allocate(256)) {
            final Mutex m = new Mutex(mem.block(0, MutexLayout.SIZE, 8), MutexAttr.builder().type(kind).futex(f).build());
            final MemorySegment counter = mem.segment().asSlice(128, 4);
            final AtomicInteger errors = new AtomicInteger();
            final List<Thread> vs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                vs.add(Thread.ofVirtual().start(() -> {
                    for (int i = 0; i < iterations; i++) {
                        if (m.lock() != 0) {
                            errors.incrementAndGet();
                            continue;
                        }
                        if (kind != MutexAttr.NORMAL && !m.isHeldByCurrentThread()) {
                            errors.incrementAndGet();
                        }
                        if (kind == MutexAttr.RECURSIVE && (m.lock() != 0 || m.unlock() != 0)) {
                            errors.incrementAndGet();
                        }
                        if (kind == MutexAttr.ERRORCHECK && m.tryLock() != Errno.EBUSY) {
                            errors.incrementAndGet();
                        }
                        counter.set(ValueLayout.JAVA_INT, 0, counter.get(ValueLayout.JAVA_INT, 0) + 1);
                        if (m.unlock() != 0) {
                            errors.incrementAndGet();
                        }
                        if (i % 64 == 0) {
                            Thread.yield(); // let other virtual threads onto the carriers
                        }
                    }
                }));
            }
            for (final Thread v : vs) {
                assertTrue(v.join(LIVENESS), "virtual thread did not finish: " + m);
            }
            assertEquals(0, errors.get());
            assertEquals(threads * iterations, counter.get(ValueLayout.JAVA_INT, 0));
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.MutexTestSupport#kinds")
    void virtualThreadsBlockedOnTheParkingBackendLeaveTheCarriersFree(final int kind) throws Exception {
        // More blocked virtual threads than carriers: if a blocked locker pinned its carrier,
        // the last virtual thread could never run and the latch would time out.
        final int blocked = Runtime.getRuntime().availableProcessors() * 4 + 4;
        try (Memory mem = Memory.allocate(256)) {
            final Mutex m = new Mutex(mem.block(0, MutexLayout.SIZE, 8),
                MutexAttr.builder().type(kind).futex(Futexes.parking()).build());
            assertEquals(0, m.lock());
            final List<Thread> vs = new ArrayList<>();
            final AtomicInteger results = new AtomicInteger();
            for (int i = 0; i < blocked; i++) {
                vs.add(Thread.ofVirtual().start(() -> {
                    if (m.lock() == 0 && m.unlock() == 0) {
                        results.incrementAndGet();
                    }
                }));
            }
            MutexTestSupport.awaitWaiters(m, blocked);
            final CountDownLatch ran = new CountDownLatch(1);
            Thread.ofVirtual().start(ran::countDown);
            assertTrue(ran.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "a carrier stayed pinned");
            // Counted in _m_waiters a moment before it parks: wait (bounded) for each to park.
            final long end = System.nanoTime() + LIVENESS.toNanos();
            for (final Thread v : vs) {
                while (v.getState() != Thread.State.WAITING && System.nanoTime() < end) {
                    Thread.sleep(1);
                }
                assertEquals(Thread.State.WAITING, v.getState(), "a parked locker shows as WAITING");
            }
            assertEquals(0, m.unlock());
            for (final Thread v : vs) {
                assertTrue(v.join(LIVENESS));
            }
            assertEquals(blocked, results.get());
            assertFalse(m.isHeldByCurrentThread());
        }
    }
}
