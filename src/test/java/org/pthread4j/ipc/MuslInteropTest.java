package org.pthread4j.ipc;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.Cond;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.RwLock;
import org.pthread4j.futex.Timespec;
import org.pthread4j.memory.Block;
import org.pthread4j.testing.ChildJvm;
import org.pthread4j.testing.Musl;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A C program linked against musl ({@code src/test/c/syncfile_interop.c} on the C library in
 * {@code src/main/c}, built here with {@code musl-gcc}) and this JVM on the same primitives of
 * one sync file: musl's own
 * {@code pthread_mutex_lock}, {@code pthread_cond_wait}, {@code pthread_rwlock_*} against the
 * Java ports, on the same words. Skipped, with the reason printed, where {@code musl-gcc} is
 * missing ({@code apt-get install musl-tools}).
 *
 * <p>Semaphores are left out on purpose: the Java {@code Sem} follows musl 1.2.4 and later
 * (the 2022 redesign with a sticky waiters bit), while Debian's musl-tools ships 1.2.3, whose
 * {@code sem_t} encodes "zero with waiters" as -1; the two are not compatible on one word. The
 * mutex, condvar and rwlock code is unchanged between 1.2.3 and musl's current head.
 */
class MuslInteropTest {
    private static Path binary;

    @TempDir
    Path dir;

    @BeforeAll
    static void build() throws Exception {
        if (Musl.skipReason() == null) {
            binary = Musl.buildWithLibrary("syncfile_interop", "src/test/c/syncfile_interop.c");
        }
    }

    /** The C process, with its output line by line. */
    private static final class C implements AutoCloseable {
        final Musl.Proc proc;
        final Process process;

        C(final Path file, final String... args) throws IOException {
            final List<String> cmd = new ArrayList<>(List.of(binary.toString(), file.toString()));
            cmd.addAll(List.of(args));
            proc = new Musl.Proc(cmd);
            process = proc.process();
        }

        String line() throws InterruptedException {
            return proc.line();
        }

        @Override
        public void close() throws InterruptedException {
            proc.close();
        }
    }

    private static void requireMusl() {
        Musl.require();
    }

    @Test
    void aCounterUnderOneMutexIsExactWithACProcessAndThisJvmContending() throws Exception {
        requireMusl();
        final Path p = dir.resolve("count");
        final int n = 20_000;
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Mutex m = f.mutex("m", PrimitivesChild.ROBUST);
            final Block counter = f.slot("counter", SlotType.RAW, 8);
            try (C c = new C(p, "count", Integer.toString(n))) {
                assertEquals("ready", c.line());
                assertEquals("done", PrimitivesChild.count(f, n));
                assertEquals("done", c.line());
                assertEquals(0, c.process.waitFor());
            }
            assertEquals(0, m.lock());
            assertEquals(2 * n, counter.get(0));
            assertEquals(0, m.unlock());
            assertEquals(Mutex.State.FREE, m.state());
        }
    }

    @Test
    void condvarPingPongBetweenACProcessAndThisJvm() throws Exception {
        requireMusl();
        final Path p = dir.resolve("pingpong");
        final int rounds = 2_000;
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Mutex m = f.mutex("m", PrimitivesChild.ROBUST);
            final Cond c = f.cond("c");
            final Block turn = f.slot("turn", SlotType.RAW, 8);
            try (C proc = new C(p, "pingpong", Integer.toString(rounds))) {
                assertEquals("ready", proc.line());
                for (int i = 0; i < rounds; i++) {
                    assertEquals(0, m.lock());
                    while (turn.get(0) != 0) {
                        assertEquals(0, c.await(m));
                    }
                    turn.set(0, 1);
                    assertEquals(0, c.signal());
                    assertEquals(0, m.unlock());
                }
                assertEquals("done", proc.line());
                assertEquals(0, proc.process.waitFor());
            }
            assertEquals(0, turn.get(0));
        }
    }

    @Test
    void rwlockWritersInCAndJavaAreMutuallyExclusive() throws Exception {
        requireMusl();
        final Path p = dir.resolve("rw");
        final int n = 20_000;
        try (SyncFile f = SyncFile.create(p, 8)) {
            final RwLock rw = f.rwlock("rw");
            final Block counter = f.slot("counter", SlotType.RAW, 8);
            try (C c = new C(p, "rwcount", Integer.toString(n))) {
                assertEquals("ready", c.line());
                for (int i = 0; i < n; i++) {
                    assertEquals(0, rw.wrLock());
                    counter.set(0, counter.get(0) + 1);
                    assertEquals(0, rw.unlock());
                    assertEquals(0, rw.rdLock());
                    assertEquals(0, rw.unlock());
                }
                assertEquals("done", c.line());
                assertEquals(0, c.process.waitFor());
            }
            assertEquals(2 * n, counter.get(0));
            assertEquals(0, rw.word());
        }
    }

    @Test
    void aCProcessKilledHoldingARobustMutexGivesThisJvmEownerdead() throws Exception {
        requireMusl();
        final Path p = dir.resolve("robust-c");
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Mutex r = f.mutex("r", PrimitivesChild.ROBUST);
            try (C c = new C(p, "robust-hold")) {
                assertEquals("ready", c.line());
                final String locked = c.line();
                assertTrue(locked.startsWith("locked "), locked);
                assertEquals(Integer.parseInt(locked.substring(7)), r.ownerId(), "the C thread's tid is the owner");
                assertEquals(Errno.EBUSY, r.tryLock());
                c.process.destroyForcibly();
                assertTrue(c.process.waitFor(30, TimeUnit.SECONDS));
            }
            assertEquals(Errno.EOWNERDEAD, r.timedLock(Timespec.after(Timespec.CLOCK_REALTIME, 1, TimeUnit.SECONDS)));
            assertEquals(0, r.consistent());
            assertEquals(0, r.unlock());
            assertEquals(0, r.lock());
            assertEquals(0, r.unlock());
        }
    }

    @Test
    void aJvmKilledHoldingARobustMutexGivesTheCProcessEownerdead() throws Exception {
        requireMusl();
        final Path p = dir.resolve("robust-java");
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Mutex r = f.mutex("r", PrimitivesChild.ROBUST);
            try (ChildJvm holder = ChildJvm.start(PrimitivesChild.class, p.toString())) {
                holder.expect("ready", java.time.Duration.ofSeconds(60));
                holder.send("hold");
                final String locked = holder.expectLine(java.time.Duration.ofSeconds(60));
                assertTrue(locked.startsWith("locked "), locked);
                try (C c = new C(p, "robust-take")) {
                    assertEquals("ready", c.line());
                    holder.kill9();
                    assertEquals("lock EOWNERDEAD", c.line());
                    assertEquals("recovered", c.line());
                    assertEquals("done", c.line());
                    assertEquals(0, c.process.waitFor());
                }
            }
            assertEquals(Mutex.State.FREE, r.state());
            assertEquals(0, r.lock());
            assertEquals(0, r.unlock());
        }
    }
}
