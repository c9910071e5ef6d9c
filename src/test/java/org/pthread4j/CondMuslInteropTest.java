package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.pthread4j.CondTest.LIVENESS;

/**
 * Byte compatibility with musl: a musl-linked C process ({@code src/test/c/cond_pingpong.c},
 * built with {@code musl-gcc}) and this JVM ping-pong through one process-shared mutex and
 * condvar in a mapped file, each side having initialized them in turn. Skipped where
 * {@code musl-gcc} is not installed (Debian/Ubuntu: {@code apt-get install musl-tools}).
 */
class CondMuslInteropTest {
    private static final int ROUNDS = 2000;
    private static Path player;

    @BeforeAll
    static void buildThePlayer() throws Exception {
        final Path source = Path.of("src/test/c/cond_pingpong.c").toAbsolutePath();
        final Path out = Path.of("target/cond_pingpong").toAbsolutePath();
        boolean built;
        try {
            Files.createDirectories(out.getParent()); // Maven builds in core/target: this one may not exist
            final Process cc = new ProcessBuilder("musl-gcc", "-static", "-O2", "-o", out.toString(), source.toString())
                .redirectErrorStream(true).start();
            final String log = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            built = cc.waitFor(LIVENESS.toMillis(), TimeUnit.MILLISECONDS) && cc.exitValue() == 0;
            if (!built) {
                System.err.println("musl-gcc failed:\n" + log);
            }
        } catch (final java.io.IOException noCompiler) {
            built = false;
        }
        player = built ? out : null;
    }

    @ParameterizedTest(name = "initialized by {0}, {1} mutex, {2}")
    @CsvSource({
        "java, normal, broadcast", "java, errorcheck, signal",
        "musl, normal, signal", "musl, errorcheck, broadcast"})
    void muslProcessAndJvmPingPongThroughOneSharedMutexAndCondvar(final String initBy, final String kind,
                                                                  final String wake) throws Exception {
        assumeTrue(player != null, "musl-gcc is not installed");
        final Path shm = Path.of("/dev/shm");
        final Path file = Files.createTempFile(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
            "pthread4j-musl-cond-", ".bin");
        Files.write(file, new byte[(int) CondPingPong.SIZE]);
        try (Memory mem = Memory.map(file, CondPingPong.SIZE)) {
            final boolean byJava = initBy.equals("java");
            if (byJava) {
                new Mutex(mem.block(CondPingPong.MUTEX, MutexLayout.SIZE, 8), MutexAttr.builder()
                    .type(kind.equals("normal") ? MutexAttr.NORMAL : MutexAttr.ERRORCHECK).pshared(true).build());
                new Cond(mem.block(CondPingPong.COND, CondLayout.SIZE, 8),
                    CondAttr.builder().pshared(true).clock(Timespec.CLOCK_MONOTONIC).build());
            }
            final List<String> cmd = new ArrayList<>(List.of(player.toString(), file.toString(), "1",
                Integer.toString(ROUNDS), wake));
            if (!byJava) {
                cmd.add("init-" + kind);
            }
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                assertEquals("ready", out.readLine());
                final Mutex m = Mutex.attach(mem.block(CondPingPong.MUTEX, MutexLayout.SIZE, 8));
                final Cond c = Cond.attach(mem.block(CondPingPong.COND, CondLayout.SIZE, 8));
                assertTrue(c.isPshared());
                assertEquals(Timespec.CLOCK_MONOTONIC, c.clock());
                final Block words = mem.block(0, CondPingPong.SIZE, 8);
                assertNull(CondPingPong.play(m, c, words, 0, ROUNDS, wake.equals("signal")));
                assertEquals("done " + ROUNDS, out.readLine());
                assertTrue(p.waitFor(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
                assertEquals(0, p.exitValue());
                assertEquals(2 * ROUNDS, words.get(CondPingPong.COUNT));
                assertEquals(0, c.waiterCount());
            } finally {
                p.destroyForcibly();
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
