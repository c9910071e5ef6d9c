package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;
import static org.pthread4j.ipc.SyncFileLayout.*;

class SyncFileTest {
    @TempDir
    Path dir;

    @Test
    void createThenOpenRoundTripsHeaderAndSlots() throws IOException {
        final Path p = dir.resolve("round");
        final long created;
        final long mutexAt;
        try (SyncFile f = SyncFile.create(p, 8)) {
            assertEquals(1, f.header().version());
            assertEquals(8, f.header().capacity());
            assertEquals(dataStart(8) + 8 * 64, f.header().totalSize());
            assertEquals(Files.size(p), f.header().totalSize());
            assertEquals(ProcessHandle.current().pid(), f.header().creatorPid());
            created = f.header().createdMillis();
            final Block m = f.slot("lock", SlotType.MUTEX, 40, b -> b.set(4, 0x1234));
            mutexAt = m.offsetInMemory();
            assertEquals(dataStart(8), mutexAt, "first block at the data start");
            final Block c = f.slot("cond", SlotType.COND, 48);
            assertEquals(mutexAt + 64, c.offsetInMemory(), "blocks are cache-line aligned");
            final Block r = f.slot("ring", SlotType.RAW, 100);
            assertEquals(mutexAt + 128, r.offsetInMemory());
            r.set(96, 77);
        }
        try (SyncFile f = SyncFile.open(p)) {
            assertEquals(created, f.header().createdMillis());
            final List<SlotInfo> slots = f.slots();
            assertEquals(List.of("lock", "cond", "ring"), slots.stream().map(SlotInfo::name).toList());
            assertEquals(List.of(SlotType.MUTEX, SlotType.COND, SlotType.RAW), slots.stream().map(SlotInfo::type).toList());
            final Block m = f.slot("lock", SlotType.MUTEX, 40, b -> fail("an existing slot is not initialized again"));
            assertEquals(mutexAt, m.offsetInMemory());
            assertEquals(0x1234, m.get(4), "the initializer's write is in the file");
            assertEquals(77, f.slot("ring", SlotType.RAW, 100).get(96));
            assertEquals(3, f.find("ring").orElseThrow().index() + 1);
            assertTrue(f.find("nope").isEmpty());
        }
    }

    @Test
    void createOfAnExistingPathFailsLikeEexistAndLeavesItUntouched() throws IOException {
        final Path p = dir.resolve("excl");
        try (SyncFile f = SyncFile.create(p, 4)) {
            f.slot("a", SlotType.SEM, 32);
        }
        final byte[] before = Files.readAllBytes(p);
        final FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class, () -> SyncFile.create(p, 4));
        assertTrue(e.getMessage().contains("EEXIST"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(p));
        Files.writeString(dir.resolve("other"), "x");
        assertThrows(FileAlreadyExistsException.class, () -> SyncFile.create(dir.resolve("other"), 4));
        try (var s = Files.list(dir)) {
            assertEquals(Set.of("excl", "other"), new HashSet<>(s.map(x -> x.getFileName().toString()).toList()),
                "no temporary file is left behind");
        }
    }

