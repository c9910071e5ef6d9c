package org.pthread4j.futex;

import org.junit.jupiter.api.Test;
import org.pthread4j.Timespec;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A wake issued right after the word changed must reach a waiter that is between reading the
 * word and being queued: two threads ping-pong through two words many times; a lost wake leaves
 * one of them asleep (the untimed side) and the other times out.
 */
class ParkingFutexWakeRaceTest {
    @Test
    void wakeRightAfterTheWordChangedIsNeverLost() throws Exception {
        final Futex f = Futexes.parking();
        final int rounds = 100_000;
        try (Memory m = Memory.allocate(256)) {
            final MemorySegment s = m.segment();
            final AtomicReference<Throwable> error = new AtomicReference<>();
            final Thread partner = Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        while ((int) Block.INT.getVolatile(s, 0L) == 0) {
                            f.wait(s, 0, 0, true);
                        }
                        Block.INT.setVolatile(s, 0L, 0);
                        Block.INT.setVolatile(s, 64L, 1);
                        f.wake(s, 64, 1, true);
                    }
                } catch (final Throwable e) {
                    error.set(e);
                }
            });
            for (int i = 0; i < rounds; i++) {
                Block.INT.setVolatile(s, 0L, 1);
                f.wake(s, 0, 1, true);
                final Timespec deadline = Timespec.after(Timespec.CLOCK_MONOTONIC, 30, TimeUnit.SECONDS);
                while ((int) Block.INT.getVolatile(s, 64L) == 0) {
                    f.timedWait(s, 64, 0, true, Timespec.CLOCK_MONOTONIC, deadline, false);
                    if (Timespec.nowNanos(Timespec.CLOCK_MONOTONIC) >= deadline.toNanos()) {
                        fail("round " + i + ": the partner never answered (" + partner.getState()
                            + "): a wake was lost");
                    }
                }
                Block.INT.setVolatile(s, 64L, 0);
            }
            partner.join(TimeUnit.SECONDS.toMillis(30));
            assertNull(error.get());
        }
    }
}
