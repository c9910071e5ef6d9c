package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.ChildJvm;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NamedSemTest {
    private static final int CREAT = OpenFlags.O_CREAT;
    private static final int EXCL = OpenFlags.O_EXCL;
    private static final Duration CHILD = Duration.ofSeconds(120);

    private final List<String> names = new ArrayList<>();

    private String name() {
        final String n = "pthread4j-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        names.add(n);
        return n;
    }

    private static Path file(final String name) {
        return Path.of("/dev/shm/" + name);
    }

    @AfterEach
    void removeFiles() throws Exception {
        for (final String n : names) {
            Files.deleteIfExists(file(n));
        }
    }

    private static int errnoOf(final ThrowingOpen open) {
        final ErrnoException e = assertThrows(ErrnoException.class, open::open);
        return e.errno();
    }

    @FunctionalInterface
    interface ThrowingOpen {
        Sem open() throws ErrnoException;
    }

    /** A call on the file system that throws, as {@code close} and {@code unlink} do. */
    @FunctionalInterface
    interface ThrowingCall {
        void call() throws ErrnoException;
    }

    private static int errnoOfCall(final ThrowingCall call) {
        return assertThrows(ErrnoException.class, call::call).errno();
    }

    /** libc-test {@code sem_open}. */
    @Test
    void createExclusiveTwiceIsEEXISTAndReopenReturnsTheSameSemaphore() throws Exception {
        final String n = name();
        final Sem sem = Sem.open("/" + n, CREAT | EXCL, 0700, 1);
        assertTrue(Files.isRegularFile(file(n), LinkOption.NOFOLLOW_LINKS), "musl's name: /dev/shm/NAME");
        assertFalse(Files.exists(Path.of("/dev/shm/sem." + n), LinkOption.NOFOLLOW_LINKS), "not glibc's sem.NAME");
        assertEquals(n, sem.name());
        assertTrue(sem.isPshared());
        assertEquals(Errno.EEXIST, errnoOf(() -> Sem.open(n, CREAT | EXCL, 0700, 1)));
        assertEquals(1, sem.getValue());
        final Sem sem2 = Sem.open(n, 0);
        assertSame(sem, sem2, "the same file opened twice in one process is the same semaphore");
        assertEquals(0, sem.await());
        assertEquals(0, sem2.getValue());
        assertEquals(Errno.EAGAIN, sem.tryAwait());
        assertEquals(0, sem.post());
        assertEquals(1, sem2.getValue());
        sem.close();
        sem.close();
        assertEquals(Errno.EINVAL, errnoOfCall(sem::close), "closed more often than opened");
        assertThrows(IllegalStateException.class, sem::post, "a fully closed semaphore is unmapped");
        Sem.unlink(n);
        assertFalse(Files.exists(file(n), LinkOption.NOFOLLOW_LINKS));
        assertEquals(Errno.ENOENT, errnoOfCall(() -> Sem.unlink(n)));
    }

    /** libc-test {@code sem_close-unmap} (musl commit f70375df). */
    @Test
    void closingOneOfTwoReferencesKeepsTheMapping() throws Exception {
        final String n = name();
        final Sem sem = Sem.open(n, CREAT | EXCL, 0600, 0);
        assertSame(sem, Sem.open(n, 0));
        Sem.unlink(n);
        sem.close();
        assertEquals(0, sem.post(), "the semaphore must still be mapped");
        assertEquals(1, sem.getValue());
        sem.close();
    }

    @Test
    void openWithoutCreateOnAMissingNameIsENOENT() {
        final String n = name();
        assertEquals(Errno.ENOENT, errnoOf(() -> Sem.open(n, 0)));
        assertEquals(Errno.ENOENT, errnoOf(() -> Sem.open(n, EXCL)));
        assertFalse(Files.exists(file(n)));
    }

    @Test
    void createWithoutExclusiveOpensAnExistingSemaphore() throws Exception {
        final String n = name();
        final Sem a = Sem.open(n, CREAT, 0600, 3);
        final Sem b = Sem.open(n, CREAT, 0600, 9);
        assertSame(a, b);
        assertEquals(3, b.getValue(), "the value applies only to a created semaphore");
        a.close();
        b.close();
        // After the last close, a new open maps the file again: a new object, same state.
        final Sem c = Sem.open(n, CREAT);
        assertEquals(Errno.EINVAL, errnoOfCall(a::close));
        assertNotSame(a, c);
        assertEquals(3, c.getValue());
        c.close();
        Sem.unlink(n);
    }

    @Test
    void aCreatedFileIsMode0600ByDefaultAndMaskedWith0666() throws Exception {
        final String n = name();
        final Sem s = Sem.open(n, CREAT);
        assertEquals(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
            Files.getPosixFilePermissions(file(n)));
        assertEquals(0, s.getValue());
        s.close();
        Sem.unlink(n);
        final String m = name();
        final Sem t = Sem.open(m, CREAT | EXCL, 0700, 0);
        assertEquals(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
            Files.getPosixFilePermissions(file(m)), "execute bits are dropped, as musl's mode & 0666");
        t.close();
        assertEquals(32, Files.size(file(m)));
    }

    @Test
    void badNamesAreRefusedAndCreateNothing() throws Exception {
        final boolean xBefore = Files.exists(file("x"), LinkOption.NOFOLLOW_LINKS);
        for (final String bad : new String[] {"", "/", "///", "a/b", "a/", ".", "..", "/..", "x\0y"}) {
            assertEquals(Errno.EINVAL, errnoOf(() -> Sem.open(bad, CREAT, 0600, 0)), "'" + bad + "'");
            assertEquals(Errno.EINVAL, errnoOfCall(() -> Sem.unlink(bad)), "'" + bad + "'");
        }
        final String longest = "n".repeat(255);
        final String tooLong = "n".repeat(256);
        assertEquals(Errno.ENAMETOOLONG, errnoOf(() -> Sem.open(tooLong, CREAT, 0600, 0)));
        assertEquals(Errno.ENAMETOOLONG, errnoOf(() -> Sem.open("é".repeat(128), CREAT, 0600, 0)),
            "the limit counts UTF-8 bytes");
        assertEquals(Errno.ENAMETOOLONG, errnoOfCall(() -> Sem.unlink(tooLong)));
        assertEquals(Errno.EINVAL, errnoOf(() -> Sem.open(null, 0)));
        names.add(longest);
        final Sem s = Sem.open(longest, CREAT | EXCL, 0600, 0);
        s.close();
        Sem.unlink(longest);
        assertEquals(xBefore, Files.exists(file("x"), LinkOption.NOFOLLOW_LINKS), "nothing created for 'x\\0y'");
    }

    @Test
    void aValueAboveTheMaximumIsEINVALAndLeavesNoFile() {
        final String n = name();
        assertEquals(Errno.EINVAL, errnoOf(() -> Sem.open(n, CREAT, 0600, -1)));
        assertFalse(Files.exists(file(n)));
    }

    @Test
    void aFileThatHoldsNoSemaphoreIsRefused() throws Exception {
        final String n = name();
        Files.write(file(n), new byte[7]);
        assertEquals(Errno.EINVAL, errnoOf(() -> Sem.open(n, 0)));
        assertEquals(Errno.EINVAL, errnoOf(() -> Sem.open(n, CREAT, 0600, 0)));
        final byte[] privateFlag = new byte[32];
        privateFlag[8] = (byte) 128;
        Files.write(file(n), privateFlag);
        assertEquals(Errno.EINVAL, errnoOf(() -> Sem.open(n, 0)), "a named semaphore is never private");
        final String link = name();
        Files.createSymbolicLink(file(link), file(n));
        assertEquals(Errno.ELOOP, errnoOf(() -> Sem.open(link, 0)), "symbolic links are not followed");
        assertEquals(Errno.EEXIST, errnoOf(() -> Sem.open(link, CREAT | EXCL, 0600, 0)));
    }

    @Test
    void aPostThroughOneMappingIsSeenByAWaitThroughAnother() throws Exception {
        final String n = name();
        final Sem s = Sem.open(n, CREAT | EXCL, 0600, 0);
        try (Memory other = Memory.map(file(n), SemLayout.SIZE)) {
            final Sem view = Sem.attach(other.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT));
            assertTrue(view.isPshared());
            final Spawn.Running<Integer> w = Spawn.call(() -> view.timedAwait(
                Timespec.after(Timespec.CLOCK_REALTIME, 60, TimeUnit.SECONDS)));
            Spawn.until("waiter asleep on the other mapping", () -> s.waiterCount() == 1);
            assertEquals(0, s.post());
            assertEquals(0, w.get());
        }
        s.close();
        Sem.unlink(n);
    }

    @Test
    void racingCreatorsAllGetTheSameSemaphore() throws Exception {
        final String n = name();
        final List<Spawn.Running<Sem>> openers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            openers.add(Spawn.call(() -> Sem.open(n, CREAT, 0600, 2)));
        }
        final Sem first = openers.get(0).get();
        for (final Spawn.Running<Sem> o : openers) {
            assertSame(first, o.get());
        }
        assertEquals(2, first.getValue());
        for (int i = 0; i < 4; i++) {
            first.close();
        }
        assertEquals(Errno.EINVAL, errnoOfCall(first::close));
        Sem.unlink(n);
    }

    @Test
    void twoJvmsHandPermitsBackAndForthThroughNamedSemaphores() throws Exception {
        final String a = name();
        final String b = name();
        final Sem ping = Sem.open(a, CREAT | EXCL, 0600, 0);
        final Sem pong = Sem.open(b, CREAT | EXCL, 0600, 0);
        final int rounds = 500;
        try (ChildJvm child = ChildJvm.start(SemChild.class, "named", a, b, Integer.toString(rounds))) {
            child.expect("ready", CHILD);
            for (int i = 0; i < rounds; i++) {
                assertEquals(0, ping.post());
                assertEquals(0, pong.timedAwait(Timespec.after(Timespec.CLOCK_REALTIME, 60, TimeUnit.SECONDS)),
                    "round " + i + "; child said:\n" + child.transcript());
            }
            child.expect("done", CHILD);
            assertEquals(0, child.waitFor(CHILD));
        }
        assertEquals(0, ping.getValue());
        assertEquals(0, pong.getValue());
        ping.close();
        pong.close();
        Sem.unlink(a);
        Sem.unlink(b);
    }

    @Test
    void twoJvmsHandPermitsThroughUnnamedSharedSemaphoresInAFile(@TempDir final Path dir) throws Exception {
        final Path f = dir.resolve("sems");
        Files.write(f, new byte[2 * SemLayout.SIZE]);
        final int rounds = 500;
        try (Memory m = Memory.map(f, 2 * SemLayout.SIZE)) {
            final Sem ping = new Sem(m.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT), true, 0);
            final Sem pong = new Sem(m.block(SemLayout.SIZE, SemLayout.SIZE, SemLayout.ALIGNMENT), true, 0);
            try (ChildJvm child = ChildJvm.start(SemChild.class, "file", f.toString(), Integer.toString(rounds))) {
                child.expect("ready", CHILD);
                for (int i = 0; i < rounds; i++) {
                    assertEquals(0, ping.post());
                    assertEquals(0, pong.timedAwait(Timespec.after(Timespec.CLOCK_REALTIME, 60, TimeUnit.SECONDS)),
                        "round " + i + "; child said:\n" + child.transcript());
                }
                child.expect("done", CHILD);
                assertEquals(0, child.waitFor(CHILD));
            }
            assertEquals(0, ping.getValue());
            assertEquals(0, pong.getValue());
            assertEquals(0, ping.waiterCount());
        }
    }
}
