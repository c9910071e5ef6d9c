package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.pthread4j.MutexTestSupport.Other;
import org.pthread4j.memory.Memory;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.get;
import static org.pthread4j.MutexTestSupport.inMillis;

/**
 * Word-protocol compatibility with musl: a musl-linked C process ({@code src/test/c/mutex_player.c},
 * built with {@code musl-gcc}) and this JVM share process-shared mutexes in a mapped file.
 * Threads of both exclude each other for every kind, robust or not, whichever side
 * initialized the mutex; a killed musl process leaves its robust mutexes EOWNERDEAD for the
 * JVM, and a JVM thread that ends holding one leaves it EOWNERDEAD for musl. Skipped where
 * {@code musl-gcc} is not installed (Debian/Ubuntu: {@code apt-get install musl-tools}).
 */
class MutexMuslInteropTest {
    private static final int COUNTER = 256;
    private static Path player;

    @BeforeAll
    static void buildThePlayer() throws Exception {
        final Path source = Path.of("src/test/c/mutex_player.c").toAbsolutePath();
        final Path out = Path.of("target/mutex_player").toAbsolutePath();
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

    private static Path sharedFile() throws Exception {
        final Path shm = Path.of("/dev/shm");
        final Path f = Files.createTempFile(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
            "pthread4j-musl-mutex-", ".bin");
        Files.write(f, new byte[4096]);
        return f;
    }

    /** A running player, its output read line by line. */
    private record Player(Process process, BufferedReader out) implements AutoCloseable {
        static Player start(final Path file, final String... args) throws Exception {
            final List<String> cmd = new ArrayList<>(List.of(player.toString(), file.toString()));
            cmd.addAll(List.of(args));
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            return new Player(p, new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
        }

        String line() throws Exception {
            final Future<String> f = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (final java.io.IOException e) {
                    return "io error " + e;
                }
            });
            return f.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        }

        int exit() throws Exception {
            assertTrue(process.waitFor(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "player did not exit");
            return process.exitValue();
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }

    @ParameterizedTest(name = "initialized by {0}, type {1}, robust {2}")
    @CsvSource({
        "java, 0, 0", "java, 1, 0", "java, 2, 0", "java, 0, 1", "java, 1, 1", "java, 2, 1",
        "musl, 0, 0", "musl, 1, 0", "musl, 2, 0", "musl, 0, 1", "musl, 1, 1", "musl, 2, 1"})
    void muslThreadsAndJvmThreadsExcludeEachOther(final String initBy, final int kind, final int robust)
        throws Exception {
        assumeTrue(player != null, "musl-gcc is not installed");
        final int threads = 2;
        final int n = 20_000;
        final Path file = sharedFile();
        try (Memory mem = Memory.map(file, 4096)) {
            if (initBy.equals("java")) {
                new Mutex(mem.block(0, MutexLayout.SIZE, 8), MutexAttr.builder().type(kind).robust(robust == 1)
                    .pshared(true).build());
            } else {
                try (Player init = Player.start(file, "init", "0", Integer.toString(kind), Integer.toString(robust))) {
                    assertEquals("ready", init.line());
                    assertEquals(0, init.exit());
                }
            }
            final Mutex m = Mutex.attach(mem.block(0, MutexLayout.SIZE, 8));
            assertEquals(kind | (robust == 1 ? MutexLayout.ROBUST : 0) | MutexLayout.PSHARED, m.bits());
            final MemorySegment counter = mem.segment().asSlice(COUNTER, 4);
            try (Player p = Player.start(file, "count", "0", Integer.toString(COUNTER), Integer.toString(threads),
                Integer.toString(n))) {
                assertEquals("ready", p.line());
                final AtomicInteger errors = new AtomicInteger();
                final List<Thread> ts = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    ts.add(Thread.ofPlatform().start(() -> {
                        for (int i = 0; i < n; i++) {
                            if (m.lock() != 0) {
                                errors.incrementAndGet();
                                continue;
                            }
                            counter.set(ValueLayout.JAVA_INT, 0, counter.get(ValueLayout.JAVA_INT, 0) + 1);
                            if (m.unlock() != 0) {
                                errors.incrementAndGet();
                            }
                        }
                    }));
                }
                for (final Thread t : ts) {
                    assertTrue(t.join(LIVENESS.multipliedBy(4)), "a JVM thread did not finish: " + m);
                }
                assertEquals("done", p.line());
                assertEquals(0, p.exit());
                assertEquals(0, errors.get());
            }
            assertEquals(2 * threads * n, counter.get(ValueLayout.JAVA_INT, 0));
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.waiterCount());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void killedMuslProcessLeavesItsRobustMutexesOwnerDeadForTheJvm() throws Exception {
        assumeTrue(player != null, "musl-gcc is not installed");
        final Path file = sharedFile();
        try (Memory mem = Memory.map(file, 4096); Other waiterThread = new Other()) {
            final MutexAttr robust = MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).pshared(true).build();
            final Mutex asleep = new Mutex(mem.block(0, MutexLayout.SIZE, 8), robust);
            final Mutex later = new Mutex(mem.block(64, MutexLayout.SIZE, 8), robust);
            try (Player p = Player.start(file, "hold", "0", "64")) {
                final String locked = p.line();
                assertTrue(locked.startsWith("locked "), locked);
                final int tid = Integer.parseInt(locked.substring(7));
                assertEquals(tid, asleep.ownerId(), "musl stores its kernel tid, as this library does");
                assertEquals(Errno.EBUSY, later.tryLock());
                final Future<Integer> waiter = waiterThread.submit(() -> asleep.timedLock(inMillis(LIVENESS.toMillis())));
                MutexTestSupport.awaitWaiters(asleep, 1);
                p.process().destroyForcibly();
                assertEquals(Errno.EOWNERDEAD, (int) get(waiter));
                assertEquals(Errno.EOWNERDEAD, later.timedLock(inMillis(LIVENESS.toMillis())));
            }
            assertEquals(0, (int) waiterThread.call(asleep::consistent));
            assertEquals(0, (int) waiterThread.call(asleep::unlock));
            assertEquals(0, later.unlock());
            assertEquals(Errno.ENOTRECOVERABLE, later.lock());
            assertEquals(0, asleep.lock());
            assertEquals(0, asleep.unlock());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void jvmThreadEndingHoldingARobustMutexLeavesItOwnerDeadForMusl() throws Exception {
        assumeTrue(player != null, "musl-gcc is not installed");
        final Path file = sharedFile();
        try (Memory mem = Memory.map(file, 4096)) {
            final Mutex m = new Mutex(mem.block(0, MutexLayout.SIZE, 8),
                MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).pshared(true).build());
            final CountDownLatch locked = new CountDownLatch(1);
            final CountDownLatch end = new CountDownLatch(1);
            final Thread owner = Thread.ofPlatform().start(() -> {
                if (m.lock() == 0 && m.lock() == 0) {
                    locked.countDown();
                }
                try {
                    end.await();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(locked.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS));
            try (Player p = Player.start(file, "lock", "0")) {
                MutexTestSupport.awaitWaiters(m, 1); // musl asleep in its lock
                end.countDown();
                owner.join(LIVENESS.toMillis());
                assertEquals(Integer.toString(Errno.EOWNERDEAD), p.line(), "musl's lock after the JVM thread ended");
                assertEquals("unlocked 0", p.line(), "consistent, then unlock");
                assertEquals(0, p.exit());
            }
            assertEquals(0, m.tryLock());
            assertEquals(0, m.unlock());
            // Now the other way round: musl locks and exits normally (no robust walk), JVM sees it free.
            try (Player p = Player.start(file, "lock", "0")) {
                assertEquals("0", p.line());
                assertEquals("unlocked 0", p.line());
                assertEquals(0, p.exit());
            }
            assertEquals(Mutex.State.FREE, m.state());
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
