package org.pthread4j;

/**
 * The {@code open(2)} flags a named object's {@code open} honours, with Linux's values, and
 * its default permission bits.
 */
public final class OpenFlags {
    /** {@code O_CREAT}: create the object if it does not exist. */
    public static final int O_CREAT = 0100;
    /** {@code O_EXCL}: with {@link #O_CREAT}, fail with EEXIST if it exists. */
    public static final int O_EXCL = 0200;
    /** Permission bits of a created object when none are given: owner read and write. */
    public static final int DEFAULT_MODE = 0600;

    private OpenFlags() {
    }
}
