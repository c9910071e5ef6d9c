package org.pthread4j.futex;

import org.pthread4j.internal.ThreadIds;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.ChildJvm;
import org.pthread4j.testing.Sleepers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What only the kernel backend does: shared words, across mappings and processes, and the fallback. */
class LinuxFutexTest {
    private static final Duration LIVENESS = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Path sharedFile() throws IOException {
        final Path file = dir.resolve("words");
        Files.write(file, new byte[4096]);
        return file;
    }

    @Test
    void theFallbackReissuesRefusedPrivateCallsWithoutTheFlagAndRemembersIt() throws Exception {
        final LinuxFutex futex = new LinuxFutex(true, "refusing");
        assertFalse(futex.privateFlagRejected());
        try (Memory m = Memory.allocate(64)) {
            final FutexTest.Sleeper s = new FutexTest.Sleeper(() -> futex.wait(m.segment(), 0, 0, true))
                .awaitAsleep(m.segment().address());
            assertTrue(futex.privateFlagRejected());
            Block.INT.setVolatile(m.segment(), 0L, 1);
            assertEquals(1, futex.wake(m.segment(), 0, 1, true), "the fallback wake must meet the fallback wait");
            assertEquals(0, s.get());
            assertTrue(futex.fallbackCount() >= 2);
        }
    }

    @Test
    void twoMappingsOfOneFileShareAWordForSharedCallsOnly() throws Exception {
        final Path file = sharedFile();
        try (Memory a = Memory.map(file); Memory b = Memory.map(file)) {
            assertTrue(a.segment().address() != b.segment().address());
            final LinuxFutex futex = Futexes.linux();
            for (final boolean priv : new boolean[] {false, true}) {
                final FutexTest.Sleeper s = new FutexTest.Sleeper(() -> futex.timedWait(a.segment(), 0, 0, priv,
                    Timespec.CLOCK_MONOTONIC, Timespec.after(Timespec.CLOCK_MONOTONIC, 60, TimeUnit.SECONDS), false))
                    .awaitAsleep(a.segment().address());
                if (priv) {
                    assertEquals(0, futex.wake(b.segment(), 0, 1, true), "private futexes are keyed by address");
                    assertEquals(1, futex.wake(a.segment(), 0, 1, true));
                } else {
                    assertEquals(1, futex.wake(b.segment(), 0, 1, false), "shared futexes are keyed by the file");
                }
                assertEquals(0, s.get());
            }
        }
    }

    @Test
    void aSharedWordInAMappedFileIsWokenFromASecondJvm() throws Exception {
        final Path file = sharedFile();
        try (Memory m = Memory.map(file); ChildJvm child = ChildJvm.start(FutexChild.class, file.toString())) {
            child.expect("mapped", LIVENESS);
            final FutexTest.Sleeper s = new FutexTest.Sleeper(() -> {
                int result = 0;
                while ((int) Block.INT.getVolatile(m.segment(), 0L) == 0 && result == 0) {
                    result = Futexes.linux().wait(m.segment(), 0, 0, false) == Errno.EINVAL ? -1 : 0;
                }
                return (int) Block.INT.getVolatile(m.segment(), 0L);
            }).awaitAsleep(m.segment().address());
            child.send("wake");
            assertEquals("woke 1", child.expectLine(LIVENESS));
            assertEquals(42, s.get());

            // and the other way round: the child sleeps, this JVM wakes it
            child.send("sleep");
            final String sleeping = child.expectLine(LIVENESS);
            assertTrue(sleeping.startsWith("sleeping "), sleeping);
            final String[] said = sleeping.split(" ");
            final int childTid = Integer.parseInt(said[1]);
            final long childWord = Long.parseLong(said[2]);
            final long end = System.nanoTime() + LIVENESS.toNanos();
            while (!inFutexSyscall(childTid, childWord)) {
                assertTrue(System.nanoTime() < end, "the child never slept");
                Thread.onSpinWait();
            }
            Block.INT.setVolatile(m.segment(), 4L, 1);
            assertEquals(1, Futexes.linux().wake(m.segment(), 4, 1, false));
            child.expect("awake", LIVENESS);
            child.send("exit");
            assertEquals(0, child.waitFor(LIVENESS));
        }
    }

    private static boolean inFutexSyscall(final int tid, final long address) {
        return Sleepers.inFutexWait("/proc/" + tid + "/syscall", address);
    }

    /** The second JVM of {@link #aSharedWordInAMappedFileIsWokenFromASecondJvm()}. */
    public static final class FutexChild {
        private FutexChild() {
        }

        /** @param args the file to map */
        public static void main(final String[] args) throws Exception {
            try (Memory m = Memory.map(Path.of(args[0]));
                 var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in))) {
                System.out.println("mapped");
                String line;
                while ((line = in.readLine()) != null) {
                    switch (line) {
                        case "wake" -> {
                            Block.INT.setVolatile(m.segment(), 0L, 42);
                            System.out.println("woke " + Futexes.linux().wake(m.segment(), 0, 1, false));
                        }
                        case "sleep" -> {
                            // The word's address in this process: the parent must see a futex wait on
                            // exactly this word (printing itself may block in another futex first).
                            System.out.println("sleeping " + ThreadIds.current() + " " + (m.segment().address() + 4));
                            while ((int) Block.INT.getVolatile(m.segment(), 4L) == 0) {
                                Futexes.linux().wait(m.segment(), 4, 0, false);
                            }
                            System.out.println("awake");
                        }
                        case "exit" -> {
                            return;
                        }
                        default -> System.out.println("unknown " + line);
                    }
                }
            }
        }
    }
}
