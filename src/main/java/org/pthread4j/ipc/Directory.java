package org.pthread4j.ipc;

import org.pthread4j.ipc.SyncFileFormatException.Problem;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.pthread4j.ipc.SyncFileLayout.*;

/**
 * The validating reader of a sync file: the header checks, and the validated prefix of
 * published directory entries, which only grows (published entries never change). Every read
 * goes through the bounds-checked segment, so a corrupt file can make a check fail but never
 * makes it touch memory outside the mapping.
 *
 * <p>Thread-safe: the prefix is guarded by this object's monitor, which is never held while
 * waiting for another process.
 */
final class Directory {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private final Path path;
    private final MemorySegment seg;
    private final SyncFileHeader header;
    private final List<SlotInfo> slots = new ArrayList<>();
    private final Map<String, SlotInfo> byName = new HashMap<>();
    private final TreeMap<Long, SlotInfo> byOffset = new TreeMap<>();
    private long dataEnd;

    private Directory(final Path path, final MemorySegment seg, final SyncFileHeader header) {
        this.path = path;
        this.seg = seg;
        this.header = header;
        this.dataEnd = header.dataStart();
    }

    /**
     * Validates the header and every directory entry of a mapped file.
     *
     * @param path       the file, for messages
     * @param seg        the mapping of the whole file
     * @param fileLength the file's length when it was mapped
     * @return the directory, with every published entry validated
     * @throws SyncFileFormatException when anything is wrong
     */
    static Directory load(final Path path, final MemorySegment seg, final long fileLength)
            throws SyncFileFormatException {
        final SyncFileHeader h = readHeader(path, seg, fileLength);
        final Directory d = new Directory(path, seg, h);
        d.scan();
        return d;
    }

