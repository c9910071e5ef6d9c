package org.pthread4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.cli.bench.ChildJvm;
import org.pthread4j.ipc.SlotType;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.ipc.SyncFileLayout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class InspectCommandTest {
    private static final String USER = System.getProperty("user.name");

    @TempDir
    Path dir;

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
    void textReportShowsOwnerModeHeaderAndEverySlotWithoutChangingTheFile() throws IOException {
        final Path p = sample();
        final byte[] before = Files.readAllBytes(p);
        final Cli r = Cli.run("inspect", p.toString());
        assertEquals(0, r.status(), r.toString());
        assertEquals("", r.err());
        assertTrue(r.out().startsWith(p.toAbsolutePath() + ": pthread4j sync file, format version 1\n"), r.out());
        assertTrue(r.out().contains("\n  owner " + USER + ", group "), r.out());
        assertTrue(r.out().contains(", mode 0600 (rw-------)\n"), r.out());
        assertFalse(r.out().contains("WARNING"), r.out());
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
    void aFileOthersMayWriteIsFlagged() throws IOException {
        final Path p = sample();
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-rw-rw-"));
        final Cli r = Cli.run("inspect", p.toString());
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains(", mode 0666 (rw-rw-rw-)\n"), r.out());
        assertTrue(r.out().contains("WARNING: writable by group "), r.out());
        assertTrue(r.out().contains(" and every user, not only its owner: any of their processes can change the lock "
            + "words"), r.out());
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw----r--"));
        assertFalse(Cli.run("inspect", p.toString()).out().contains("WARNING"), "readable is not writable");
        final String json = Cli.run("inspect", "--json", p.toString()).out();
        assertTrue(json.contains(",\"owner\":\"" + USER + "\",\"group\":"), json);
        assertTrue(json.contains(",\"mode\":\"0604\",\"writableByOthers\":false,"), json);
    }

    @Test
    void jsonReportIsOneObjectWithEverySlot() throws IOException {
        final Path p = sample();
        final Cli r = Cli.run("inspect", p.toString(), "--json");
        assertEquals(0, r.status(), r.toString());
        final String j = r.out().trim();
        assertTrue(j.startsWith("{\"path\":\"" + p.toAbsolutePath() + "\",\"version\":1,"), j);
        assertTrue(j.contains("\"capacity\":4,\"used\":2,\"slots\":[{\"index\":0,\"name\":\"orders.lock\",\"type\":\"mutex\""), j);
        assertTrue(j.contains("{\"index\":1,\"name\":\"ring\",\"type\":\"raw\""), j);
        assertTrue(j.contains("\"state\":{\"kind\":\"errorcheck\",\"robust\":true,\"pshared\":true,\"state\":\"held\",\"owner\":"
            + org.pthread4j.internal.Syscall.gettid() + ",\"ownerAlive\":true,\"waiters\":2,\"waitersBit\":true},\"asleep\":[]}"), j);
        assertTrue(j.contains("}],\"notLookedInto\":["), j);
        assertTrue(j.endsWith("]}"), j);
        assertEquals(1, r.out().lines().count());
    }

    @Test
    void aBareNameIsLookedUpInTheWorkingDirectoryThenInDevShm() throws IOException {
        final String name = "pthread4j-inspect-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        final Path p = SyncFile.shmPath(name);
        try {
            SyncFile.create(p, 2).close();
            final Cli r = Cli.run("inspect", name);
            assertEquals(0, r.status(), r.toString());
            assertTrue(r.out().startsWith(p + ": "), r.out());
        } finally {
            SyncFile.unlink(p);
        }
        final Cli missing = Cli.run("inspect", name);
        assertEquals(1, missing.status());
        assertEquals("pthread4j inspect: " + Path.of(name).toAbsolutePath() + ": no such file (nor " + name
            + " in /dev/shm)\n", missing.err());
    }

    @Test
    void severalFilesAreInspectedInTurnAndAMissingOneIsNamed() throws IOException {
        final Path p = sample();
        final Cli r = Cli.run("inspect", p.toString(), dir.resolve("nope").toString());
        assertEquals(1, r.status(), r.toString());
        assertTrue(r.out().startsWith(p.toAbsolutePath() + ": pthread4j sync file"), r.toString());
        assertEquals("pthread4j inspect: " + dir.resolve("nope").toAbsolutePath() + ": no such file\n", r.err());
    }

    @Test
    void aFifoIsRefusedWithoutBlocking() throws Exception {
        final Path fifo = dir.resolve("fifo");
        assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo");
        final Cli r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> Cli.run("inspect", fifo.toString()),
            "inspect blocked opening a FIFO");
        assertEquals(1, r.status(), r.toString());
        assertEquals("pthread4j inspect: " + fifo + ": not a regular file (a FIFO)\n", r.err());
    }

    @Test
    void aDirectoryIsRefusedInWords() {
        final Cli r = Cli.run("inspect", dir.toString());
        assertEquals(1, r.status(), r.toString());
        assertEquals("pthread4j inspect: " + dir + ": is a directory\n", r.err());
    }

    /**
     * As root, file permissions do not apply; the inspector then runs in a child JVM whose
     * bounding set lacks CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, so the kernel refuses it.
     */
    @Test
    void anUnreadableFileGivesPermissionDeniedInWords() throws Exception {
        final Path p = sample();
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("---------"));
        final List<String> cmd = new java.util.ArrayList<>();
        if (USER.equals("root")) {
            assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv is needed to drop root's file access");
            cmd.addAll(List.of("/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search"));
        }
        cmd.addAll(ChildJvm.command(Main.class.getName(), List.of("inspect", p.toString())));
        final Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(proc.waitFor(120, TimeUnit.SECONDS));
        assertEquals(1, proc.exitValue(), out);
        assertEquals("pthread4j inspect: " + p + ": permission denied\n", out);
    }

    @Test
    void aCorruptFileIsReportedInOneLineAndLeftAsItWas() throws IOException {
        final Path p = sample();
        final byte[] bytes = Files.readAllBytes(p);
        bytes[0] ^= 0x55;
        Files.write(p, bytes);
        final Cli r = Cli.run("inspect", p.toString());
        assertEquals(1, r.status());
        assertEquals("", r.out());
        final org.pthread4j.ipc.SyncFileFormatException e =
            assertThrows(org.pthread4j.ipc.SyncFileFormatException.class, () -> SyncFile.open(p).close());
        assertEquals("pthread4j inspect: " + e.getMessage() + "\n", r.err());
        assertArrayEquals(bytes, Files.readAllBytes(p), "inspect wrote nothing to the bad file");
    }

    @Test
    void aVersionNoReleaseWroteIsCalledCorruptNotNewer() throws IOException {
        final Path p = sample();
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 16777217), SyncFileLayout.VERSION_OFFSET);
        }
        final Cli r = Cli.run("inspect", p.toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains("format version 16777217 (0x01000001) was never written by any pthread4j release"),
            r.err());
        assertTrue(r.err().contains("the header is corrupt"), r.err());
        assertFalse(r.err().contains("newer"), r.err());
    }
}