    @Test
    void concurrentCreatesOfOneNameHaveExactlyOneWinner() throws Exception {
        final Path p = dir.resolve("contended");
        final int n = 4;
        final CyclicBarrier start = new CyclicBarrier(n);
        final List<Thread> threads = new ArrayList<>();
        final AtomicReference<Throwable> unexpected = new AtomicReference<>();
        final java.util.concurrent.atomic.AtomicInteger winners = new java.util.concurrent.atomic.AtomicInteger();
        for (int t = 0; t < n; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    try (SyncFile f = SyncFile.create(p, 4)) {
                        winners.incrementAndGet();
                    }
                } catch (final FileAlreadyExistsException e) {
                    // lost the race
                } catch (final Throwable e) {
                    unexpected.set(e);
                }
            }));
        }
        for (final Thread t : threads) {
            t.join();
        }
        assertNull(unexpected.get());
        assertEquals(1, winners.get());
        try (SyncFile f = SyncFile.open(p)) {
            assertEquals(4, f.header().capacity());
        }
    }

    @Test
    void createdFileIs0600UnlessAModeIsGiven() throws IOException {
        final Path p = dir.resolve("perm");
        SyncFile.create(p, 2).close();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
        final Path q = dir.resolve("perm2");
        // Filtered by the umask, as open(2) filters it (SharedFileAccessTest sets the umask).
        SyncFile.create(q, 2, PosixFilePermissions.fromString("rw-r-----")).close();
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(q)));
    }

    @Test
    void openOfAMissingFileIsNoSuchFile() {
        assertThrows(NoSuchFileException.class, () -> SyncFile.open(dir.resolve("missing")));
    }

    @Test
    void openOrCreateCreatesOnceThenOpens() throws IOException {
        final Path p = dir.resolve("ooc");
        final long created;
        try (SyncFile f = SyncFile.openOrCreate(p, 3)) {
            created = f.header().createdMillis();
            f.slot("x", SlotType.ONCE, 4);
        }
        try (SyncFile f = SyncFile.openOrCreate(p, 99)) {
            assertEquals(3, f.header().capacity());
            assertEquals(created, f.header().createdMillis());
            assertTrue(f.find("x").isPresent());
        }
    }

    @Test
    void shmPathFollowsMuslNameRules() throws IOException {
        assertEquals(Path.of("/dev/shm/abc"), SyncFile.shmPath("abc"));
        assertEquals(Path.of("/dev/shm/abc"), SyncFile.shmPath("/abc"));
        for (final String bad : new String[] {"", "/", "a/b", ".", "..", "/.."}) {
            assertThrows(IllegalArgumentException.class, () -> SyncFile.shmPath(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> SyncFile.shmPath("x".repeat(256)));
        final Path p = SyncFile.shmPath("pthread4j-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try (SyncFile f = SyncFile.create(p, 2)) {
            assertEquals(p, f.path());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
        } finally {
            assertTrue(SyncFile.unlink(p));
        }
    }

    @Test
    void slotArgumentsAreValidated() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("args"), 4)) {
            assertThrows(IllegalArgumentException.class, () -> f.slot("", SlotType.RAW, 8));
            assertThrows(IllegalArgumentException.class, () -> f.slot("a b", SlotType.RAW, 8));
            assertThrows(IllegalArgumentException.class, () -> f.slot("é", SlotType.RAW, 8));
            assertThrows(IllegalArgumentException.class, () -> f.slot("x".repeat(32), SlotType.RAW, 8));
            assertThrows(IllegalArgumentException.class, () -> f.slot("m", SlotType.MUTEX, 48));
            assertThrows(IllegalArgumentException.class, () -> f.slot("r", SlotType.RAW, 2));
            f.slot("x".repeat(31), SlotType.RAW, 8);
            assertEquals(31, f.find("x".repeat(31)).orElseThrow().name().length());
            f.slot("m", SlotType.MUTEX, 40);
            final IllegalStateException type = assertThrows(IllegalStateException.class, () -> f.slot("m", SlotType.COND, 48));
            assertTrue(type.getMessage().contains("is a mutex, not a cond"), type.getMessage());
            f.slot("r", SlotType.RAW, 16);
            final IllegalStateException size = assertThrows(IllegalStateException.class, () -> f.slot("r", SlotType.RAW, 32));
            assertTrue(size.getMessage().contains("is 16 bytes, not 32"), size.getMessage());
        }
    }

    @Test
    void aFullDirectoryOrDataAreaRefusesNewSlotsAndKeepsTheEntryFree() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("full"), 2, 100, SyncFile.DEFAULT_MODE)) {
            final IllegalStateException room = assertThrows(IllegalStateException.class, () -> f.slot("big", SlotType.RAW, 101));
            assertTrue(room.getMessage().contains("no room for 'big'"), room.getMessage());
            assertEquals(FREE, f.memory().segment().get(ValueLayout.JAVA_INT, entryOffset(0) + ENTRY_STATE_OFFSET));
            f.slot("a", SlotType.RAW, 8);
            f.slot("b", SlotType.RAW, 8);
            final IllegalStateException full = assertThrows(IllegalStateException.class, () -> f.slot("c", SlotType.RAW, 8));
            assertTrue(full.getMessage().contains("directory is full (2 slots)"), full.getMessage());
        }
    }

    @Test
    void anInitializerThatThrowsAbandonsTheCreation() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("init"), 4)) {
            assertThrows(ArithmeticException.class, () -> f.slot("x", SlotType.SEM, 32, b -> {
                throw new ArithmeticException("boom");
            }));
            assertTrue(f.find("x").isEmpty());
            final Block b = f.slot("x", SlotType.SEM, 32, blk -> blk.set(0, 5));
            assertEquals(5, b.get(0));
            assertEquals(0, f.find("x").orElseThrow().index(), "the abandoned entry was reused");
        }
    }

    @Test
    void threadsOfOneProcessRacingForNamesGetTheSameBlocks() throws Exception {
        try (SyncFile f = SyncFile.create(dir.resolve("threads"), 64)) {
            final int threads = 4;
            final int names = 40;
            final long[][] seen = new long[threads][names];
            final CyclicBarrier start = new CyclicBarrier(threads);
            final List<Thread> ts = new ArrayList<>();
            final AtomicReference<Throwable> error = new AtomicReference<>();
            for (int t = 0; t < threads; t++) {
                final int me = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        for (int k = 0; k < names; k++) {
                            seen[me][k] = f.slot("n" + k, SlotType.RAW, 8 + 8 * (k % 3), b -> b.getAndAdd(0, 1))
                                .offsetInMemory();
                        }
                    } catch (final Throwable e) {
                        error.set(e);
                    }
                }));
            }
            for (final Thread t : ts) {
                t.join();
            }
            assertNull(error.get());
            for (int t = 1; t < threads; t++) {
                assertArrayEquals(seen[0], seen[t]);
            }
            for (int k = 0; k < names; k++) {
                assertEquals(1, f.slot("n" + k, SlotType.RAW, 8 + 8 * (k % 3)).get(0), "initialized exactly once");
            }
            assertEquals(names, new HashSet<>(f.slots().stream().map(SlotInfo::offset).toList()).size());
        }
    }

    @Test
    void closeMakesLaterAccessesThrowIllegalStateException() throws IOException {
        final SyncFile f = SyncFile.create(dir.resolve("closed"), 4);
        final Block b = f.slot("w", SlotType.RAW, 8);
        b.set(0, 1);
        f.close();
        f.close();
        assertFalse(f.isOpen());
        assertThrows(IllegalStateException.class, () -> b.get(0));
        assertThrows(IllegalStateException.class, () -> b.set(0, 2));
        assertThrows(IllegalStateException.class, () -> b.cas(0, 1, 2));
        assertThrows(IllegalStateException.class, () -> f.slot("w", SlotType.RAW, 8));
        assertThrows(IllegalStateException.class, () -> f.slot("new", SlotType.RAW, 8));
        assertThrows(IllegalStateException.class, f::slots);
        // A wake never reads the word: harmless on closed memory.
        Futexes.shared().wake(b.segment(), 0, 1, false);
    }

    @Test
    void closeWakesAThreadAsleepOnAWordOfTheFileAndItsNextAccessThrows() throws Exception {
        final SyncFile f = SyncFile.create(dir.resolve("sleeper"), 4);
        final Block b = f.slot("w", SlotType.RAW, 8);
        final CountDownLatch sleeping = new CountDownLatch(1);
        final AtomicReference<Throwable> outcome = new AtomicReference<>();
        final Thread t = Thread.ofPlatform().start(() -> {
            try {
                sleeping.countDown();
                // A sleeper counts itself and loops on its word, as every primitive does.
                b.getAndAdd(4, 1);
                while (b.get(0) == 0) {
                    Futexes.shared().wait(b.segment(), 0, 0, false);
                }
                outcome.set(new AssertionError("the word changed"));
            } catch (final Throwable e) {
                outcome.set(e);
            }
        });
        assertTrue(sleeping.await(10, TimeUnit.SECONDS));
        // Once counted, the sleeper is in its wait or about to be; one that has not reached the
        // system call yet reads the closed word and throws the same exception.
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (b.get(4) == 0) {
            assertTrue(System.nanoTime() < end);
            Thread.sleep(1);
        }
        f.close();
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(t.isAlive(), "close woke the sleeper");
        assertInstanceOf(IllegalStateException.class, outcome.get());
    }

    @Test
    void aClaimLeftByADeadProcessIsTakenOver() throws Exception {
        final Path p = dir.resolve("dead");
        final Process gone = new ProcessBuilder("true").start();
        assertEquals(0, gone.waitFor());
        final int deadPid = (int) gone.pid();
        try (SyncFile f = SyncFile.create(p, 4)) {
            f.slot("first", SlotType.RAW, 8);
            forgeClaim(p, 1, deadPid, 12345, "half");
            final Block b = f.slot("second", SlotType.RAW, 8);
            assertEquals(1, f.find("second").orElseThrow().index());
            assertEquals(dataStart(4) + 64, b.offsetInMemory());
        }
    }

    @Test
    void aClaimWhosePidWasReusedIsTakenOver() throws Exception {
        final Path p = dir.resolve("reused");
        try (SyncFile f = SyncFile.create(p, 4)) {
            // Our own pid, alive, but with another start stamp: the claimer was an earlier process.
            forgeClaim(p, 0, Liveness.selfPid(), Liveness.selfStamp() + 1, "old");
            f.slot("x", SlotType.RAW, 8);
            assertEquals(0, f.find("x").orElseThrow().index());
        }
    }

    @Test
    void aClaimByALiveProcessThatNeverFinishesTimesOutInsteadOfHanging() throws Exception {
        final Path p = dir.resolve("stuck");
        try (SyncFile f = SyncFile.create(p, 4)) {
            forgeClaim(p, 0, Liveness.selfPid(), Liveness.selfStamp(), "mine");
            f.creationTimeout(Duration.ofMillis(200));
            final long t0 = System.nanoTime();
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.slot("x", SlotType.RAW, 8));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(200));
            assertTrue(e.getMessage().contains("slot 0 has been in creation by process " + Liveness.selfPid()), e.getMessage());
            final SyncFileInspector.Report r = SyncFileInspector.inspect(p);
            assertEquals(0, r.pending().index());
            assertEquals(Liveness.selfPid(), r.pending().pid());
            assertEquals(Liveness.Status.ALIVE, r.pending().status());
        }
    }

    @Test
    void liveness() throws Exception {
        assertEquals(Liveness.Status.ALIVE, Liveness.status(Liveness.selfPid()));
        assertNotEquals(0, Liveness.selfStamp());
        assertEquals(Liveness.Status.DEAD, Liveness.status(0));
        assertEquals(Liveness.Status.DEAD, Liveness.status(PID_MAX + 1));
        assertTrue(Liveness.claimerAlive(Liveness.selfPid(), Liveness.selfStamp()));
        assertTrue(Liveness.claimerAlive(Liveness.selfPid(), 0));
        assertFalse(Liveness.claimerAlive(Liveness.selfPid(), Liveness.selfStamp() ^ 1));
        final Process p = new ProcessBuilder("true").start();
        p.waitFor();
        assertEquals(Liveness.Status.DEAD, Liveness.status((int) p.pid()));
    }

    /** Writes a CREATING claim with a half-written name into entry {@code index}, as a crashed creator leaves it. */
    static void forgeClaim(final Path p, final int index, final int pid, final int stamp, final String name)
            throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            final ByteBuffer e = ByteBuffer.allocate(ENTRY_SIZE).order(ByteOrder.LITTLE_ENDIAN);
            e.put(0, name.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            e.putInt(ENTRY_STATE_OFFSET, creating(pid));
            e.putInt(ENTRY_STAMP_OFFSET, stamp);
            e.putInt(ENTRY_TYPE_OFFSET, 99);
            e.putLong(ENTRY_OFFSET_OFFSET, 3);
            ch.write(e, entryOffset(index));
        }
    }
}