    /**
     * Checks the header from a copy of the file's first bytes, so that a foreign or huge file is
     * never mapped.
     *
     * @return the file's length
     */
    static long precheck(final Path path, final FileChannel ch) throws IOException {
        final long length = ch.size();
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment first = a.allocate(HEADER_SIZE, 8);
            final ByteBuffer bb = first.asByteBuffer();
            while (bb.hasRemaining()) {
                if (ch.read(bb, bb.position()) < 0) {
                    break;
                }
            }
            readHeader(path, first, length);
        }
        return length;
    }

    /**
     * The header checks, in the order that gives the most useful message: emptiness, magic,
     * truncation, version, then each field.
     */
    static SyncFileHeader readHeader(final Path path, final MemorySegment seg, final long fileLength)
            throws SyncFileFormatException {
        if (fileLength == 0) {
            throw bad(path, Problem.EMPTY, "file is empty (0 bytes): not a pthread4j sync file");
        }
        if (fileLength >= MAGIC.length) {
            final byte[] found = new byte[MAGIC.length];
            MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, MAGIC_OFFSET, found, 0, MAGIC.length);
            if (!java.util.Arrays.equals(found, MAGIC)) {
                throw bad(path, Problem.BAD_MAGIC, "wrong magic: the file starts with " + hex(found)
                    + " (\"" + printable(found) + "\"), a sync file with \"" + new String(MAGIC, StandardCharsets.US_ASCII)
                    + "\": not a pthread4j sync file");
            }
        }
        if (fileLength < HEADER_SIZE) {
            throw bad(path, Problem.TRUNCATED, "file is " + fileLength + " bytes, shorter than the "
                + HEADER_SIZE + "-byte header: truncated");
        }
        final int version = seg.get(INT, VERSION_OFFSET);
        if (version > MAX_FUTURE_VERSION) {
            throw bad(path, Problem.BAD_VERSION, "format version " + version + String.format(" (0x%08x)", version)
                + " was never written by any pthread4j release (versions are small counters; this library writes "
                + VERSION + "): the header is corrupt");
        }
        if (version > VERSION) {
            throw bad(path, Problem.NEWER_VERSION, "format version " + version
                + " is newer than the newest this library reads (" + VERSION + "): open it with a newer pthread4j");
        }
        if (version < 1) {
            throw bad(path, Problem.BAD_VERSION, "unknown format version " + version + " (this library reads 1 to "
                + VERSION + ")");
        }
        final int entrySize = seg.get(INT, ENTRY_SIZE_FIELD_OFFSET);
        if (entrySize != ENTRY_SIZE) {
            throw bad(path, Problem.BAD_HEADER, "directory entry size is " + entrySize + ", format version "
                + version + " has " + ENTRY_SIZE);
        }
        final int capacity = seg.get(INT, CAPACITY_OFFSET);
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw bad(path, Problem.BAD_HEADER, "capacity " + capacity + " is out of range [1, " + MAX_CAPACITY + "]");
        }
        final int dataStart = seg.get(INT, DATA_START_OFFSET);
        if (dataStart != SyncFileLayout.dataStart(capacity)) {
            throw bad(path, Problem.BAD_HEADER, "data start " + dataStart + " does not match capacity " + capacity
                + " (expected " + SyncFileLayout.dataStart(capacity) + ")");
        }
        for (int off = HEADER_RESERVED_OFFSET; off < HEADER_SIZE; off++) {
            final byte b = seg.get(ValueLayout.JAVA_BYTE, off);
            if (b != 0) {
                throw bad(path, Problem.BAD_HEADER, String.format(
                    "reserved header byte %d is 0x%02x; format version 1 requires 0", off, b & 0xff));
            }
        }
        final long totalSize = seg.get(LONG, TOTAL_SIZE_OFFSET);
        if (totalSize < dataStart || totalSize > MAX_TOTAL_SIZE) {
            throw bad(path, Problem.BAD_HEADER, "total size " + totalSize + " is out of range [" + dataStart
                + " (header and directory), " + MAX_TOTAL_SIZE + "]");
        }
        if (totalSize > fileLength) {
            throw bad(path, Problem.TRUNCATED, "header says the file is " + totalSize + " bytes, but it is "
                + fileLength + ": truncated");
        }
        if (totalSize < fileLength) {
            throw bad(path, Problem.BAD_HEADER, "file is " + fileLength + " bytes, longer than the " + totalSize
                + " its header says");
        }
        final int creatorPid = seg.get(INT, CREATOR_PID_OFFSET);
        if (creatorPid <= 0 || creatorPid > PID_MAX) {
            throw bad(path, Problem.BAD_HEADER, "creator pid " + creatorPid + " is out of range [1, " + PID_MAX + "]");
        }
        final long created = seg.get(LONG, CREATED_OFFSET);
        return new SyncFileHeader(version, dataStart, totalSize, creatorPid, capacity, created);
    }

    /**
     * Walks the directory: the published prefix is validated entry by entry, then every entry
     * after the first unpublished one must be FREE. An entry published while we read is
     * recognized (claims happen in index order, so a later entry can only be in use once every
     * earlier one is published for good) and the walk goes on from it.
     */
    private void scan() throws SyncFileFormatException {
        final int cap = header.capacity();
        int i = readyCount();
        outer:
        while (i < cap) {
            final int state = state(i);
            if (state == READY) {
                accept(i);
                i++;
                continue;
            }
            checkState(i, state);
            for (int j = i + 1; j < cap; j++) {
                final int sj = state(j);
                if (sj == FREE) {
                    continue;
                }
                checkState(j, sj);
                if (state(i) == READY) {
                    continue outer;
                }
                throw bad(path, Problem.BAD_ORDER, "slot " + j + " is " + describeState(sj) + " after slot " + i
                    + ", which is " + describeState(state(i)) + ": entries are claimed in index order");
            }
            return;
        }
    }

    private void checkState(final int i, final int state) throws SyncFileFormatException {
        if (state != FREE && state != READY && !isCreating(state)) {
            throw bad(path, Problem.BAD_STATE, String.format(
                "slot %d has state 0x%08x, which is none of FREE (0), READY (1) or CREATING (0x40000000 | pid)", i, state));
        }
    }

    static String describeState(final int state) {
        if (state == FREE) {
            return "FREE";
        }
        if (state == READY) {
            return "READY";
        }
        if (isCreating(state)) {
            return "CREATING by pid " + creatingPid(state);
        }
        return String.format("0x%08x", state);
    }

    /** {@return the entry's state word, volatile} */
    int state(final int index) {
        return (int) org.pthread4j.memory.Block.INT.getVolatile(seg, entryOffset(index) + ENTRY_STATE_OFFSET);
    }

    /** {@return the number of validated published entries} */
    synchronized int readyCount() {
        return slots.size();
    }

    /** {@return the validated entry with this name, or null} */
    synchronized SlotInfo byName(final String name) {
        return byName.get(name);
    }

    /** {@return the validated published entries, in index order} */
    synchronized List<SlotInfo> slots() {
        return List.copyOf(slots);
    }

    /** {@return where the next slot's block goes: past every published block, cache-line aligned} */
    synchronized long nextOffset() {
        return align(dataEnd, SLOT_ALIGNMENT);
    }

    SyncFileHeader header() {
        return header;
    }

    /**
     * Validates the published entry {@code index} (whose state was read as READY after every
     * earlier entry was accepted) and adds it to the prefix. Idempotent.
     *
     * @return the entry
     */
    synchronized SlotInfo accept(final int index) throws SyncFileFormatException {
        if (index < slots.size()) {
            return slots.get(index);
        }
        if (index != slots.size()) {
            throw new IllegalStateException("entry " + index + " accepted before entry " + slots.size());
        }
        final long e = entryOffset(index);
        final String name = readName(index, e);
        final String quoted = "slot " + index + " ('" + name + "')";
        final int typeCode = seg.get(INT, e + ENTRY_TYPE_OFFSET);
        final SlotType type = SlotType.ofCode(typeCode);
        if (type == null) {
            throw bad(path, Problem.BAD_TYPE, quoted + " has unknown type " + typeCode);
        }
        final int size = seg.get(INT, e + ENTRY_SIZE_OFFSET);
        if (!type.accepts(size)) {
            throw bad(path, Problem.BAD_TYPE, quoted + " is a " + type.label() + " of " + size + " bytes; a "
                + type.label() + (type == SlotType.RAW ? " slot has at least " + SlotType.MIN_RAW_SIZE : " is " + type.size())
                + " bytes");
        }
        final long offset = seg.get(LONG, e + ENTRY_OFFSET_OFFSET);
        if (offset < header.dataStart() || offset > header.totalSize() - size) {
            throw bad(path, Problem.OUT_OF_BOUNDS, quoted + " at [" + offset + ", " + (offset + size)
                + ") lies outside the data area [" + header.dataStart() + ", " + header.totalSize() + ")");
        }
        if (offset % MIN_SLOT_ALIGNMENT != 0) {
            throw bad(path, Problem.MISALIGNED, quoted + " at offset " + offset + " is not " + MIN_SLOT_ALIGNMENT
                + "-byte aligned");
        }
        final int creator = seg.get(INT, e + ENTRY_CREATOR_OFFSET);
        if (creator <= 0 || creator > PID_MAX) {
            throw bad(path, Problem.BAD_HEADER, quoted + " has creator pid " + creator + ", out of range [1, "
                + PID_MAX + "]");
        }
        final int reserved = seg.get(INT, e + ENTRY_RESERVED_OFFSET);
        if (reserved != 0) {
            throw bad(path, Problem.BAD_HEADER, String.format("%s has reserved word 0x%08x; format version 1 requires 0",
                quoted, reserved));
        }
        final SlotInfo s = new SlotInfo(index, name, type, offset, size, creator);
        final SlotInfo same = byName.get(name);
        if (same != null) {
            throw bad(path, Problem.DUPLICATE_NAME, "slots " + same.index() + " and " + index + " both have the name '"
                + name + "'");
        }
        final Map.Entry<Long, SlotInfo> below = byOffset.floorEntry(offset);
        if (below != null && below.getValue().end() > offset) {
            throw overlap(s, below.getValue());
        }
        final Map.Entry<Long, SlotInfo> above = byOffset.ceilingEntry(offset);
        if (above != null && above.getKey() < s.end()) {
            throw overlap(s, above.getValue());
        }
        slots.add(s);
        byName.put(name, s);
        byOffset.put(offset, s);
        dataEnd = Math.max(dataEnd, s.end());
        return s;
    }

    private SyncFileFormatException overlap(final SlotInfo s, final SlotInfo other) {
        return bad(path, Problem.OVERLAP, "slot " + s.index() + " ('" + s.name() + "') at [" + s.offset() + ", "
            + s.end() + ") overlaps slot " + other.index() + " ('" + other.name() + "') at [" + other.offset() + ", "
            + other.end() + ")");
    }

    private String readName(final int index, final long e) throws SyncFileFormatException {
        final byte[] b = new byte[NAME_FIELD_SIZE];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, e + ENTRY_NAME_OFFSET, b, 0, NAME_FIELD_SIZE);
        int n = 0;
        while (n < NAME_FIELD_SIZE && b[n] != 0) {
            n++;
        }
        if (n == 0) {
            throw bad(path, Problem.BAD_NAME, "slot " + index + " has an empty name");
        }
        if (n == NAME_FIELD_SIZE) {
            throw bad(path, Problem.BAD_NAME, "slot " + index + " has a name with no terminating NUL within "
                + NAME_FIELD_SIZE + " bytes");
        }
        for (int k = 0; k < n; k++) {
            if (!isNameChar(b[k] & 0xff)) {
                throw bad(path, Problem.BAD_NAME, String.format(
                    "slot %d has a name with byte 0x%02x at position %d (allowed: A-Z a-z 0-9 _ . -)", index, b[k] & 0xff, k));
            }
        }
        final String name = new String(b, 0, n, StandardCharsets.US_ASCII);
        for (int k = n + 1; k < NAME_FIELD_SIZE; k++) {
            if (b[k] != 0) {
                throw bad(path, Problem.BAD_NAME, String.format(
                    "slot %d ('%s') has a name that is not NUL-padded: byte 0x%02x at position %d after the terminating NUL",
                    index, name, b[k] & 0xff, k));
            }
        }
        return name;
    }

    static SyncFileFormatException bad(final Path path, final Problem problem, final String detail) {
        return new SyncFileFormatException(path, problem, detail);
    }

    private static String hex(final byte[] b) {
        final StringBuilder sb = new StringBuilder();
        for (final byte x : b) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }

    private static String printable(final byte[] b) {
        final StringBuilder sb = new StringBuilder();
        for (final byte x : b) {
            final int c = x & 0xff;
            sb.append(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? (char) c : '.');
        }
        return sb.toString();
    }
}
