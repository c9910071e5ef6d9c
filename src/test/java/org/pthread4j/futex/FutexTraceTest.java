package org.pthread4j.futex;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.memory.Memory;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FutexTraceTest {
    @AfterEach
    void off() {
        FutexTrace.disable();
    }

    static List<Futex> backends() {
        return Futexes.allPrivate();
    }

    @ParameterizedTest
    @MethodSource("backends")
    void theTraceRecordsExactlyTheOperationsIssued(final Futex futex) {
        try (Memory m = Memory.allocate(64)) {
            futex.wake(m.segment(), 0, 1, true); // before enabling: not recorded
            FutexTrace.enable(16);
            assertEquals(Errno.EAGAIN, futex.wait(m.segment(), 0, 5, true));
            assertEquals(0, futex.wake(m.segment(), 0, 1, true));
            assertEquals(0, futex.requeue(m.segment(), 0, 0, 1, m.segment(), 8, true));
            final List<FutexTrace.Event> events = FutexTrace.snapshot();
            assertEquals(List.of("wait", "wake", "requeue"), events.stream().map(FutexTrace.Event::op).toList());
            assertEquals(Errno.EAGAIN, events.get(0).result());
            assertEquals(m.segment().address(), events.get(0).address());
            assertEquals(m.segment().address() + 8, events.get(2).address2());
            assertEquals(futex.name(), events.get(1).backend());
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            FutexTrace.print(new PrintStream(out, true, StandardCharsets.UTF_8));
            final String text = out.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("EAGAIN") && text.contains("requeue"), text);
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void theRingKeepsTheLatestOperationsAndOffRecordsNothing(final Futex futex) {
        try (Memory m = Memory.allocate(64)) {
            FutexTrace.enable(4);
            for (int i = 0; i < 10; i++) {
                futex.wake(m.segment(), 0, i + 1, true);
            }
            final List<FutexTrace.Event> events = FutexTrace.snapshot();
            assertEquals(4, events.size());
            assertEquals(List.of(7L, 8L, 9L, 10L), events.stream().map(FutexTrace.Event::value).toList());
            FutexTrace.disable();
            assertFalse(FutexTrace.isEnabled());
            futex.wake(m.segment(), 0, 1, true);
            assertTrue(FutexTrace.snapshot().isEmpty());
        }
    }

    /**
     * With sleeps on, a wait is listed when it starts sleeping and when it returns, and the wake
     * that ended it, stamped when issued, sits between the two; numbers and times agree. A
     * requeued waiter on the parking backend reports the word it was woken from.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void aSleepIsRecordedWhenItStartsAndTheWakeThatEndsItComesBeforeItsReturn(final Futex futex) throws Exception {
        try (Memory m = Memory.allocate(64)) {
            final var seg = m.segment();
            final long word = seg.address();
            final long other = seg.address() + 8;
            FutexTrace.enable(64, true);
            final int[] tid = new int[1];
            final Thread waiter = Thread.ofPlatform().name("sleeper").start(() -> {
                tid[0] = org.pthread4j.internal.ThreadIds.current();
                futex.wait(seg, 0, 0, true);
            });
            while (tid[0] == 0) {
                Thread.onSpinWait();
            }
            org.pthread4j.testing.Sleepers.awaitAsleep(waiter, tid[0], word, java.time.Duration.ofSeconds(60));
            assertEquals(1, futex.requeue(seg, 0, 0, 1, seg, 8, true), "moved");
            assertEquals(1, futex.wake(seg, 8, 1, true));
            waiter.join(60_000);
            assertFalse(waiter.isAlive());
            final List<FutexTrace.Event> e = FutexTrace.snapshot();
            assertEquals(List.of("wait", "requeue", "wake", "wait"), e.stream().map(FutexTrace.Event::op).toList(), e.toString());
            assertTrue(e.get(0).sleeping() && !e.get(3).sleeping(), e.toString());
            assertEquals(0, e.get(3).result(), e.toString());
            for (int i = 1; i < e.size(); i++) {
                assertEquals(e.get(i - 1).seq() + 1, e.get(i).seq(), e.toString());
                assertTrue(e.get(i).nanos() >= e.get(i - 1).nanos(), "times follow numbers: " + e);
            }
            assertEquals(futex instanceof ParkingFutex ? other : 0, e.get(3).from(), "the word it was woken from: " + e);
            FutexTrace.enable(64);
            futex.wake(seg, 0, 1, true);
            assertTrue(FutexTrace.snapshot().stream().noneMatch(FutexTrace.Event::sleeping));
        }
    }
}
