package org.pthread4j.ipc;

/**
 * A published slot of a sync file, as its directory entry describes it. Published entries never
 * change, so this is exact for as long as the file exists.
 *
 * @param index      the directory entry's index
 * @param name       the slot's name
 * @param type       what it holds
 * @param offset     where its block starts in the file
 * @param size       the block's size in bytes
 * @param creatorPid the pid of the process that created it
 */
public record SlotInfo(int index, String name, SlotType type, long offset, int size, int creatorPid) {
    /** {@return the offset just past the block} */
    public long end() {
        return offset + size;
    }
}
