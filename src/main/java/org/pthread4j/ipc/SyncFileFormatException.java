package org.pthread4j.ipc;

import java.io.IOException;
import java.io.Serial;

/**
 * A file that is not a usable sync file: empty, truncated, foreign, written by a newer format
 * version, or corrupt. The message names the file and says exactly what is wrong; it is what
 * {@link SyncFile#open} throws and what {@code ./pthread4j inspect} prints. Nothing in the file
 * was used before the problem was found.
 */
public final class SyncFileFormatException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The kind of problem, for code that reacts to it. */
    public enum Problem {
        /** The file has no bytes at all. */
        EMPTY,
        /** The file is shorter than its header, or than the size its header states. */
        TRUNCATED,
        /** The first eight bytes are not the magic: not a sync file. */
        BAD_MAGIC,
        /** Written by a newer format version than this library reads. */
        NEWER_VERSION,
        /** A version number that no release ever wrote. */
        BAD_VERSION,
        /** A header field is out of range or inconsistent with another. */
        BAD_HEADER,
        /** A directory entry's state word is not FREE, CREATING(pid) or READY. */
        BAD_STATE,
        /** A directory entry's name is empty, too long, not NUL-padded or has a bad byte. */
        BAD_NAME,
        /** Two published entries have the same name. */
        DUPLICATE_NAME,
        /** A published entry's type is unknown, or its size does not fit its type. */
        BAD_TYPE,
        /** A published entry's block lies outside the data area. */
        OUT_OF_BOUNDS,
        /** A published entry's offset is not 8-byte aligned. */
        MISALIGNED,
        /** Two published entries' blocks overlap. */
        OVERLAP,
        /** Entries are not in the order the creation protocol guarantees. */
        BAD_ORDER
    }

    private final transient java.nio.file.Path path;
    /** The kind of problem. */
    private final Problem problem;
    /** What exactly is wrong, without the file name. */
    private final String detail;

    /**
     * Creates the exception for one problem in one file.
     *
     * @param path    the file
     * @param problem the kind of problem
     * @param detail  what exactly is wrong, without the file name
     */
    public SyncFileFormatException(final java.nio.file.Path path, final Problem problem, final String detail) {
        super(path + ": " + detail);
        this.path = path;
        this.problem = problem;
        this.detail = detail;
    }

    /** {@return the file} */
    public java.nio.file.Path path() {
        return path;
    }

    /** {@return the kind of problem} */
    public Problem problem() {
        return problem;
    }

    /** {@return what is wrong, without the file name} */
    public String detail() {
        return detail;
    }
}
