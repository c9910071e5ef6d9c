package org.pthread4j;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.pthread4j.futex.Errno;
import org.pthread4j.futex.Timespec;
import org.pthread4j.testing.Musl;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Named semaphores meet musl's: a name is {@code /dev/shm/NAME} on both sides
 * ({@code __shm_mapname}), so a musl C program's {@code sem_open}, {@code sem_post},
 * {@code sem_wait} and {@code sem_unlink} ({@code src/test/c/sem_interop.c}) work on the
 * semaphore a JVM opened, and the other way round; nothing is created at glibc's
 * {@code sem.NAME}.
 */
class SemMuslInteropTest {
    private static final int CREAT = OpenFlags.O_CREAT;
    private static final int EXCL = OpenFlags.O_EXCL;

    private final List<String> names = new ArrayList<>();

    private String name() {
        final String n = "pthread4j-musl-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        names.add(n);
        return n;
    }

    @AfterEach
    void removeFiles() throws Exception {
        for (final String n : names) {
            Files.deleteIfExists(Path.of("/dev/shm/" + n));
        }
    }

    private static Path program() throws Exception {
        return Musl.build("sem_interop", "src/test/c/sem_interop.c");
    }

    private static Timespec inSeconds(final long s) {
        return Timespec.after(Timespec.CLOCK_REALTIME, s, TimeUnit.SECONDS);
    }

    @Test
    void muslsSemOpenFindsTheSemaphoreTheJvmCreatedAndBothPostAndWaitOnIt() throws Exception {
        final Path c = program();
        final String n = name();
        final Sem sem = Sem.open(n, CREAT | EXCL, 0600, 0);
        assertTrue(Files.isRegularFile(Path.of("/dev/shm/" + n), LinkOption.NOFOLLOW_LINKS));
        assertFalse(Files.exists(Path.of("/dev/shm/sem." + n), LinkOption.NOFOLLOW_LINKS));
        assertEquals(List.of("open ok", "post ok", "value 2", "close ok"), Musl.run(c, n, "open", "post", "2", "value",
            "close"));
        assertEquals(2, sem.getValue(), "the C program's posts");
        assertEquals(0, sem.await());
        assertEquals(0, sem.timedAwait(inSeconds(60)));
        assertEquals(Errno.EAGAIN, sem.tryAwait());
        assertEquals(0, sem.post(3));
        assertEquals(List.of("open ok", "wait ok", "trywait EAGAIN", "value 0", "unlink ok"),
            Musl.run(c, n, "open", "wait", "3", "trywait", "value", "unlink"));
        assertEquals(0, sem.getValue(), "the C program took the JVM's three permits");
        assertFalse(Files.exists(Path.of("/dev/shm/" + n)), "musl's sem_unlink removed the JVM's name");
        sem.close();
    }

    @Test
    void theJvmOpensTheSemaphoreMuslsSemOpenCreated() throws Exception {
        final Path c = program();
        final String n = name();
        assertEquals(List.of("create ok", "post ok", "value 2"), Musl.run(c, n, "create", "1", "post", "1", "value"));
        final Sem sem = Sem.open(n, 0);
        assertEquals(2, sem.getValue());
        assertEquals(0, sem.tryAwait());
        assertEquals(0, sem.post());
        assertEquals(List.of("open ok", "trywait ok", "trywait ok", "trywait EAGAIN"), Musl.run(c, n, "open",
            "trywait", "trywait", "trywait"));
        assertEquals(0, sem.getValue());
        sem.close();
        Sem.unlink(n);
        assertFalse(Files.exists(Path.of("/dev/shm/" + n)));
    }

    @Test
    void aSleeperOnEitherSideIsWokenByAPostOnTheOther() throws Exception {
        final Path c = program();
        final String reason = Musl.semaphoreSkipReason();
        assumeTrue(reason == null, () -> "skipped: " + reason);
        final String n = name();
        final Sem sem = Sem.open(n, CREAT | EXCL, 0600, 0);
        try (Musl.Proc waiter = new Musl.Proc(c, n, "open", "ready", "wait", "1")) {
            assertEquals("open ok", waiter.line());
            assertEquals("ready", waiter.line());
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (sem.waiterCount() == 0 && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            assertEquals(1, sem.waiterCount(), "the C program sleeps in sem_wait");
            assertEquals(0, sem.post());
            assertEquals("wait ok", waiter.line());
            assertEquals(0, waiter.waitFor());
        }
        final Thread poster = Thread.ofPlatform().start(() -> {
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (sem.waiterCount() == 0 && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            try {
                Musl.run(c, n, "open", "post", "1");
            } catch (final Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(0, sem.timedAwait(inSeconds(60)), "the JVM sleeper woken by musl's sem_post");
        poster.join();
        assertEquals(0, sem.getValue());
        sem.close();
        Sem.unlink(n);
    }
}
