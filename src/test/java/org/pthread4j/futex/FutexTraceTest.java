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
}
