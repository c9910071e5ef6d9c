package org.pthread4j.ipc;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.ipc.SyncFileFormatException.Problem;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;
import static org.pthread4j.ipc.SyncFileLayout.*;

/**
 * Every kind of bad file is refused by {@link SyncFile#open} with its own problem and message,
 * and {@code inspect} prints that same message and exits with 1.
 */
class SyncFileValidationTest {
    private static final int CAPACITY = 4;

    @TempDir
    Path dir;

    /** A damage done to the bytes of a valid file with slots 'a' (mutex), 'b' (cond), 'c' (raw 16). */
    interface Damage extends Consumer<ByteBuffer> {
    }

    static Stream<Arguments> badFiles() {
        final long e0 = entryOffset(0);
        final long e1 = entryOffset(1);
        final long e2 = entryOffset(2);
        return Stream.of(
            bad("zero-length", b -> b.limit(0), Problem.EMPTY, "file is empty (0 bytes): not a pthread4j sync file"),
            bad("truncated header", b -> b.limit(40), Problem.TRUNCATED,
                "file is 40 bytes, shorter than the 64-byte header: truncated"),
            bad("tiny", b -> b.limit(5), Problem.TRUNCATED, "file is 5 bytes, shorter than the 64-byte header"),
            bad("truncated directory", b -> b.limit(200), Problem.TRUNCATED,
                "header says the file is " + total() + " bytes, but it is 200: truncated"),
            bad("truncated data", b -> b.limit((int) total() - 1), Problem.TRUNCATED, "truncated"),
            bad("longer than its header says", b -> b.putLong(TOTAL_SIZE_OFFSET, total() - 8), Problem.BAD_HEADER,
                "file is " + total() + " bytes, longer than the " + (total() - 8) + " its header says"),
            bad("wrong magic", b -> b.put(0, (byte) 0x7f).put(1, (byte) 'E').put(2, (byte) 'L').put(3, (byte) 'F'),
                Problem.BAD_MAGIC, "wrong magic: the file starts with 7f 45 4c 46 53 59 4e 43 (\".ELFSYNC\"), a sync file with \"PT4JSYNC\": not a pthread4j sync file"),
            bad("foreign text", b -> {
                b.put(0, "hello, world, this is text\n".getBytes(StandardCharsets.US_ASCII));
                b.limit(27);
            }, Problem.BAD_MAGIC, "wrong magic: the file starts with 68 65 6c 6c 6f 2c 20 77 (\"hello, w\")"),
            bad("newer version", b -> b.putInt(VERSION_OFFSET, 2), Problem.NEWER_VERSION,
                "format version 2 is newer than the newest this library reads (1): open it with a newer pthread4j"),
            bad("version zero", b -> b.putInt(VERSION_OFFSET, 0), Problem.BAD_VERSION, "unknown format version 0"),
            bad("entry size", b -> b.putInt(ENTRY_SIZE_FIELD_OFFSET, 32), Problem.BAD_HEADER,
                "directory entry size is 32, format version 1 has 64"),
            bad("capacity zero", b -> b.putInt(CAPACITY_OFFSET, 0), Problem.BAD_HEADER, "capacity 0 is out of range"),
            bad("capacity vs data start", b -> b.putInt(CAPACITY_OFFSET, 5), Problem.BAD_HEADER,
                "data start " + dataStart(CAPACITY) + " does not match capacity 5 (expected " + dataStart(5) + ")"),
            bad("reserved header byte", b -> b.put(50, (byte) 9), Problem.BAD_HEADER,
                "reserved header byte 50 is 0x09; format version 1 requires 0"),
            bad("creator pid", b -> b.putInt(CREATOR_PID_OFFSET, -3), Problem.BAD_HEADER, "creator pid -3 is out of range"),
            bad("slot offset out of bounds", b -> b.putLong((int) e1 + ENTRY_OFFSET_OFFSET, total() - 40), Problem.OUT_OF_BOUNDS,
                "slot 1 ('b') at [" + (total() - 40) + ", " + (total() + 8) + ") lies outside the data area ["
                    + dataStart(CAPACITY) + ", " + total() + ")"),
            bad("slot offset inside the directory", b -> b.putLong((int) e0 + ENTRY_OFFSET_OFFSET, 64), Problem.OUT_OF_BOUNDS,
                "slot 0 ('a') at [64, 104) lies outside the data area"),
            bad("negative offset", b -> b.putLong((int) e0 + ENTRY_OFFSET_OFFSET, -8), Problem.OUT_OF_BOUNDS,
                "slot 0 ('a') at [-8, 32) lies outside the data area"),
            bad("slot misaligned", b -> b.putLong((int) e1 + ENTRY_OFFSET_OFFSET, dataStart(CAPACITY) + 64 + 4), Problem.MISALIGNED,
                "slot 1 ('b') at offset " + (dataStart(CAPACITY) + 68) + " is not 8-byte aligned"),
            bad("overlapping slots", b -> b.putLong((int) e1 + ENTRY_OFFSET_OFFSET, dataStart(CAPACITY) + 32), Problem.OVERLAP,
                "slot 1 ('b') at [" + (dataStart(CAPACITY) + 32) + ", " + (dataStart(CAPACITY) + 80) + ") overlaps slot 0 ('a') at ["
                    + dataStart(CAPACITY) + ", " + (dataStart(CAPACITY) + 40) + ")"),
            bad("overlap from below", b -> b.putLong((int) e2 + ENTRY_OFFSET_OFFSET, dataStart(CAPACITY) + 56), Problem.OVERLAP,
                "slot 2 ('c') at [" + (dataStart(CAPACITY) + 56) + ", " + (dataStart(CAPACITY) + 72) + ") overlaps slot 1 ('b')"),
            bad("bad name byte", b -> b.put((int) e1 + 0, (byte) 0x7f), Problem.BAD_NAME,
                "slot 1 has a name with byte 0x7f at position 0 (allowed: A-Z a-z 0-9 _ . -)"),
            bad("name with a slash", b -> b.put((int) e1 + 1, (byte) '/'), Problem.BAD_NAME,
                "slot 1 has a name with byte 0x2f at position 1"),
            bad("empty name", b -> b.put((int) e0, (byte) 0), Problem.BAD_NAME, "slot 0 has an empty name"),
            bad("name without NUL", b -> {
                for (int k = 0; k < NAME_FIELD_SIZE; k++) {
                    b.put((int) e2 + k, (byte) 'z');
                }
            }, Problem.BAD_NAME, "slot 2 has a name with no terminating NUL within 32 bytes"),
            bad("name not NUL-padded", b -> b.put((int) e2 + 20, (byte) 'q'), Problem.BAD_NAME,
                "slot 2 ('c') has a name that is not NUL-padded: byte 0x71 at position 20 after the terminating NUL"),
            bad("duplicate name", b -> b.put((int) e1, (byte) 'a'), Problem.DUPLICATE_NAME,
                "slots 0 and 1 both have the name 'a'"),
            bad("unknown type", b -> b.putInt((int) e1 + ENTRY_TYPE_OFFSET, 99), Problem.BAD_TYPE,
                "slot 1 ('b') has unknown type 99"),
            bad("size wrong for type", b -> b.putInt((int) e0 + ENTRY_SIZE_OFFSET, 41), Problem.BAD_TYPE,
                "slot 0 ('a') is a mutex of 41 bytes; a mutex is 40 bytes"),
            bad("raw slot too small", b -> b.putInt((int) e2 + ENTRY_SIZE_OFFSET, 0), Problem.BAD_TYPE,
                "slot 2 ('c') is a raw of 0 bytes; a raw slot has at least 4 bytes"),
            bad("entry creator pid", b -> b.putInt((int) e1 + ENTRY_CREATOR_OFFSET, 0), Problem.BAD_HEADER,
                "slot 1 ('b') has creator pid 0, out of range"),
            bad("entry reserved word", b -> b.putInt((int) e1 + ENTRY_RESERVED_OFFSET, 5), Problem.BAD_HEADER,
                "slot 1 ('b') has reserved word 0x00000005; format version 1 requires 0"),
            bad("unknown state", b -> b.putInt((int) e2 + ENTRY_STATE_OFFSET, 7), Problem.BAD_STATE,
                "slot 2 has state 0x00000007, which is none of FREE (0), READY (1) or CREATING (0x40000000 | pid)"),
            bad("creating with pid 0", b -> b.putInt((int) e2 + ENTRY_STATE_OFFSET, CREATING_BIT), Problem.BAD_STATE,
                "slot 2 has state 0x40000000"),
            bad("published after a free entry", b -> b.putInt((int) e1 + ENTRY_STATE_OFFSET, FREE), Problem.BAD_ORDER,
                "slot 2 is READY after slot 1, which is FREE: entries are claimed in index order"),
            bad("two entries being created", b -> {
                b.putInt((int) e2 + ENTRY_STATE_OFFSET, creating(1));
                b.putInt((int) entryOffset(3) + ENTRY_STATE_OFFSET, creating(1));
            }, Problem.BAD_ORDER, "slot 3 is CREATING by pid 1 after slot 2, which is CREATING by pid 1"));
    }

