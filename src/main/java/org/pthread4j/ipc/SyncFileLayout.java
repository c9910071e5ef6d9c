package org.pthread4j.ipc;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The byte layout of a sync file, format version {@value #VERSION}: every offset and every
 * value of the header and of a directory entry, in Agrona's descriptor style. All numbers are
 * little-endian (the byte order of x86_64 and aarch64, the platforms whose musl layouts the
 * primitives copy); every word is naturally aligned.
 *
 * <pre>
 * 0                   64                                  dataStart                  totalSize
 * +-------------------+-----------------------------------+-------------------------------+
 * | header (64 bytes) | directory: capacity x 64-byte entry | slots' blocks, 64-aligned     |
 * +-------------------+-----------------------------------+-------------------------------+
 *
 * header                                   directory entry
 *  0  magic "PT4JSYNC"      8 bytes         0  name, ASCII, NUL-padded  32 bytes
 *  8  format version        int             32 state                    int   (futex word)
 * 12  data start            int             36 claim stamp              int
 * 16  total size            long            40 type                     int
 * 24  creator pid           int             44 size                     int
 * 28  capacity (entries)    int             48 offset                   long
 * 32  created, epoch ms     long            56 creator pid              int
 * 40  entry size (64)       int             60 reserved, zero           int
 * 44  reserved, zero        20 bytes
 * </pre>
 *
 * <p><b>Entry states.</b> {@link #FREE} (0): never used, or released; the other fields mean
 * nothing. {@link #creating(int) CREATING} ({@code 0x40000000 | pid}): a process claimed the
 * entry and is writing its fields and initializing its primitive; the claim stamp holds the low
 * 32 bits of that process's start time, so a claim by a dead process is recognized even after
 * its pid was reused. {@link #READY} (1): published; the fields never change again. Entries
 * are claimed strictly in index order, so a valid directory reads READY* (CREATING | FREE)?
 * FREE*. See {@link SyncFile} for the protocol.
 */
public final class SyncFileLayout {
    /** The magic: the ASCII bytes {@code PT4JSYNC} at offset 0. */
    public static final byte[] MAGIC = "PT4JSYNC".getBytes(StandardCharsets.US_ASCII);
    /** The format version this library writes and the newest it reads. */
    public static final int VERSION = 1;
    /**
     * The largest format version a later release could plausibly have written: versions grow by
     * one per incompatible change, so a larger number in the version field is corruption, not a
     * newer file.
     */
    public static final int MAX_FUTURE_VERSION = 255;

    /** Offset of the 8-byte magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the format version (int). */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the data start (int): where the directory ends and slots' blocks begin. */
    public static final int DATA_START_OFFSET = 12;
    /** Offset of the total size (long): the file's length in bytes. */
    public static final int TOTAL_SIZE_OFFSET = 16;
    /** Offset of the creator's pid (int). */
    public static final int CREATOR_PID_OFFSET = 24;
    /** Offset of the capacity (int): how many directory entries follow the header. */
    public static final int CAPACITY_OFFSET = 28;
    /** Offset of the creation time (long), milliseconds since the epoch. */
    public static final int CREATED_OFFSET = 32;
    /** Offset of the directory entry size (int), always {@link #ENTRY_SIZE}. */
    public static final int ENTRY_SIZE_FIELD_OFFSET = 40;
    /** Offset of the reserved header bytes, zero in version 1. */
    public static final int HEADER_RESERVED_OFFSET = 44;
    /** Size of the header; the directory starts here. */
    public static final int HEADER_SIZE = 64;

    /** Size of one directory entry. */
    public static final int ENTRY_SIZE = 64;
    /** Offset in an entry of the name: ASCII, NUL-padded, at most {@link #MAX_NAME_LENGTH} bytes. */
    public static final int ENTRY_NAME_OFFSET = 0;
    /** Bytes reserved for the name, including at least one terminating NUL. */
    public static final int NAME_FIELD_SIZE = 32;
    /** Longest name. */
    public static final int MAX_NAME_LENGTH = NAME_FIELD_SIZE - 1;
    /** Offset in an entry of the state word (int, a futex word that waiters sleep on). */
    public static final int ENTRY_STATE_OFFSET = 32;
    /** Offset in an entry of the claim stamp (int): low 32 bits of the claimer's start time. */
    public static final int ENTRY_STAMP_OFFSET = 36;
    /** Offset in an entry of the slot type (int, {@link SlotType#code()}). */
    public static final int ENTRY_TYPE_OFFSET = 40;
    /** Offset in an entry of the slot's size in bytes (int). */
    public static final int ENTRY_SIZE_OFFSET = 44;
    /** Offset in an entry of the slot's offset in the file (long). */
    public static final int ENTRY_OFFSET_OFFSET = 48;
    /** Offset in an entry of the pid of the process that created the slot (int). */
    public static final int ENTRY_CREATOR_OFFSET = 56;
    /** Offset in an entry of the reserved word, zero in version 1. */
    public static final int ENTRY_RESERVED_OFFSET = 60;

    /** Entry state: unused. */
    public static final int FREE = 0;
    /** Entry state: published; the entry and its primitive are initialized. */
    public static final int READY = 1;
    /** Bit set in the state of an entry being created; the low bits hold the creator's pid. */
    public static final int CREATING_BIT = 0x4000_0000;
    /** Largest pid Linux hands out ({@code PID_MAX_LIMIT}, 2^22). */
    public static final int PID_MAX = 1 << 22;

    /** Alignment this library gives every slot's block: a cache line. */
    public static final int SLOT_ALIGNMENT = 64;
    /** Alignment every slot's offset must have to be accepted (musl's types need 8). */
    public static final int MIN_SLOT_ALIGNMENT = 8;
    /** Largest capacity accepted. */
    public static final int MAX_CAPACITY = 1 << 16;
    /** Largest file accepted: 1 GiB. */
    public static final long MAX_TOTAL_SIZE = 1L << 30;
    /** Data bytes per directory entry that {@link SyncFile#create(java.nio.file.Path, int, org.pthread4j.SharedFileOption...)} reserves. */
    public static final int DEFAULT_BYTES_PER_SLOT = 64;

    static {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new ExceptionInInitializerError("sync files are little-endian; this platform is not");
        }
    }

    private SyncFileLayout() {
    }

    /**
     * {@return where the data area starts: after the header and the directory}
     *
     * @param capacity directory entries
     */
    public static int dataStart(final int capacity) {
        return HEADER_SIZE + capacity * ENTRY_SIZE;
    }

    /**
     * {@return the entry's offset in the file}
     *
     * @param index an entry's index
     */
    public static long entryOffset(final int index) {
        return HEADER_SIZE + (long) index * ENTRY_SIZE;
    }

    /**
     * {@return the state word of an entry being created by it}
     *
     * @param pid the claiming process
     */
    public static int creating(final int pid) {
        return CREATING_BIT | pid;
    }

    /**
     * {@return whether it says "being created" with a plausible pid}
     *
     * @param state a state word
     */
    public static boolean isCreating(final int state) {
        final int pid = state & ~CREATING_BIT;
        return (state & CREATING_BIT) != 0 && pid > 0 && pid <= PID_MAX;
    }

    /**
     * {@return the pid of the claiming process}
     *
     * @param state a CREATING state word
     */
    public static int creatingPid(final int state) {
        return state & ~CREATING_BIT;
    }

    /**
     * {@return the smallest multiple of {@code alignment} not below {@code value}}
     *
     * @param value a byte offset
     * @param alignment a power of two
     */
    public static long align(final long value, final long alignment) {
        return (value + alignment - 1) & -alignment;
    }

    /**
     * Whether a name can be a slot's: 1 to {@value #MAX_NAME_LENGTH} characters from
     * {@code A-Z a-z 0-9 _ . -}.
     *
     * @param name the name
     * @return null when it is valid, else what is wrong with it
     */
    public static String nameProblem(final String name) {
        if (name == null || name.isEmpty()) {
            return "name is empty";
        }
        if (name.length() > MAX_NAME_LENGTH) {
            return "name is " + name.length() + " characters long, longer than " + MAX_NAME_LENGTH;
        }
        for (int i = 0; i < name.length(); i++) {
            if (!isNameChar(name.charAt(i))) {
                return String.format("name has character 0x%02x at position %d (allowed: A-Z a-z 0-9 _ . -)",
                    (int) name.charAt(i), i);
            }
        }
        return null;
    }

    /**
     * {@return whether it may appear in a slot name}
     *
     * @param c a character or byte value
     */
    public static boolean isNameChar(final int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '_' || c == '.' || c == '-';
    }
}
