package org.pthread4j.ipc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.ErrnoException;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.OpenFlags;
import org.pthread4j.Sem;
import org.pthread4j.SharedFileOption;
import org.pthread4j.futex.Errno;
import org.pthread4j.testing.ChildJvm;
import org.pthread4j.testing.OtherUser;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Who may use a shared file (issue 22): a sync file or a named semaphore is opened without
 * following a link, created with a mode the umask filters, and refused when another user owns
 * it or its group or others may write it, unless the caller passes
 * {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS}. The second user is made with
 * {@code setpriv} when the tests run as root (as in CI); those tests are skipped otherwise.
 */
class SharedFileAccessTest {
    private static final SharedFileOption ALLOW = SharedFileOption.ALLOW_WRITES_BY_OTHER_USERS;
    private static final Duration CHILD = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private final List<String> sems = new ArrayList<>();

    private String semName() {
        final String n = "pthread4j-access-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        sems.add(n);
        return n;
    }

    private static Path semFile(final String name) {
        return Path.of("/dev/shm/" + name);
    }

    @AfterEach
    void removeSemaphores() throws IOException {
        for (final String n : sems) {
            Files.deleteIfExists(semFile(n));
        }
    }

    /** A directory every user may create files in, as /dev/shm is (sticky, 1777). */
    private Path sharedDir() throws IOException, InterruptedException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        new ProcessBuilder("chmod", "+t", shared.toString()).start().waitFor();
        return shared;
    }

    private static void requireSecondUser() {
        final String reason = OtherUser.skipReason();
        assumeTrue(reason == null, () -> "skipped: " + reason);
    }

    // ---------------------------------------------------------------------------------------
    // No link is followed

    @Test
    void openRefusesASymbolicLinkAndItsMessageNeverShowsTheBytesOfItsTarget() throws IOException {
        final Path secret = Files.writeString(dir.resolve("secret"), "TOPSECRET password=hunter2\n");
        final Path link = Files.createSymbolicLink(dir.resolve("orders"), secret);
        final IOException e = assertThrows(IOException.class, () -> SyncFile.open(link));
        assertFalse(e instanceof SyncFileFormatException, "refused as a link, before anything is read: " + e);
        assertInstanceOf(FileSystemException.class, e);
        assertTrue(e.getMessage().contains("symbolic link") && e.getMessage().contains("ELOOP"), e.getMessage());
        assertFalse(e.getMessage().contains("TOPSECRE"), e.getMessage());
        assertFalse(e.getMessage().contains("54 4f 50"), "no hex of the target's bytes: " + e.getMessage());
        assertEquals("TOPSECRET password=hunter2\n", Files.readString(secret), "the target is untouched");
    }

    @Test
    void openOrCreateThroughALinkToAnotherSyncFileWritesNoSlotIntoIt() throws Exception {
        final Path shared = sharedDir();
        final Path victim = dir.resolve("victim");
        try (SyncFile f = SyncFile.create(victim, 4)) {
            f.mutex("a");
        }
        final byte[] before = Files.readAllBytes(victim);
        final Path link = Files.createSymbolicLink(shared.resolve("orders"), victim);
        final FileSystemException e = assertThrows(FileSystemException.class, () -> {
            try (SyncFile f = SyncFile.openOrCreate(link, 4)) {
                f.mutex("planted");
            }
        });
        assertTrue(e.getMessage().contains("ELOOP"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(victim), "the file behind the link is byte for byte unchanged");
        try (SyncFile f = SyncFile.open(victim)) {
            assertEquals(List.of("a"), f.slots().stream().map(SlotInfo::name).toList());
        }
        assertTrue(Files.isSymbolicLink(link), "the link stays where it was");
    }

    @Test
    void openOrCreateRefusesADanglingLinkAndCreatesNothingAtItsTarget() throws IOException {
        final Path target = dir.resolve("target");
        final Path link = Files.createSymbolicLink(dir.resolve("orders"), target);
        assertThrows(FileSystemException.class, () -> SyncFile.openOrCreate(link, 4).close());
        assertFalse(Files.exists(target, LinkOption.NOFOLLOW_LINKS));
        assertThrows(FileSystemException.class, () -> SyncFile.create(link, 4).close());
        assertFalse(Files.exists(target, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aNamedSemaphoreIsNeverOpenedThroughALink() throws Exception {
        final String n = semName();
        final Path target = dir.resolve("target");
        Files.createSymbolicLink(semFile(n), target);
        final ErrnoException e = assertThrows(ErrnoException.class, () -> Sem.open(n, OpenFlags.O_CREAT, 0600, 1));
        assertEquals(Errno.ELOOP, e.errno(), e.getMessage());
        assertFalse(Files.exists(target, LinkOption.NOFOLLOW_LINKS));
    }

    // ---------------------------------------------------------------------------------------
    // The umask filters the create mode, as open(2) does

    private static String createUnderUmask(final String umask, final String... args) throws Exception {
        try (ChildJvm c = ChildJvm.startUnder(List.of("sh", "-c", "umask " + umask + " && exec \"$@\"", "sh"),
                AccessChild.class, args)) {
            final String line = c.expectLine(CHILD);
            assertEquals(0, c.waitFor(CHILD), c.transcript());
            return line;
        }
    }

    @Test
    void aSyncFilesCreateModeIsFilteredByTheUmask() throws Exception {
        final Path p = dir.resolve("masked");
        assertEquals("created rw-r-----", createUnderUmask("027", "sync", p.toString(), "660"));
    }

    @Test
    void aCreateWhoseModeLetsOthersWriteIsRefusedUnlessTheCallerAllowsIt() throws Exception {
        final Path p = dir.resolve("open-to-all");
        final String refused = createUnderUmask("000", "sync", p.toString(), "666");
        assertTrue(refused.startsWith("refused ") && refused.contains("mode 0666")
            && refused.contains("ALLOW_WRITES_BY_OTHER_USERS"), refused);
        assertFalse(Files.exists(p, LinkOption.NOFOLLOW_LINKS), "nothing was created");
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "no temporary file is left behind");
        }
        assertEquals("created rw-rw-rw-", createUnderUmask("000", "sync", p.toString(), "666", "allow"));
    }

    @Test
    void aNamedSemaphoresCreateModeIsFilteredByTheUmaskAndOthersWriteOnlyWhenAllowed() throws Exception {
        final String masked = semName();
        assertEquals("created rw-r-----", createUnderUmask("027", "sem", masked, "660"));
        final String open = semName();
        final String refused = createUnderUmask("000", "sem", open, "666");
        assertTrue(refused.startsWith("refused EACCES") && refused.contains("mode 0666"), refused);
        assertFalse(Files.exists(semFile(open), LinkOption.NOFOLLOW_LINKS));
        assertEquals("created rw-rw-rw-", createUnderUmask("000", "sem", open, "666", "allow"));
    }

    // ---------------------------------------------------------------------------------------
    // Another user's file, or one others may write, only when the caller allows it

    @Test
    void aSyncFileAnotherUserCreatedIsRefusedUnlessTheCallerAllowsIt() throws Exception {
        requireSecondUser();
        final Path shared = sharedDir();
        final Path template = dir.resolve("template");
        SyncFile.create(template, 4).close();
        final Path planted = shared.resolve("orders");
        final OtherUser.Result r = OtherUser.run(template, "sh", "-c", "cat > \"$0\"", planted.toString());
        assertEquals(0, r.exit(), r.output());
        assertEquals(OtherUser.UID, (int) Files.getAttribute(planted, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        final AccessDeniedException e = assertThrows(AccessDeniedException.class, () -> SyncFile.open(planted));
        assertTrue(e.getMessage().contains("owned by uid " + OtherUser.UID)
            && e.getMessage().contains("ALLOW_WRITES_BY_OTHER_USERS"), e.getMessage());
        assertThrows(AccessDeniedException.class, () -> SyncFile.openOrCreate(planted, 4));
        try (SyncFile f = SyncFile.open(planted, ALLOW)) {
            assertEquals(4, f.header().capacity(), "opened when the caller says it trusts the other user");
        }
    }

    @Test
    void aSyncFileItsGroupOrEveryUserMayWriteIsRefusedUnlessTheCallerAllowsIt() throws IOException {
        final Path p = dir.resolve("widened");
        SyncFile.create(p, 4).close();
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-rw----"));
        AccessDeniedException e = assertThrows(AccessDeniedException.class, () -> SyncFile.open(p));
        assertTrue(e.getMessage().contains("mode 0660") && e.getMessage().contains("its group"), e.getMessage());
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--rw-"));
        e = assertThrows(AccessDeniedException.class, () -> SyncFile.open(p));
        assertTrue(e.getMessage().contains("every other user"), e.getMessage());
        try (SyncFile f = SyncFile.open(p, ALLOW)) {
            assertEquals(4, f.header().capacity());
        }
    }

    @Test
    void anotherUserCannotRewriteTheLockWordsOfAFileCreatedWithMode0666() throws Exception {
        requireSecondUser();
        final Path shared = sharedDir();
        final Path p = shared.resolve("orders");
        final SyncFile f;
        try {
            f = SyncFile.create(p, 4, PosixFilePermissions.fromString("rw-rw-rw-"));
        } catch (final AccessDeniedException umaskLetsOthersWrite) {
            assertTrue(umaskLetsOthersWrite.getMessage().contains("would be created with mode"),
                umaskLetsOthersWrite.getMessage());
            assertFalse(Files.exists(p, LinkOption.NOFOLLOW_LINKS));
            return;
        }
        try (f) {
            final Mutex m = f.mutex("m", MutexAttr.builder().robust(true).build());
            final long lockWord = f.find("m").orElseThrow().offset() + 4;
            // The attack: 0x7fffffff in the lock word makes every lock ENOTRECOVERABLE.
            final OtherUser.Result r = OtherUser.run(null, "sh", "-c",
                "printf '\\377\\377\\377\\177' | dd of=\"$0\" bs=1 seek=\"$1\" conv=notrunc", p.toString(),
                Long.toString(lockWord));
            assertNotEquals(0, r.exit(), "the other user could write the file: " + r.output());
            assertEquals(0, m.lock(), "the lock word is as this process left it");
            assertEquals(0, m.unlock());
        }
    }

    @Test
    void aNamedSemaphoreAnotherUserCreatedIsRefusedUnlessTheCallerAllowsIt() throws Exception {
        requireSecondUser();
        final String template = semName();
        Sem.open(template, OpenFlags.O_CREAT | OpenFlags.O_EXCL, 0600, 3).close();
        final String n = semName();
        final OtherUser.Result r = OtherUser.run(semFile(template), "sh", "-c", "cat > \"$0\"",
            semFile(n).toString());
        assertEquals(0, r.exit(), r.output());
        final ErrnoException e = assertThrows(ErrnoException.class, () -> Sem.open(n, 0));
        assertEquals(Errno.EACCES, e.errno());
        assertTrue(e.getMessage().contains("owned by uid " + OtherUser.UID), e.getMessage());
        assertThrows(ErrnoException.class, () -> Sem.open(n, OpenFlags.O_CREAT, 0600, 1));
        final Sem s = Sem.open(n, 0, ALLOW);
        assertEquals(3, s.getValue());
        s.close();
    }

    @Test
    void aNamedSemaphoreEveryUserMayWriteIsRefusedUnlessTheCallerAllowsIt() throws Exception {
        final String n = semName();
        Sem.open(n, OpenFlags.O_CREAT | OpenFlags.O_EXCL, 0600, 2).close();
        Files.setPosixFilePermissions(semFile(n), PosixFilePermissions.fromString("rw-rw-rw-"));
        final ErrnoException e = assertThrows(ErrnoException.class, () -> Sem.open(n, 0));
        assertEquals(Errno.EACCES, e.errno());
        assertTrue(e.getMessage().contains("mode 0666"), e.getMessage());
        final Sem s = Sem.open(n, 0, ALLOW);
        assertEquals(2, s.getValue());
        s.close();
    }

    @Test
    void theMessagesAreInWordsAndNameTheFile() throws IOException {
        final Path p = dir.resolve("words");
        SyncFile.create(p, 2).close();
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-rw-rw-"));
        final AccessDeniedException e = assertThrows(AccessDeniedException.class, () -> SyncFile.open(p));
        assertTrue(e.getMessage().startsWith(p.toAbsolutePath().toString()), e.getMessage());
        assertTrue(e.getMessage().contains("has mode 0666, which lets its group and every other user rewrite its"
            + " lock words"), e.getMessage());
    }
}
