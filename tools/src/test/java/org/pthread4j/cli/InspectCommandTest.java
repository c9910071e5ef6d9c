package org.pthread4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.ipc.SlotType;
import org.pthread4j.ipc.SyncFile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class InspectCommandTest {
    @TempDir
    Path dir;

    private record Run(int rc, String out, String err) {
    }

    private static Run run(final String... args) {
        final ByteArrayOutputStream o = new ByteArrayOutputStream();
        final ByteArrayOutputStream e = new ByteArrayOutputStream();
        final int rc = InspectCommand.run(args, new PrintStream(o, true, StandardCharsets.UTF_8),
            new PrintStream(e, true, StandardCharsets.UTF_8));
        return new Run(rc, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    private Path sample() throws IOException {
        final Path p = dir.resolve("sample");
        try (SyncFile f = SyncFile.create(p, 4)) {
            // An errorcheck robust process-shared mutex held by this thread with 2 waiters.
            f.slot("orders.lock", SlotType.MUTEX, 40, b -> {
                b.set(0, 0x80 | 4 | 2);
                b.set(4, 0x8000_0000 | org.pthread4j.internal.Syscall.gettid());
                b.set(8, 2);
            });
            f.slot("ring", SlotType.RAW, 128, b -> b.set(4, -1));
        }
        return p;
    }

    @Test
    void textReportShowsTheHeaderAndEverySlotWithoutChangingTheFile() throws IOException {
        final Path p = sample();
        final byte[] before = Files.readAllBytes(p);
        final Run r = run(p.toString());
        assertEquals(0, r.rc(), r.err());
        assertEquals("", r.err());
        assertTrue(r.out().startsWith(p.toAbsolutePath() + ": pthread4j sync file, format version 1\n"), r.out());
        assertTrue(r.out().contains("by pid " + ProcessHandle.current().pid() + " (alive)"), r.out());
        assertTrue(r.out().contains("slots 2 of 4 used"), r.out());
        assertTrue(r.out().contains("orders.lock  mutex"), r.out());
        assertTrue(r.out().contains("errorcheck robust, held by tid " + org.pthread4j.internal.Syscall.gettid()
            + " (alive), 2 waiters"), r.out());
        assertTrue(r.out().contains("ring         raw"), r.out());
        assertTrue(r.out().contains("00000000 ffffffff 00000000"), r.out());
        assertTrue(r.out().contains(" ..."), "a long raw slot is cut: " + r.out());
        assertArrayEquals(before, Files.readAllBytes(p));
    }

    @Test
    void jsonReportIsOneObjectWithEverySlot() throws IOException {
        final Path p = sample();
        final Run r = run(p.toString(), "--json");
        assertEquals(0, r.rc(), r.err());
        final String j = r.out().trim();
        assertTrue(j.startsWith("{\"path\":\"" + p.toAbsolutePath() + "\",\"version\":1,"), j);
        assertTrue(j.contains("\"capacity\":4,\"used\":2,\"slots\":[{\"index\":0,\"name\":\"orders.lock\",\"type\":\"mutex\""), j);
        assertTrue(j.contains("{\"index\":1,\"name\":\"ring\",\"type\":\"raw\""), j);
        assertTrue(j.contains("\"state\":{\"kind\":\"errorcheck\",\"robust\":true,\"pshared\":true,\"state\":\"held\",\"owner\":"
            + org.pthread4j.internal.Syscall.gettid() + ",\"ownerAlive\":true,\"waiters\":2,\"waitersBit\":true}"), j);
        assertTrue(j.endsWith("}]}"), j);
        assertEquals(1, r.out().lines().count());
    }

    @Test
    void aBareNameIsLookedUpInDevShm() throws IOException {
        final String name = "pthread4j-inspect-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        final Path p = SyncFile.shmPath(name);
        try {
            SyncFile.create(p, 2).close();
            final Run r = run(name);
            assertEquals(0, r.rc(), r.err());
            assertTrue(r.out().startsWith(p + ": "), r.out());
        } finally {
            SyncFile.unlink(p);
        }
    }

    @Test
    void usageErrorsAndMissingFiles() {
        assertEquals(2, run().rc());
        assertEquals(2, run("a", "b").rc());
        assertEquals(2, run("--frobnicate", "a").rc());
        assertEquals(0, run("--help").rc());
        final Run missing = run(dir.resolve("nope").toString());
        assertEquals(1, missing.rc());
        assertEquals("pthread4j inspect: " + dir.resolve("nope").toAbsolutePath() + ": no such file\n", missing.err());
    }

    @Test
    void aCorruptFileIsReportedInOneLineAndLeftAsItWas() throws IOException {
        final Path p = sample();
        final byte[] bytes = Files.readAllBytes(p);
        bytes[0] ^= 0x55;
        Files.write(p, bytes);
        final Run r = run(p.toString());
        assertEquals(1, r.rc());
        assertEquals("", r.out());
        final org.pthread4j.ipc.SyncFileFormatException e =
            assertThrows(org.pthread4j.ipc.SyncFileFormatException.class, () -> SyncFile.open(p).close());
        assertEquals("pthread4j inspect: " + e.getMessage() + System.lineSeparator(), r.err());
        assertArrayEquals(bytes, Files.readAllBytes(p), "inspect wrote nothing to the bad file");
    }
}
