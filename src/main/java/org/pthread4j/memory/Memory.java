package org.pthread4j.memory;

import org.agrona.concurrent.AtomicBuffer;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A region of off-heap memory that holds synchronization words: a private block, a
 * {@code MAP_SHARED} mapping of a file, or a view of a user's Agrona {@link AtomicBuffer}.
 *
 * <p>Every access goes through a {@link MemorySegment} of this memory's own {@link Arena}:
 * bounds and alignment are checked when a {@link Block} is made, and after {@link #close()}
 * any access throws {@link IllegalStateException} instead of touching freed or unmapped
 * memory. Closing is safe while other threads still hold blocks: their next access throws.
 *
 * <p>Memory is thread-safe. It is the caller's business not to close memory on which a
 * thread still sleeps or that holds a locked mutex (as with {@code munmap} in C); a sleeper
 * on closed memory stays asleep until its deadline or interrupt.
 */
public final class Memory implements AutoCloseable {
    /** Alignment of private blocks: a cache line, which also satisfies every musl type. */
    public static final long DEFAULT_ALIGNMENT = 64;

    private final Arena arena;
    private final MemorySegment segment;
    private final boolean mapped;
    private final Object keepAlive;
    private final String description;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Memory(final Arena arena, final MemorySegment segment, final boolean mapped,
                   final Object keepAlive, final String description) {
        this.arena = arena;
        this.segment = segment;
        this.mapped = mapped;
        this.keepAlive = keepAlive;
        this.description = description;
    }

    /**
     * Allocates zeroed private memory aligned to {@link #DEFAULT_ALIGNMENT}.
     *
     * @param size bytes, at least 1
     * @return the memory
     */
    public static Memory allocate(final long size) {
        return allocate(size, DEFAULT_ALIGNMENT);
    }

    /**
     * Allocates zeroed private memory.
     *
     * @param size      bytes, at least 1
     * @param alignment a power of two, at least 4
     * @return the memory
     * @throws IllegalArgumentException on a bad size or alignment
     */
    public static Memory allocate(final long size, final long alignment) {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
        if (alignment < 4 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two >= 4: " + alignment);
        }
        final Arena arena = Arena.ofShared();
        final MemorySegment segment = arena.allocate(size, alignment);
        return new Memory(arena, segment, false, null, "private " + size + " bytes");
    }

    /**
     * Maps {@code size} bytes of a file from offset 0 with {@code MAP_SHARED}: other mappings
     * of the file, in this process or another, see the same words. The file must already be
     * at least {@code size} bytes long (this method never grows a file).
     *
     * @param path the file
     * @param size bytes to map
     * @return the mapping
     * @throws IOException when the file cannot be opened or is shorter than {@code size}
     */
    public static Memory map(final Path path, final long size) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return map(channel, path.toString(), size);
        }
    }

    /**
     * Maps the whole of a file with {@code MAP_SHARED}.
     *
     * @param path the file, at least 4 bytes long
     * @return the mapping
     * @throws IOException when the file cannot be opened or mapped
     */
    public static Memory map(final Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return map(channel, path.toString(), channel.size());
        }
    }

    /**
     * Maps {@code size} bytes of an open channel from offset 0 with {@code MAP_SHARED}.
     *
     * @param channel     a channel open for reading and writing
     * @param description what to call the mapping in messages
     * @param size        bytes to map; the file must be at least this long
     * @return the mapping
     * @throws IOException when the file is too short or cannot be mapped
     */
    public static Memory map(final FileChannel channel, final String description, final long size) throws IOException {
        if (size < 4) {
            throw new IllegalArgumentException("size must be at least one word: " + size);
        }
        final long fileSize = channel.size();
        if (fileSize < size) {
            throw new IOException(description + ": file is " + fileSize + " bytes, mapping needs " + size);
        }
        final Arena arena = Arena.ofShared();
        try {
            final MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            return new Memory(arena, segment, true, null, "mapping of " + description);
        } catch (final IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * A view of a user's Agrona buffer, so primitives can live beside an Agrona or Aeron data
     * structure. The buffer must be direct or mapped (a futex needs native memory); the view
     * keeps its {@link ByteBuffer} reachable. Closing the view does not free the buffer; freeing
     * a buffer that is not backed by a {@code ByteBuffer} while the view is open is the
     * caller's error, as in C.
     *
     * @param buffer the buffer
     * @param offset where the view starts in the buffer
     * @param length bytes in the view
     * @return the view
     * @throws IllegalArgumentException when the buffer is on the heap or the range is outside it
     */
    public static Memory wrap(final AtomicBuffer buffer, final int offset, final int length) {
        Objects.requireNonNull(buffer, "buffer");
        if (buffer.byteArray() != null) {
            throw new IllegalArgumentException("buffer is on the Java heap; a futex word needs direct or mapped memory");
        }
        if (offset < 0 || length < 4 || (long) offset + length > buffer.capacity()) {
            throw new IllegalArgumentException("range [" + offset + ", " + ((long) offset + length)
                + ") is outside the buffer's capacity " + buffer.capacity());
        }
        final Arena arena = Arena.ofShared();
        final MemorySegment segment;
        try {
            segment = MemorySegment.ofAddress(buffer.addressOffset() + offset).reinterpret(length, arena, null);
        } catch (final IllegalCallerException e) {
            arena.close();
            throw org.pthread4j.internal.NativeAccess.denied(e);
        }
        final ByteBuffer keep = buffer.byteBuffer();
        return new Memory(arena, segment, keep instanceof java.nio.MappedByteBuffer, keep, "view of an AtomicBuffer at " + offset);
    }

    /**
     * Carves a block out of this memory.
     *
     * @param offset    where the block starts
     * @param size      its size in bytes
     * @param alignment required alignment of its address (4 or 8 for musl's types)
     * @return the block
     * @throws IllegalArgumentException when the block is out of bounds or misaligned
     * @throws IllegalStateException    when this memory is closed
     */
    public Block block(final long offset, final long size, final long alignment) {
        checkOpen();
        if (alignment < 4 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two >= 4: " + alignment);
        }
        if (size < 4 || offset < 0 || offset > segment.byteSize() - size) {
            throw new IllegalArgumentException("block [" + offset + ", +" + size + ") is outside "
                + description + " of " + segment.byteSize() + " bytes");
        }
        if (((segment.address() + offset) & (alignment - 1)) != 0) {
            throw new IllegalArgumentException("block at offset " + offset + " is not " + alignment
                + "-byte aligned");
        }
        return new Block(this, segment.asSlice(offset, size), offset);
    }

    /**
     * A block of one 32-bit word.
     *
     * @param offset where the word is, a multiple of 4
     * @return the word as a 4-byte block
     */
    public Block word(final long offset) {
        return block(offset, 4, 4);
    }

    /** {@return the size in bytes} */
    public long size() {
        return segment.byteSize();
    }

    /** {@return whether this is a {@code MAP_SHARED} mapping that other processes can see} */
    public boolean isMapped() {
        return mapped;
    }

    /** {@return whether {@link #close()} has not been called} */
    public boolean isOpen() {
        return !closed.get();
    }

    /**
     * The segment over the whole memory, for code that needs raw access (the futex layer,
     * tests). Accesses through it are checked like those through a block.
     *
     * @return the segment
     */
    public MemorySegment segment() {
        return segment;
    }

    /**
     * Frees or unmaps the memory. Idempotent. Later accesses through any block of it throw
     * {@link IllegalStateException}.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            arena.close();
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException(description + " is closed");
        }
    }

    @Override
    public String toString() {
        return description + (closed.get() ? " (closed)" : "") + (keepAlive != null ? " [buffer-backed]" : "");
    }
}
