package org.pthread4j.ipc;

/**
 * The validated header of a sync file. It never changes after the file is created.
 *
 * @param version       the format version
 * @param dataStart     where slots' blocks may begin (after the header and the directory)
 * @param totalSize     the file's size in bytes
 * @param creatorPid    the pid of the process that created the file
 * @param capacity      how many directory entries the file has
 * @param createdMillis when it was created, milliseconds since the epoch
 */
public record SyncFileHeader(int version, int dataStart, long totalSize, int creatorPid, int capacity,
                             long createdMillis) {
}
