package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.ipc.SyncFileFormatException.Problem;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The words of {@link SyncFile#open}'s errors: each names the file and says what is wrong. */
class SyncFileMessagesTest {
    @TempDir
    Path dir;

    @Test
    void openOfAMissingFileSaysNoSuchFile() {
        final Path missing = dir.resolve("missing");
        final NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> SyncFile.open(missing));
        assertEquals(missing.toAbsolutePath() + ": no such file", e.getMessage());
    }

    @Test
    void aVersionFieldNoReleaseCouldHaveWrittenIsCorruptNotNewer() throws IOException {
        final Path p = dir.resolve("f");
        SyncFile.create(p, 2).close();
        setVersion(p, 0x0100_0001);
        final SyncFileFormatException e = assertThrows(SyncFileFormatException.class, () -> SyncFile.open(p));
        assertEquals(Problem.BAD_VERSION, e.problem());
        assertEquals(p.toAbsolutePath() + ": format version 16777217 (0x01000001) was never written by any pthread4j "
            + "release (versions are small counters; this library writes 1): the header is corrupt", e.getMessage());
        assertEquals(e.getMessage(), assertThrows(SyncFileFormatException.class,
            () -> SyncFileInspector.inspect(p)).getMessage(), "inspect gives the same message");
    }

    @Test
    void aSmallVersionAboveThisLibrarysIsANewerFile() throws IOException {
        final Path p = dir.resolve("f");
        SyncFile.create(p, 2).close();
        setVersion(p, SyncFileLayout.MAX_FUTURE_VERSION);
        assertEquals(Problem.NEWER_VERSION, assertThrows(SyncFileFormatException.class, () -> SyncFile.open(p)).problem());
    }

    private static void setVersion(final Path p, final int version) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, version), SyncFileLayout.VERSION_OFFSET);
        }
    }
}
