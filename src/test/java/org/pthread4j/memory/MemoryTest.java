package org.pthread4j.memory;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryTest {
    @TempDir
    Path dir;

    @Test
    void allocatedMemoryIsZeroedAndAligned() {
        try (Memory m = Memory.allocate(100, 256)) {
            assertEquals(0, m.segment().address() % 256);
            assertEquals(100, m.size());
            final Block b = m.block(0, 100, 4);
            for (int off = 0; off < 100; off += 4) {
                assertEquals(0, b.get(off));
            }
        }
    }

    @Test
    void atomicsBehaveLikeMuslsAndCasReturnsTheWitness() {
        try (Memory m = Memory.allocate(64)) {
            final Block b = m.block(8, 40, 8);
            b.set(4, 10);
            assertEquals(10, b.cas(4, 10, 11), "a successful CAS returns the expected value");
            assertEquals(11, b.cas(4, 10, 12), "a failed CAS returns what it found");
            assertEquals(11, b.get(4));
            assertEquals(11, b.getAndAdd(4, 5));
            assertEquals(16, b.getAndSet(4, 0x0F));
            assertEquals(0x0F, b.getAndOr(4, 0x80000000));
            assertEquals(0x8000000F, b.getAndAnd(4, 0x7FFFFFFF));
            assertEquals(0x0F, b.get(4));
            b.setLong(32, -2L);
            assertEquals(-2L, b.casLong(32, -2L, 7L));
            assertEquals(7L, b.getLong(32));
            assertEquals(m.segment().address() + 8 + 4, b.address(4));
            assertEquals(8, b.offsetInMemory());
        }
    }

    @Test
    void blocksOutOfBoundsOrMisalignedAreRefusedAtConstruction() {
        try (Memory m = Memory.allocate(64)) {
            assertThrows(IllegalArgumentException.class, () -> m.block(32, 40, 8), "past the end");
            assertThrows(IllegalArgumentException.class, () -> m.block(-8, 8, 8), "negative offset");
            assertThrows(IllegalArgumentException.class, () -> m.block(4, 40, 8), "misaligned for 8");
            assertThrows(IllegalArgumentException.class, () -> m.word(2), "misaligned word");
            assertThrows(IllegalArgumentException.class, () -> m.block(0, 8, 3), "alignment not a power of two");
            assertThrows(IllegalArgumentException.class, () -> Memory.allocate(0));
            assertThrows(IllegalArgumentException.class, () -> Memory.allocate(64, 2));
        }
    }

    @Test
    void accessesOutsideABlockThrowInsteadOfTouchingMemory() {
        try (Memory m = Memory.allocate(64)) {
            final Block b = m.block(0, 8, 8);
            assertThrows(IndexOutOfBoundsException.class, () -> b.get(8));
            assertThrows(IndexOutOfBoundsException.class, () -> b.set(-4, 1));
            assertThrows(IllegalArgumentException.class, () -> b.get(2), "misaligned access");
        }
    }

    @Test
    void touchingClosedMemoryThrowsAndTheJvmLives() {
        final Memory m = Memory.allocate(64);
        final Block b = m.word(0);
        b.set(0, 1);
        m.close();
        m.close(); // idempotent
        assertFalse(m.isOpen());
        assertThrows(IllegalStateException.class, () -> b.get(0));
        assertThrows(IllegalStateException.class, () -> b.cas(0, 1, 2));
        assertThrows(IllegalStateException.class, () -> m.word(0));
        assertEquals(2, 1 + 1, "still alive");
    }

    @Test
    void twoMappingsOfOneFileSeeTheSameWords() throws IOException {
        final Path file = dir.resolve("f");
        Files.write(file, new byte[4096]);
        try (Memory a = Memory.map(file); Memory b = Memory.map(file, 64)) {
            assertTrue(a.isMapped());
            assertEquals(4096, a.size());
            a.word(8).set(0, 1234);
            assertEquals(1234, b.word(8).get(0));
        }
        final ByteBuffer content = ByteBuffer.wrap(Files.readAllBytes(file)).order(java.nio.ByteOrder.nativeOrder());
        assertEquals(1234, content.getInt(8), "MAP_SHARED writes reach the file");
    }

    @Test
    void mappingMoreThanTheFileHoldsIsRefused() throws IOException {
        final Path file = dir.resolve("short");
        Files.write(file, new byte[16]);
        final IOException e = assertThrows(IOException.class, () -> Memory.map(file, 64));
        assertTrue(e.getMessage().contains("16 bytes"), e.getMessage());
        assertEquals(16, Files.size(file), "the file was not grown");
    }

    @Test
    void aBlockCanLiveInsideAnAgronaBuffer() {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        buffer.putInt(64, 99);
        try (Memory view = Memory.wrap(buffer, 64, 128)) {
            final Block b = view.block(0, 40, 8);
            assertEquals(99, b.get(0));
            b.set(4, 5);
        }
        assertEquals(5, buffer.getInt(68));
        assertThrows(IllegalArgumentException.class, () -> Memory.wrap(new UnsafeBuffer(new byte[64]), 0, 64),
            "heap buffers are refused");
        assertThrows(IllegalArgumentException.class, () -> Memory.wrap(buffer, 200, 128), "range past the buffer");
    }
}
