package org.pthread4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A fixed-size, bounds-checked piece of {@link Memory} that one primitive lives in, with the
 * atomic operations musl uses on its words. Offsets are relative to the block's start.
 *
 * <p>Every operation is volatile-mode: musl treats every atomic as a full barrier
 * ({@code docs/sources.md}, "musl: atomics and memory order"), and a volatile access in Java is totally ordered with every
 * other, so an unlock's releasing store cannot pass its later read of a waiter count. CAS
 * returns the witness value, like musl's {@code a_cas}.
 *
 * <p>An access outside the block throws {@link IndexOutOfBoundsException}, a misaligned one
 * {@link IllegalArgumentException}, one after the memory was closed
 * {@link IllegalStateException}. None of them touches memory.
 */
public final class Block {
    /** Volatile 32-bit access to (segment, offset). */
    public static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    /** Volatile 64-bit access to (segment, offset). */
    public static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final Memory memory;
    private final MemorySegment segment;
    private final long offsetInMemory;

    Block(final Memory memory, final MemorySegment segment, final long offsetInMemory) {
        this.memory = memory;
        this.segment = segment;
        this.offsetInMemory = offsetInMemory;
    }

    /** {@return the memory this block is part of} */
    public Memory memory() {
        return memory;
    }

    /** {@return the segment over exactly this block (offset 0 is the block's first byte)} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return where this block starts in its memory} */
    public long offsetInMemory() {
        return offsetInMemory;
    }

    /** {@return the block's size in bytes} */
    public long size() {
        return segment.byteSize();
    }

    /**
     * {@return the native address of that byte (what a futex call passes to the kernel)}
     *
     * @param off byte offset in the block
     */
    public long address(final long off) {
        return segment.address() + off;
    }

    /**
     * Reads a word with a volatile (full-barrier) read.
     *
     * @param off word offset
     * @return the word
     */
    public int get(final long off) {
        return (int) INT.getVolatile(segment, off);
    }

    /**
     * Stores a word with a volatile (full-barrier) write.
     *
     * @param off   word offset
     * @param value the new value
     */
    public void set(final long off, final int value) {
        INT.setVolatile(segment, off, value);
    }

    /**
     * musl's {@code a_cas}.
     *
     * @param off    word offset
     * @param expect expected value
     * @param update new value
     * @return the value found (equal to {@code expect} if and only if the swap happened)
     */
    public int cas(final long off, final int expect, final int update) {
        return (int) INT.compareAndExchange(segment, off, expect, update);
    }

    /**
     * musl's {@code a_fetch_add}.
     *
     * @param off   word offset
     * @param delta addend
     * @return the old value
     */
    public int getAndAdd(final long off, final int delta) {
        return (int) INT.getAndAdd(segment, off, delta);
    }

    /**
     * musl's {@code a_swap}.
     *
     * @param off   word offset
     * @param value new value
     * @return the old value
     */
    public int getAndSet(final long off, final int value) {
        return (int) INT.getAndSet(segment, off, value);
    }

    /**
     * musl's {@code a_fetch_or}.
     *
     * @param off  word offset
     * @param bits the bits to set
     * @return the old value
     */
    public int getAndOr(final long off, final int bits) {
        return (int) INT.getAndBitwiseOr(segment, off, bits);
    }

    /**
     * musl's {@code a_fetch_and}.
     *
     * @param off  word offset
     * @param mask the bits to keep
     * @return the old value
     */
    public int getAndAnd(final long off, final int mask) {
        return (int) INT.getAndBitwiseAnd(segment, off, mask);
    }

    /**
     * Reads a 64-bit field (a pointer in musl's layout) with a volatile read.
     *
     * @param off 8-aligned offset
     * @return the field
     */
    public long getLong(final long off) {
        return (long) LONG.getVolatile(segment, off);
    }

    /**
     * Stores a 64-bit field with a volatile write.
     *
     * @param off   8-aligned offset
     * @param value the new value
     */
    public void setLong(final long off, final long value) {
        LONG.setVolatile(segment, off, value);
    }

    /**
     * Compares and exchanges a 64-bit field.
     *
     * @param off    8-aligned offset
     * @param expect expected value
     * @param update new value
     * @return the value found (equal to {@code expect} if and only if the swap happened)
     */
    public long casLong(final long off, final long expect, final long update) {
        return (long) LONG.compareAndExchange(segment, off, expect, update);
    }

    /** Zeroes the block, as {@code memset(p, 0, size)} before a musl {@code *_init}. */
    public void clear() {
        segment.fill((byte) 0);
    }

    @Override
    public String toString() {
        return "Block[" + offsetInMemory + ", +" + segment.byteSize() + " of " + memory + "]";
    }
}
