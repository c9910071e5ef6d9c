package org.pthread4j.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.futex.Errno;
import org.pthread4j.internal.Syscall;
import org.pthread4j.ipc.SyncFile;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code inspect} finds who sleeps on which slot, and {@code --deadlocks} the cycles, with no help
 * from the processes: a thread of this JVM and a musl C process ({@code src/test/c/mutex_player.c})
 * that really deadlock on two robust mutexes of a sync file, and the same pair without a cycle.
 * The C process is killed at the end; the robust mutex it held then frees this JVM's thread.
 */
class InspectSleepersTest {
    private static final MutexAttr ROBUST = MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).pshared(true)
        .build();
    private static final Duration LIVENESS = Duration.ofSeconds(120);
    private static Path player;

    @TempDir
    Path dir;
    private Process c;
    private Thread jvmSide;

    @BeforeAll
    static void buildPlayer(@TempDir final Path bin) throws Exception {
        final Path out = bin.resolve("mutex_player");
        try {
            final Process cc = new ProcessBuilder("musl-gcc", "-static", "-O2", "-o", out.toString(),
                Path.of("src/test/c/mutex_player.c").toAbsolutePath().toString()).redirectErrorStream(true).start();
            final String log = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            player = cc.waitFor() == 0 ? out : null;
            if (player == null) {
                System.err.println("musl-gcc failed:\n" + log);
            }
        } catch (final IOException e) {
            player = null;
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (c != null) {
            c.destroyForcibly();
            c.waitFor(30, TimeUnit.SECONDS);
        }
        if (jvmSide != null) {
            jvmSide.join(LIVENESS.toMillis());
            assertFalse(jvmSide.isAlive(), "the JVM side ended once the C process was gone");
        }
    }

    private static Cli until(final Predicate<Cli> done, final String... args) {
        return assertTimeoutPreemptively(LIVENESS, () -> {
            for (;;) {
                final Cli r = Cli.run(args);
                if (done.test(r)) {
                    return r;
                }
                Thread.sleep(20);
            }
        }, () -> "inspect never showed the expected state: " + Cli.run(args));
    }

    private Process startPlayer(final Path file, final String... args) throws IOException {
        final java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(player.toString(), file.toString()));
        cmd.addAll(java.util.List.of(args));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    @Test
    void aCrossProcessDeadlockIsReportedAsACycleAndExitsWith3() throws Exception {
        assumeTrue(player != null, "musl-gcc is not installed");
        final Path file = dir.resolve("dl");
        try (SyncFile f = SyncFile.create(file, 4)) {
            final Mutex a = f.mutex("A", ROBUST);
            final Mutex b = f.mutex("B", ROBUST);
            final long offA = f.find("A").orElseThrow().offset();
            final long offB = f.find("B").orElseThrow().offset();
            final CountDownLatch holdsA = new CountDownLatch(1);
            final CountDownLatch cHoldsB = new CountDownLatch(1);
            final CompletableFuture<Integer> lockB = new CompletableFuture<>();
            final int[] tid = new int[1];
            jvmSide = Thread.ofPlatform().name("deadlock-jvm").start(() -> {
                tid[0] = Syscall.gettid();
                assertEquals(0, a.lock());
                holdsA.countDown();
                try {
                    cHoldsB.await();
                } catch (final InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                final int r = b.lock();
                lockB.complete(r);
                if (r == Errno.EOWNERDEAD) {
                    b.consistent();
                }
                b.unlock();
                a.unlock();
            });
            holdsA.await();
            // The C process locks B, then blocks on A, which this JVM's thread holds.
            c = startPlayer(file, "hold", Long.toString(offB), Long.toString(offA));
            until(r -> r.out().contains("held by tid " + c.pid()), "inspect", file.toString());
            cHoldsB.countDown();

            final Cli r = until(x -> x.status() == InspectCommand.DEADLOCK, "inspect", "--deadlocks", file.toString());
            final String jvm = "pid " + ProcessHandle.current().pid() + " (java) tid " + tid[0] + " (deadlock-jvm)";
            final String cSide = "pid " + c.pid() + " (mutex_player) tid " + c.pid() + " (mutex_player)";
            assertTrue(r.out().contains("asleep on it: " + cSide + ", word at +4"), r.out());
            assertTrue(r.out().contains("asleep on it: " + jvm + ", word at +4"), r.out());
            assertTrue(r.out().contains("DEADLOCK: 2 threads wait for each other in a cycle:\n"), r.out());
            assertTrue(r.out().contains("  " + jvm + " holds 'A' (" + file + "), waits for 'B' (" + file + ")\n"), r.out());
            assertTrue(r.out().contains("  " + cSide + " holds 'B' (" + file + "), waits for 'A' (" + file + ")\n"), r.out());

            final Cli json = Cli.run("inspect", "--deadlocks", "--json", file.toString());
            assertEquals(InspectCommand.DEADLOCK, json.status(), json.toString());
            final String last = json.out().lines().reduce((x, y) -> y).orElseThrow();
            assertTrue(last.startsWith("{\"deadlocks\":[[{\"pid\":"), last);
            assertTrue(last.contains("\"tid\":" + c.pid() + ",\"process\":\"mutex_player\",\"thread\":\"mutex_player\","
                + "\"holds\":{\"file\":\"" + file + "\",\"slot\":\"B\"},\"waitsFor\":{\"file\":\"" + file
                + "\",\"slot\":\"A\"}}"), last);

            c.destroyForcibly();
            assertEquals(Errno.EOWNERDEAD, lockB.get(LIVENESS.toSeconds(), TimeUnit.SECONDS),
                "the C process died holding B");
            jvmSide.join(LIVENESS.toMillis()); // it unlocks B and A: a file is not closed while they are held
        }
    }

    @Test
    void aWaiterWithoutACycleIsListedAndNoDeadlockIsReported() throws Exception {
        assumeTrue(player != null, "musl-gcc is not installed");
        final Path file = dir.resolve("nodl");
        try (SyncFile f = SyncFile.create(file, 4)) {
            final Mutex a = f.mutex("A", ROBUST);
            f.mutex("B", ROBUST);
            assertEquals(0, a.lock());
            try {
                c = startPlayer(file, "lock", Long.toString(f.find("A").orElseThrow().offset()));
                final String cSide = "pid " + c.pid() + " (mutex_player) tid " + c.pid() + " (mutex_player)";
                final Cli r = until(x -> x.out().contains("asleep on it: " + cSide), "inspect", "--deadlocks",
                    file.toString());
                assertEquals(0, r.status(), r.toString());
                assertTrue(r.out().contains("no deadlock: no cycle of threads that hold a mutex and sleep waiting for "
                    + "another\n"), r.out());
                final String json = Cli.run("inspect", "--json", file.toString()).out();
                assertTrue(json.contains("\"asleep\":[{\"pid\":" + c.pid() + ",\"tid\":" + c.pid()
                    + ",\"process\":\"mutex_player\",\"thread\":\"mutex_player\",\"word\":4}]"), json);
            } finally {
                assertEquals(0, a.unlock());
            }
            final BufferedReader out = new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("0", assertTimeoutPreemptively(LIVENESS, out::readLine), "the C process got the mutex");
            assertTrue(c.waitFor(LIVENESS.toSeconds(), TimeUnit.SECONDS));
            assertTrue(Files.exists(file));
        }
    }
}
