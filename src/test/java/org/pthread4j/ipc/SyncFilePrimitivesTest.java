package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.Barrier;
import org.pthread4j.Cond;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.Once;
import org.pthread4j.RwLock;
import org.pthread4j.Sem;
import org.pthread4j.memory.Block;
import org.pthread4j.testing.ChildJvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** The primitives of a sync file, shared by two JVMs. */
class SyncFilePrimitivesTest {
    private static final Duration LIVE = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private static ChildJvm child(final Path p) throws Exception {
        final ChildJvm c = ChildJvm.start(PrimitivesChild.class, p.toString());
        c.expect("ready", LIVE);
        return c;
    }

    @Test
    void getOrCreateReturnsTheSamePrimitiveAndRefusesAnotherKind() throws Exception {
        try (SyncFile f = SyncFile.create(dir.resolve("kinds"), 16)) {
            final Mutex m = f.mutex("m", PrimitivesChild.ROBUST);
            assertEquals(0, m.lock());
            final Mutex again = f.mutex("m", PrimitivesChild.ROBUST);
            assertTrue(again.isHeldByCurrentThread(), "a second view sees the same words");
            assertEquals(0, again.unlock());
            final Mutex plain = f.mutex("plain");
            assertTrue(plain.attr().pshared(), "a mutex in a file is process-shared even when asked otherwise");
            assertThrows(IllegalStateException.class, () -> f.mutex("m", MutexAttr.DEFAULT), "another mutex kind");
            assertTrue(f.mutex("m").attr().robust(), "attached by name whatever its attributes");
            assertThrows(IllegalStateException.class, () -> f.cond("m"), "another type");
            assertTrue(f.cond("c").isPshared());
            assertEquals(0, f.rwlock("rw").rdLock());
            assertEquals(1, f.rwlock("rw").readerCount());
            assertEquals(3, f.sem("s", 3).getValue());
            assertEquals(3, f.sem("s", 7).getValue(), "an existing semaphore keeps its value, as sem_open");
            assertEquals(2, f.barrier("b", 2).count());
            assertThrows(IllegalStateException.class, () -> f.barrier("b", 3));
            final int[] runs = {0};
            assertEquals(0, f.once("o").run(() -> runs[0]++));
            assertEquals(0, f.once("o").run(() -> runs[0]++));
            assertEquals(1, runs[0]);
        }
    }

    @Test
    void inspectShowsEachPrimitivesState() throws Exception {
        final Path p = dir.resolve("inspect");
        try (SyncFile f = SyncFile.create(p, 16)) {
            final Mutex m = f.mutex("m", PrimitivesChild.ROBUST);
            f.mutex("free");
            f.cond("c");
            final RwLock rw = f.rwlock("rw");
            f.sem("s", 3);
            f.barrier("b", 4);
            f.once("o").run(() -> { });
            assertEquals(0, m.lock());
            assertEquals(0, rw.rdLock());
            assertEquals(0, rw.rdLock());
            final java.util.Map<String, String> states = new java.util.HashMap<>();
            for (final SyncFileInspector.SlotReport r : SyncFileInspector.inspect(p).slots()) {
                states.put(r.info().name(), r.summary());
            }
            assertEquals("errorcheck robust, held by tid " + org.pthread4j.internal.Syscall.gettid() + " (alive), 0 waiters",
                states.get("m"));
            assertEquals("normal, free, 0 waiters", states.get("free"));
            assertEquals("0 waiters, seq 0, clock realtime", states.get("c"));
            assertEquals("2 readers, 0 waiters", states.get("rw"));
            assertEquals("value 3, 0 waiters", states.get("s"));
            assertEquals("count 4, 0 arrived in this cycle, 0 waiting", states.get("b"));
            assertEquals("done", states.get("o"));
            assertEquals(0, rw.unlock());
            assertEquals(0, rw.unlock());
            assertEquals(0, m.unlock());
        }
    }

