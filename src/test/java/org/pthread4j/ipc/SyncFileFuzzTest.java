package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;
import static org.pthread4j.ipc.SyncFileLayout.*;

/**
 * Flips random bytes of a valid file and opens it 10,000 times: every open either succeeds (and
 * the file is then usable: list, look up, inspect, create a slot) or fails with a
 * {@link SyncFileFormatException}; nothing else is thrown, nothing crashes the JVM, nothing hangs.
 */
class SyncFileFuzzTest {
    private static final int ITERATIONS = 10_000;

    @TempDir
    Path dir;

    @Test
    void tenThousandOpensOfRandomlyDamagedFilesNeverCrashOrHang() throws Exception {
        final long seed = Long.getLong("pthread4j.fuzz.seed", System.nanoTime());
        final Path valid = dir.resolve("valid");
        try (SyncFile f = SyncFile.create(valid, 8)) {
            f.slot("mutex", SlotType.MUTEX, 40);
            f.slot("cond", SlotType.COND, 48);
            f.slot("rw", SlotType.RWLOCK, 56);
            f.slot("sem", SlotType.SEM, 32);
            f.slot("ring.buffer-1", SlotType.RAW, 24);
        }
        final byte[] image = Files.readAllBytes(valid);
        final int hot = dataStart(8);
        // On tmpfs where there is one: the file is rewritten 10,000 times.
        final Path shm = Path.of("/dev/shm");
        final Path p = Files.isDirectory(shm) && Files.isWritable(shm)
            ? shm.resolve("pthread4j-fuzz-" + ProcessHandle.current().pid() + "-" + System.nanoTime())
            : dir.resolve("fuzzed");
        final Map<SyncFileFormatException.Problem, Integer> refused = new EnumMap<>(SyncFileFormatException.Problem.class);
        final int[] opened = new int[1];
        try {
            fuzz(image, hot, p, seed, refused, opened);
        } finally {
            Files.deleteIfExists(p);
        }
        System.out.println("fuzz seed " + seed + ": " + opened[0] + " opened, refused " + refused);
        assertTrue(opened[0] > 0, "some flips land where they do not matter");
        assertTrue(refused.size() >= 8, "the flips reach many checks: " + refused);
    }

    private static void fuzz(final byte[] image, final int hot, final Path p, final long seed,
                             final Map<SyncFileFormatException.Problem, Integer> refused, final int[] opened) {
        assertTimeoutPreemptively(Duration.ofMinutes(3), () -> {
            final SplittableRandom rnd = new SplittableRandom(seed);
            final byte[] buf = new byte[image.length];
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                for (int it = 0; it < ITERATIONS; it++) {
                    System.arraycopy(image, 0, buf, 0, image.length);
                    final int flips = 1 + rnd.nextInt(4);
                    for (int k = 0; k < flips; k++) {
                        // Mostly the header and the directory, where a flip means something.
                        final int at = rnd.nextInt(10) < 9 ? rnd.nextInt(hot) : rnd.nextInt(buf.length);
                        buf[at] ^= (byte) (1 << rnd.nextInt(8));
                        if (rnd.nextInt(8) == 0) {
                            buf[at] = (byte) rnd.nextInt(256);
                        }
                    }
                    int length = buf.length;
                    if (rnd.nextInt(50) == 0) {
                        length = rnd.nextInt(buf.length + 1);
                    }
                    ch.truncate(0);
                    ch.write(ByteBuffer.wrap(buf, 0, length), 0);
                    final SyncFile f;
                    try {
                        f = SyncFile.open(p);
                    } catch (final SyncFileFormatException e) {
                        refused.merge(e.problem(), 1, Integer::sum);
                        if (it % 16 == 0) {
                            final SyncFileFormatException i = assertThrows(SyncFileFormatException.class,
                                () -> SyncFileInspector.inspect(p));
                            assertEquals(e.getMessage(), i.getMessage(), "seed " + seed + " iteration " + it);
                        }
                        continue;
                    }
                    opened[0]++;
                    try (f) {
                        exercise(f, p);
                    } catch (final AssertionError e) {
                        throw new AssertionError("seed " + seed + " iteration " + it + ": " + e.getMessage(), e);
                    }
                }
            }
        });
    }

    /** Uses an opened file the ways a program would; only the documented exceptions may come out. */
    private static void exercise(final SyncFile f, final Path p) throws IOException {
        f.creationTimeout(Duration.ZERO);
        for (final SlotInfo s : f.slots()) {
            assertEquals(s.size(), f.slot(s.name(), s.type(), s.size()).size());
            f.block(s).get(0);
        }
        SyncFileInspector.text(SyncFileInspector.inspect(p));
        try {
            f.slot("fuzz-new", SlotType.RAW, 8).set(4, 1);
        } catch (final IllegalStateException | UncheckedIOException expected) {
            // full, stuck behind a forged live claim, or a corrupt entry found later in the walk
            if (expected instanceof UncheckedIOException u) {
                assertInstanceOf(SyncFileFormatException.class, u.getCause());
            }
        }
    }
}