    private static Arguments bad(final String what, final Damage damage, final Problem problem, final String message) {
        return Arguments.of(what, damage, problem, message);
    }

    private static long total() {
        return dataStart(CAPACITY) + (long) CAPACITY * DEFAULT_BYTES_PER_SLOT;
    }

    private Path validFile() throws IOException {
        final Path p = dir.resolve("valid");
        try (SyncFile f = SyncFile.create(p, CAPACITY)) {
            f.slot("a", SlotType.MUTEX, 40);
            f.slot("b", SlotType.COND, 48);
            f.slot("c", SlotType.RAW, 16);
        }
        return p;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void badFileIsRefusedByOpenAndInspectWithItsOwnMessage(final String what, final Damage damage, final Problem problem,
                                                           final String message) throws IOException {
        final Path p = validFile();
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
        damage.accept(b);
        final byte[] out = new byte[b.limit()];
        b.get(0, out);
        final Path broken = dir.resolve("broken");
        Files.write(broken, out);

        final SyncFileFormatException e = assertThrows(SyncFileFormatException.class, () -> SyncFile.open(broken).close(), what);
        assertEquals(problem, e.problem(), e.getMessage());
        assertTrue(e.getMessage().startsWith(broken.toAbsolutePath() + ": "), e.getMessage());
        assertTrue(e.detail().contains(message), "expected '" + message + "' in: " + e.detail());

        final SyncFileFormatException i = assertThrows(SyncFileFormatException.class, () -> SyncFileInspector.inspect(broken));
        assertEquals(e.getMessage(), i.getMessage());

        assertArrayEquals(out, Files.readAllBytes(broken), "neither open nor inspect wrote to the bad file");
    }
}