    @Test
    void aCounterUnderAMutexSharedByTwoJvmsIsExact() throws Exception {
        final Path p = dir.resolve("counter");
        final int n = 20_000;
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Mutex m = f.mutex("m", PrimitivesChild.ROBUST);
            final Block counter = f.slot("counter", SlotType.RAW, 8);
            try (ChildJvm c = child(p)) {
                c.send("count " + n);
                assertEquals("done", PrimitivesChild.count(f, n));
                assertEquals("done", c.expectLine(LIVE));
                assertEquals(0, m.lock());
                assertEquals(2 * n, counter.get(0));
                assertEquals(0, m.unlock());
                c.send("exit");
                assertEquals(0, c.waitFor(LIVE));
            }
        }
    }

    @Test
    void condvarPingPongBetweenTwoJvms() throws Exception {
        final Path p = dir.resolve("pingpong");
        final int rounds = 2_000;
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Mutex m = f.mutex("m", PrimitivesChild.ROBUST);
            final Cond c = f.cond("c");
            final Block turn = f.slot("turn", SlotType.RAW, 8);
            try (ChildJvm child = child(p)) {
                child.send("pong " + rounds);
                for (int i = 0; i < rounds; i++) {
                    assertEquals(0, m.lock());
                    while (turn.get(0) != 0) {
                        assertEquals(0, c.await(m));
                    }
                    turn.set(0, 1);
                    assertEquals(0, c.signal());
                    assertEquals(0, m.unlock());
                }
                assertEquals("done", child.expectLine(LIVE));
                assertEquals(0, turn.get(0));
                assertEquals(0, c.waiterCount());
            }
        }
    }

    @Test
    void rwlockReadersInOneJvmNeverSeeAHalfWriteFromTheOther() throws Exception {
        final Path p = dir.resolve("rw");
        final int n = 5_000;
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Block pair = f.slot("pair", SlotType.RAW, 8);
            try (ChildJvm a = child(p); ChildJvm b = child(p)) {
                a.send("rwwrite " + n);
                b.send("rwread " + n);
                final String local = PrimitivesChild.rw(f, n, true);
                assertEquals("done torn 0", local);
                assertEquals("done torn 0", a.expectLine(LIVE));
                assertEquals("done torn 0", b.expectLine(LIVE));
                assertEquals(2 * n, pair.get(0));
                assertEquals(2 * n, pair.get(4));
                assertEquals(0, f.rwlock("rw").readerCount());
            }
        }
    }

    @Test
    void semaphoreHandoffBetweenTwoJvms() throws Exception {
        final Path p = dir.resolve("sem");
        final int rounds = 2_000;
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Sem ping = f.sem("ping", 0);
            final Sem pong = f.sem("pong", 0);
            try (ChildJvm c = child(p)) {
                c.send("sempong " + rounds);
                for (int i = 0; i < rounds; i++) {
                    assertEquals(0, ping.post());
                    assertEquals(0, pong.await());
                }
                assertEquals("done", c.expectLine(LIVE));
                assertEquals(0, ping.getValue());
                assertEquals(0, pong.getValue());
                assertEquals(Errno.EAGAIN, pong.tryAwait());
            }
        }
    }

    @Test
    void aOnceControlRunsItsRoutineOnceAmongTwoJvms() throws Exception {
        final Path p = dir.resolve("once");
        try (SyncFile f = SyncFile.create(p, 8)) {
            try (ChildJvm a = child(p); ChildJvm b = child(p)) {
                a.send("once");
                b.send("once");
                final String mine = PrimitivesChild.once(f);
                assertEquals("done 0 runs 1", mine, "every caller returns after the one run finished");
                assertEquals("done 0 runs 1", a.expectLine(LIVE));
                assertEquals("done 0 runs 1", b.expectLine(LIVE));
                assertTrue(f.once("o").isDone());
            }
        }
    }

    @Test
    void barrierCyclesAcrossTwoJvms() throws Exception {
        final Path p = dir.resolve("barrier");
        final int cycles = 500;
        try (SyncFile f = SyncFile.create(p, 8)) {
            f.barrier("b", 2);
            try (ChildJvm c = child(p)) {
                c.send("barrier " + cycles);
                final String mine = PrimitivesChild.barrier(f, cycles);
                final String theirs = c.expectLine(LIVE);
                assertTrue(mine.startsWith("done serial "), mine);
                assertTrue(theirs.startsWith("done serial "), theirs);
                final int serial = Integer.parseInt(mine.substring(12)) + Integer.parseInt(theirs.substring(12));
                assertEquals(cycles, serial, "exactly one serial thread per cycle");
            }
        }
    }
}
