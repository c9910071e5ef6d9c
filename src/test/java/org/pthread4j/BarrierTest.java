package org.pthread4j;


import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Backends;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BarrierTest {
    private static final String BACKENDS = "org.pthread4j.testing.Backends#privateBackends";
    private static final int CYCLES = 1_000;

    private final List<Memory> memories = new ArrayList<>();

    @AfterEach
    void closeMemory() {
        memories.forEach(Memory::close);
    }

    private Block block() {
        final Memory m = Memory.allocate(BarrierLayout.SIZE);
        memories.add(m);
        return m.block(0, BarrierLayout.SIZE, BarrierLayout.ALIGNMENT);
    }

    /** Every private backend with 2, 3, 5 and 8 parties, then the shared variant. */
    static Stream<Arguments> variants() {
        final List<Arguments> out = new ArrayList<>();
        Backends.privateBackends().forEach(f -> {
            for (final int n : new int[] {2, 3, 5, 8}) {
                out.add(Arguments.of(BarrierAttr.privateOn(f), n));
            }
        });
        for (final int n : new int[] {2, 3, 5, 8}) {
            out.add(Arguments.of(BarrierAttr.PSHARED, n));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} x {1}")
    @MethodSource("variants")
    void exactlyOneSerialThreadPerCycleAndWritesBeforeAreSeenAfter(final BarrierAttr attr, final int parties)
        throws Exception {
        final Barrier barrier = new Barrier(block(), attr, parties);
        final AtomicIntegerArray serials = new AtomicIntegerArray(CYCLES);
        final int[] slots = new int[parties];
        final List<Spawn.Running<String>> all = new ArrayList<>();
        for (int p = 0; p < parties; p++) {
            final int me = p;
            all.add(Spawn.call(() -> {
                for (int c = 1; c <= CYCLES; c++) {
                    slots[me] = c; // plain write, published by the barrier
                    final int r = barrier.await();
                    if (r == Barrier.SERIAL_THREAD) {
                        serials.incrementAndGet(c - 1);
                    } else if (r != 0) {
                        return "await returned " + r;
                    }
                    for (int q = 0; q < parties; q++) {
                        final int seen = slots[q];
                        if (seen < c || seen > c + 1) {
                            return "cycle " + c + ": party " + q + "'s write not seen (" + seen + ")";
                        }
                    }
                    // A second barrier so that no party overwrites its slot with c+1 before
                    // every party has checked cycle c (the checks above allow c+1 anyway).
                    if (barrier.await() == Barrier.SERIAL_THREAD) {
                        serials.addAndGet(c - 1, 1000);
                    }
                }
                return "ok";
            }));
        }
        for (final Spawn.Running<String> r : all) {
            assertEquals("ok", r.get());
        }
        for (int c = 0; c < CYCLES; c++) {
            assertEquals(1001, serials.get(c), "cycle " + (c + 1) + ": one SERIAL in each of its two waits");
        }
        if (attr.pshared()) {
            assertEquals(0, barrier.block().get(BarrierLayout.LOCK));
            assertEquals(0, barrier.block().get(BarrierLayout.COUNT));
        } else {
            assertEquals(0L, barrier.block().getLong(BarrierLayout.INST));
            assertEquals(0, barrier.block().get(BarrierLayout.LOCK));
        }
        assertEquals(0, barrier.destroy());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void thePrivateSerialThreadIsTheFirstArrival(final Futex futex) throws Exception {
        final Barrier b = new Barrier(block(), BarrierAttr.privateOn(futex), 2);
        assertFalse(b.isPshared());
        assertSame(futex, b.futex());
        final Spawn.Running<Integer> first = Spawn.call(b::await);
        Spawn.until("first arrival published its instance", () -> b.block().getLong(BarrierLayout.INST) != 0);
        assertFalse(first.isDone());
        assertEquals(0, Spawn.call(b::await).get());
        assertEquals(Barrier.SERIAL_THREAD, first.get());
        assertEquals(0L, b.block().getLong(BarrierLayout.INST));
    }

    @Test
    void theSharedSerialThreadIsTheLastArrival() throws Exception {
        final Barrier b = new Barrier(block(), BarrierAttr.PSHARED, 2);
        assertTrue(b.isPshared());
        assertSame(Futexes.shared(), b.futex());
        assertEquals(Integer.MIN_VALUE | 1, b.block().get(BarrierLayout.LIMIT));
        final Spawn.Running<Integer> first = Spawn.call(b::await);
        Spawn.until("first arrival counted", () -> b.block().get(BarrierLayout.COUNT) == 1);
        assertFalse(first.isDone());
        assertEquals(Barrier.SERIAL_THREAD, Spawn.call(b::await).get());
        assertEquals(0, first.get());
    }

    @ParameterizedTest
    @MethodSource(BACKENDS)
    void aCountOfOneIsAlwaysTheSerialThread(final Futex futex) {
        final Barrier b = new Barrier(block(), BarrierAttr.privateOn(futex), 1);
        assertEquals(Barrier.SERIAL_THREAD, b.await());
        assertEquals(Barrier.SERIAL_THREAD, b.await());
        final Barrier s = new Barrier(block(), BarrierAttr.PSHARED, 1);
        assertEquals(Barrier.SERIAL_THREAD, s.await());
        assertEquals(1, s.count());
    }

    @Test
    void initRefusesACountBelowOneAndZeroesTheBlock() {
        assertThrows(IllegalArgumentException.class, () -> new Barrier(block(), 0));
        assertThrows(IllegalArgumentException.class, () -> new Barrier(block(), -5));
        final Block b = block();
        b.set(BarrierLayout.COUNT, 77);
        b.setLong(BarrierLayout.INST, 0x1234);
        final Barrier barrier = new Barrier(b, 4);
        assertEquals(0, b.get(BarrierLayout.COUNT));
        assertEquals(0L, b.getLong(BarrierLayout.INST));
        assertEquals(3, b.get(BarrierLayout.LIMIT));
        assertEquals(4, barrier.count());
    }

    @Test
    void attachChecksTheBlock() throws Exception {
        final Barrier priv = new Barrier(block(), 2);
        assertEquals(2, Barrier.attach(priv.block()).count());
        priv.block().set(BarrierLayout.LOCK, 5);
        assertThrows(IllegalArgumentException.class, () -> Barrier.attach(priv.block()));
        priv.block().set(BarrierLayout.LOCK, 0);
        priv.block().setLong(BarrierLayout.INST, 0xdead0L);
        assertThrows(IllegalArgumentException.class, () -> Barrier.attach(priv.block()));
        priv.block().setLong(BarrierLayout.INST, 0);
        priv.block().set(BarrierLayout.WAITERS2, 1);
        assertThrows(IllegalArgumentException.class, () -> Barrier.attach(priv.block()));

        final Barrier shared = new Barrier(block(), BarrierAttr.PSHARED, 3);
        assertTrue(Barrier.attach(shared.block()).isPshared());
        shared.block().set(BarrierLayout.LOCK, 4);
        assertThrows(IllegalArgumentException.class, () -> Barrier.attach(shared.block()));
        shared.block().set(BarrierLayout.LOCK, 0);
        shared.block().set(BarrierLayout.COUNT, -9);
        assertThrows(IllegalArgumentException.class, () -> Barrier.attach(shared.block()));
        shared.block().set(BarrierLayout.COUNT, 0);
        shared.block().setLong(BarrierLayout.INST, 8);
        assertThrows(IllegalArgumentException.class, () -> Barrier.attach(shared.block()));

        // An instance published by a waiting owner is recognized.
        final Barrier live = new Barrier(block(), 2);
        final Spawn.Running<Integer> owner = Spawn.call(live::await);
        Spawn.until("owner waiting", () -> live.block().getLong(BarrierLayout.INST) != 0);
        final Barrier view = Barrier.attach(live.block());
        assertEquals(0, view.await());
        assertEquals(Barrier.SERIAL_THREAD, owner.get());
    }

    @Test
    void aCorruptInstancePointerThrowsInsteadOfFaulting() {
        final Barrier b = new Barrier(block(), 2);
        b.block().setLong(BarrierLayout.INST, 0x10);
        assertThrows(IllegalStateException.class, b::await);
        assertEquals(0, b.block().get(BarrierLayout.LOCK), "the barrier lock is released");
    }

    @Test
    void sharedDestroyWaitsForTheCycleToDrain() throws Exception {
        final Barrier b = new Barrier(block(), BarrierAttr.PSHARED, 2);
        final Spawn.Running<Integer> x = Spawn.call(b::await);
        final Spawn.Running<Integer> y = Spawn.call(b::await);
        assertEquals(-1, x.get() + y.get());
        assertEquals(0, b.destroy());
        assertEquals(0, b.block().get(BarrierLayout.LOCK) & Integer.MAX_VALUE);
    }

    /** Two mappings of one file in one JVM meet only through shared futex operations. */
    @Test
    void aSharedBarrierWorksAcrossTwoMappings(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("barrier");
        Files.write(file, new byte[BarrierLayout.SIZE]);
        try (Memory a = Memory.map(file, BarrierLayout.SIZE); Memory m = Memory.map(file, BarrierLayout.SIZE)) {
            final Barrier ba = new Barrier(a.block(0, BarrierLayout.SIZE, 8), BarrierAttr.PSHARED, 2);
            final Barrier bb = Barrier.attach(m.block(0, BarrierLayout.SIZE, 8));
            final Spawn.Running<Integer> x = Spawn.call(() -> {
                int serial = 0;
                for (int i = 0; i < 200; i++) {
                    serial += ba.await() == Barrier.SERIAL_THREAD ? 1 : 0;
                }
                return serial;
            });
            final Spawn.Running<Integer> y = Spawn.call(() -> {
                int serial = 0;
                for (int i = 0; i < 200; i++) {
                    serial += bb.await() == Barrier.SERIAL_THREAD ? 1 : 0;
                }
                return serial;
            });
            assertEquals(200, x.get() + y.get());
        }
    }
}
