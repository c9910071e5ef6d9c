package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Sleepers;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RwLock#downgrade()}: write lock to one read lock, with no writer in between. */
class RwLockDowngradeTest {
    private static final Duration LIVENESS = Duration.ofSeconds(60);

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void downgradeLeavesOneReaderAndWakesSleepingReaders(final Futex f) throws Exception {
        try (Memory m = Memory.allocate(RwLockLayout.SIZE)) {
            final Block b = m.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
            final RwLock rw = new RwLock(b, RwLockAttr.privateOn(f));
            assertEquals(Errno.EPERM, rw.downgrade(), "not write-locked");
            assertEquals(0, rw.wrLock());
            final AtomicInteger tid = new AtomicInteger();
            final AtomicInteger result = new AtomicInteger(-1);
            final Thread reader = Thread.ofPlatform().start(() -> {
                tid.set(org.pthread4j.internal.ThreadIds.current());
                result.set(rw.rdLock());
            });
            while (rw.waiterCount() == 0 || tid.get() == 0) {
                Thread.onSpinWait();
            }
            Sleepers.awaitAsleep(reader, tid.get(), b.address(RwLockLayout.LOCK), LIVENESS);
            assertEquals(0, rw.downgrade());
            assertTrue(reader.join(LIVENESS));
            assertEquals(0, result.get());
            assertEquals(2, rw.readerCount());
            assertFalse(rw.isWriteLocked());
            assertEquals(Errno.EBUSY, rw.tryWrLock());
            assertEquals(Errno.EPERM, rw.downgrade(), "read-locked, not write-locked");
            assertEquals(0, rw.unlock());
            assertEquals(0, rw.unlock());
            assertEquals(0, rw.word());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aSleepingWriterStaysOutUntilTheDowngradedReaderLeaves(final Futex f) throws Exception {
        try (Memory m = Memory.allocate(RwLockLayout.SIZE)) {
            final Block b = m.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
            final RwLock rw = new RwLock(b, RwLockAttr.privateOn(f));
            assertEquals(0, rw.wrLock());
            final AtomicInteger tid = new AtomicInteger();
            final AtomicInteger readersSeen = new AtomicInteger(-1);
            final Thread writer = Thread.ofPlatform().start(() -> {
                tid.set(org.pthread4j.internal.ThreadIds.current());
                if (rw.wrLock() == 0) {
                    readersSeen.set(rw.readerCount());
                    rw.unlock();
                }
            });
            while (rw.waiterCount() == 0 || tid.get() == 0) {
                Thread.onSpinWait();
            }
            Sleepers.awaitAsleep(writer, tid.get(), b.address(RwLockLayout.LOCK), LIVENESS);
            assertEquals(0, rw.downgrade());
            assertEquals(1, rw.readerCount());
            // the writer was woken by the downgrade and must go back to sleep behind the reader
            assertEquals(-1, readersSeen.get());
            assertEquals(0, rw.unlock());
            assertTrue(writer.join(LIVENESS));
            assertEquals(0, readersSeen.get());
            assertEquals(0, rw.word());
        }
    }

    @Test
    void aSharedLockDowngradesToo() {
        try (Memory m = Memory.allocate(RwLockLayout.SIZE)) {
            final RwLock rw = new RwLock(m.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT), RwLockAttr.PSHARED);
            assertEquals(0, rw.timedWrLock(Timespec.after(Timespec.CLOCK_REALTIME, 1, TimeUnit.SECONDS)));
            assertEquals(0, rw.downgrade());
            assertEquals(0, rw.tryRdLock());
            assertEquals(2, rw.readerCount());
            assertEquals(0, rw.unlock());
            assertEquals(0, rw.unlock());
            assertEquals(0, rw.word());
        }
    }
}
