package org.pthread4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.ipc.SyncFile;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class DemoIpcCommandTest {
    @TempDir
    Path dir;

    @Test
    void theDemoPingPongsWithAPeerJvmThenRecoversFromItsDeathThroughEownerdeadAndRemovesTheFileItCreated() {
        final Path file = dir.resolve("demo");
        final Cli r = Cli.run("demo", "ipc", "--seconds", "1", "--file", file.toString());
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains(" round trips in all"), r.out());
        assertTrue(r.out().contains("held by tid "), r.out());
        assertTrue(r.out().contains("inspect: errorcheck robust, owner died (the next locker gets EOWNERDEAD)"), r.out());
        assertTrue(r.out().contains("lock returned EOWNERDEAD"), r.out());
        assertTrue(r.out().contains("trylock returned 0"), r.out());
        assertFalse(Files.exists(file), "the demo removes the file it created");
    }

    @Test
    void aFileThatIsNotASyncFileIsRefusedAndLeftByteForByte() throws Exception {
        final Path notes = dir.resolve("notes.txt");
        final byte[] text = "my notes, not a sync file\n".getBytes(StandardCharsets.UTF_8);
        Files.write(notes, text);
        final Cli r = Cli.run("demo", "ipc", "--seconds", "1", "--file", notes.toString());
        assertEquals(1, r.status(), r.toString());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("pthread4j demo ipc: " + notes + " exists and is not a pthread4j sync file ("),
            r.err());
        assertTrue(r.err().contains("it is left as it is"), r.err());
        assertArrayEquals(text, Files.readAllBytes(notes), "the file survives untouched");

        final Cli d = Cli.run("demo", "ipc", "--seconds", "1", "--file", dir.toString());
        assertEquals(1, d.status(), d.toString());
        assertTrue(d.err().startsWith("pthread4j demo ipc: " + dir + ": exists and is not a regular file"), d.err());
        assertTrue(Files.isDirectory(dir));
    }

    @Test
    void anExistingSyncFileIsUsedAndLeftInPlace() throws Exception {
        final Path file = dir.resolve("mine");
        SyncFile.create(file, 8).close();
        final Cli r = Cli.run("demo", "ipc", "--seconds", "0.2", "--file", file.toString());
        assertEquals(0, r.status(), r.toString());
        assertTrue(Files.exists(file), "a sync file the demo did not create stays");
        try (SyncFile f = SyncFile.open(file)) {
            assertTrue(f.find("m").isPresent());
        }
    }
}
