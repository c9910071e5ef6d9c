package org.pthread4j;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.ChildJvm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.pthread4j.CondTest.LIVENESS;

/**
 * Process-shared condvars across mappings: two JVMs ping-pong through one shared mutex and
 * condvar in a mapped file; and, in one JVM, two threads each through its own mapping of the
 * file (private futex operations would not meet across two mappings, shared ones do).
 */
class CondProcessTest {
    private static final int ROUNDS = 2000;

    private static Path sharedFile() throws Exception {
        final Path shm = Path.of("/dev/shm");
        final Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        final Path f = Files.createTempFile(dir, "pthread4j-cond-", ".bin");
        Files.write(f, new byte[(int) CondPingPong.SIZE]);
        return f;
    }

    private static void init(final Memory mem, final int kind) {
        new Mutex(mem.block(CondPingPong.MUTEX, MutexLayout.SIZE, 8),
            MutexAttr.builder().type(kind).pshared(true).build());
        new Cond(mem.block(CondPingPong.COND, CondLayout.SIZE, 8), CondAttr.builder().pshared(true).build());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"broadcast", "signal"})
    void twoJvmsPingPongThroughASharedMutexAndCondvar(final String wake) throws Exception {
        final Path file = sharedFile();
        try (Memory mem = Memory.map(file, CondPingPong.SIZE)) {
            init(mem, MutexAttr.ERRORCHECK);
            final Mutex m = Mutex.attach(mem.block(CondPingPong.MUTEX, MutexLayout.SIZE, 8));
            final Cond c = Cond.attach(mem.block(CondPingPong.COND, CondLayout.SIZE, 8));
            final Block words = mem.block(0, CondPingPong.SIZE, 8);
            try (ChildJvm child = ChildJvm.start(CondPingPong.class, file.toString(), "1", Integer.toString(ROUNDS), wake)) {
                child.expect("ready", LIVENESS);
                assertNull(CondPingPong.play(m, c, words, 0, ROUNDS, "signal".equals(wake)));
                assertEquals("done " + ROUNDS, child.expectLine(LIVENESS), child.transcript());
                assertEquals(0, child.waitFor(LIVENESS));
            }
            assertEquals(2 * ROUNDS, words.get(CondPingPong.COUNT));
            assertEquals(0, c.waiterCount());
            assertEquals(0, c.destroy());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"broadcast", "signal"})
    void twoMappingsInOneJvmMeetOnSharedFutexes(final String wake) throws Exception {
        final Path file = sharedFile();
        try (Memory a = Memory.map(file, CondPingPong.SIZE); Memory b = Memory.map(file, CondPingPong.SIZE)) {
            init(a, MutexAttr.NORMAL);
            final boolean signal = "signal".equals(wake);
            final FutureTask<String> other = new FutureTask<>(() -> CondPingPong.play(
                Mutex.attach(b.block(CondPingPong.MUTEX, MutexLayout.SIZE, 8)),
                Cond.attach(b.block(CondPingPong.COND, CondLayout.SIZE, 8)),
                b.block(0, CondPingPong.SIZE, 8), 1, ROUNDS, signal));
            final Thread t = Thread.ofPlatform().daemon().name("player-1").start(other);
            assertNull(CondPingPong.play(Mutex.attach(a.block(CondPingPong.MUTEX, MutexLayout.SIZE, 8)),
                Cond.attach(a.block(CondPingPong.COND, CondLayout.SIZE, 8)),
                a.block(0, CondPingPong.SIZE, 8), 0, ROUNDS, signal));
            assertNull(other.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            t.join(LIVENESS.toMillis());
            assertFalse(t.isAlive());
            assertEquals(2 * ROUNDS, a.block(0, CondPingPong.SIZE, 8).get(CondPingPong.COUNT));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
