package org.pthread4j.ipc;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.CondAttr;
import org.pthread4j.futex.Timespec;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.memory.Block;
import org.pthread4j.testing.ChildJvm;
import org.pthread4j.testing.Musl;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The C library for musl programs ({@code src/main/c/pthread4j_sync.h}, issue 21 item 3): a C
 * program ({@code src/test/c/syncfile_interop.c}, built with {@code musl-gcc} and the library's
 * Makefile) opens or creates a sync file and finds or creates slots with the JVM's protocol.
 * C creates and the JVM finds; the JVM creates and C finds; C processes and JVMs race to create
 * the same file and names; a creator killed mid-creation, on either side, is taken over by the
 * other. Skipped, saying why, where {@code musl-gcc} is missing.
 */
class SyncFileCLibraryTest {
    private static final Duration CHILD = Duration.ofSeconds(120);
    private static final List<String> INTEROP_SET = List.of("m", "c", "rw", "s", "b", "counter");
    private static Path c;

    @TempDir
    Path dir;

    @BeforeAll
    static void build() throws Exception {
        if (Musl.skipReason() == null) {
            c = Musl.buildWithLibrary("syncfile_interop", "src/test/c/syncfile_interop.c");
        }
    }

    /** {@code slot NAME OFFSET} lines, by name. */
    private static Map<String, Long> slots(final List<String> lines) {
        final Map<String, Long> m = new LinkedHashMap<>();
        for (final String l : lines) {
            final String[] w = l.split(" ");
            if (w[0].equals("slot")) {
                m.put(w[1], Long.parseLong(w[2]));
            }
        }
        return m;
    }

    private static String value(final List<String> lines, final String key) {
        for (final String l : lines) {
            if (l.startsWith(key + " ")) {
                return l.substring(key.length() + 1);
            }
        }
        throw new AssertionError("no '" + key + "' line in " + lines);
    }

    @Test
    void aFileAndSlotsACProgramCreatedAreFoundByTheJvmWithTheirAttributes() throws Exception {
        Musl.require();
        final Path p = dir.resolve("made-in-c");
        final List<String> out = Musl.run(c, p.toString(), "make");
        assertEquals("done", out.get(out.size() - 1), out.toString());
        final Map<String, Long> offsets = slots(out);
        assertEquals(INTEROP_SET, List.copyOf(offsets.keySet()));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
        try (SyncFile f = SyncFile.open(p)) {
            for (final String name : INTEROP_SET) {
                assertEquals(offsets.get(name), f.find(name).orElseThrow().offset(), name);
            }
            final Mutex m = f.mutex("m");
            assertEquals(MutexAttr.ERRORCHECK, m.attr().type());
            assertTrue(m.attr().robust() && m.attr().pshared());
            assertEquals(Timespec.CLOCK_MONOTONIC, f.cond("c").clock());
            assertTrue(f.cond("c").isPshared());
            assertTrue(f.rwlock("rw").isPshared());
            assertEquals(3, f.sem("s", 0).getValue());
            assertTrue(f.sem("s", 0).isPshared());
            assertEquals(2, f.barrier("b", 2).count());
            assertEquals(SlotType.RAW, f.find("counter").orElseThrow().type());
            final PthreadLock lock = f.lock("m");
            lock.lock();
            lock.unlock();
            assertNotEquals(ProcessHandle.current().pid(), (long) f.header().creatorPid(), "C created the file");
        }
    }

    @Test
    void slotsTheJvmCreatedAreFoundByACProgramWithTheirAttributes() throws Exception {
        Musl.require();
        final Path p = dir.resolve("made-in-java");
        final Map<String, Long> offsets = new HashMap<>();
        try (SyncFile f = SyncFile.create(p, 16)) {
            offsets.put("m", f.mutex("m", PrimitivesChild.ROBUST).block().offsetInMemory());
            offsets.put("c", f.cond("c", CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).build()).block()
                .offsetInMemory());
            offsets.put("rw", f.rwlock("rw").block().offsetInMemory());
            offsets.put("s", f.sem("s", 3).block().offsetInMemory());
            offsets.put("b", f.barrier("b", 2).block().offsetInMemory());
            offsets.put("counter", f.slot("counter", SlotType.RAW, 8).offsetInMemory());
        }
        final List<String> out = Musl.run(c, p.toString(), "find");
        assertEquals(offsets, slots(out));
        assertEquals("2 1", value(out, "mutex"), "musl sees an ERRORCHECK (2), robust mutex");
        assertEquals(Integer.toString(Timespec.CLOCK_MONOTONIC), value(out, "cond"));
        assertEquals("3", value(out, "sem"), "musl's sem_getvalue");
        assertEquals("2", value(out, "barrier"));
        assertEquals("done", out.get(out.size() - 1));
        try (SyncFile f = SyncFile.open(p)) {
            assertEquals(6, f.slots().size(), "C created nothing more");
        }
    }

    @Test
    void aCreateWithConflictingAttributesIsRefusedInCAndAnAttachIsNot() throws Exception {
        Musl.require();
        final Path p = dir.resolve("conflict");
        try (SyncFile f = SyncFile.create(p, 16)) {
            f.mutex("m");
        }
        final Musl.Proc make = new Musl.Proc(c, p.toString(), "make");
        assertEquals(1, make.waitFor());
        assertTrue(make.transcript().contains("error m: EEXIST"), make.transcript());
        final List<String> found = Musl.run(c, p.toString(), "find");
        assertEquals("0 0", value(found, "mutex"), "attached whatever its attributes: NORMAL, not robust");
    }

    /** The next line of a racer's output. */
    @FunctionalInterface
    private interface NextLine {
        String get() throws InterruptedException;
    }

    /** Racers: C processes and JVMs, their output, and what they saw. */
    private static final class Race implements AutoCloseable {
        final List<ChildJvm> jvms = new ArrayList<>();
        final List<Musl.Proc> cs = new ArrayList<>();
        final Map<String, Set<Long>> seen = new HashMap<>();
        final Set<Long> pids = new HashSet<>();

        void collect(final Musl.Proc proc) throws InterruptedException {
            collect(proc::line, proc.process().pid());
        }

        void collect(final ChildJvm j) throws InterruptedException {
            collect(() -> j.expectLine(CHILD), j.pid());
        }

        /** Reads {@code slot NAME OFFSET} lines up to {@code raced}. */
        private void collect(final NextLine next, final long pid) throws InterruptedException {
            for (String l = next.get(); !l.equals("raced"); l = next.get()) {
                assertTrue(l.startsWith("slot "), l);
                final String[] w = l.split(" ");
                seen.computeIfAbsent(w[1], k -> new HashSet<>()).add(Long.parseLong(w[2]));
            }
            pids.add(pid);
        }

        /** Every process got one block per name, the directory says the same, and the racers made it all. */
        Map<Integer, Integer> check(final Path p, final int names) throws Exception {
            assertEquals(names, seen.size());
            for (final Map.Entry<String, Set<Long>> e : seen.entrySet()) {
                assertEquals(1, e.getValue().size(), "every process got one block for " + e.getKey() + ": " + e.getValue());
            }
            final Map<Integer, Integer> byCreator = new HashMap<>();
            try (SyncFile f = SyncFile.open(p)) {
                for (final SlotInfo s : f.slots()) {
                    if (s.name().equals("gate")) {
                        continue;
                    }
                    assertEquals(Set.of(s.offset()), seen.get(s.name()), s.name());
                    assertTrue(pids.contains((long) s.creatorPid()), s.toString());
                    byCreator.merge(s.creatorPid(), 1, Integer::sum);
                }
                assertEquals(names, byCreator.values().stream().mapToInt(Integer::intValue).sum(), "each name once");
            }
            return byCreator;
        }

        @Override
        public void close() throws InterruptedException {
            for (final ChildJvm j : jvms) {
                j.close();
            }
            for (final Musl.Proc proc : cs) {
                proc.close();
            }
        }
    }

    @Test
    void cProgramsAndJvmsRacingToCreateOneFileAllOpenTheOneThatWasCreated() throws Exception {
        Musl.require();
        final Path p = dir.resolve("race-file");
        final int names = 20;
        try (Race race = new Race()) {
            for (int i = 0; i < 2; i++) {
                race.jvms.add(ChildJvm.start(SyncFileChild.class, p.toString()));
            }
            for (final ChildJvm j : race.jvms) {
                j.expect("ready", CHILD);
            }
            for (int i = 0; i < 3; i++) {
                race.cs.add(new Musl.Proc(c, p.toString(), "race", Integer.toString(names)));
            }
            for (final ChildJvm j : race.jvms) {
                j.send("open 64");
            }
            for (final Musl.Proc proc : race.cs) {
                proc.send("go");
            }
            final Set<String> opened = new HashSet<>();
            for (final ChildJvm j : race.jvms) {
                final String line = j.expectLine(CHILD);
                assertTrue(line.startsWith("opened "), line);
                opened.add(line);
                j.send("race " + names + " 2");
            }
            assertEquals(1, opened.size(), "both JVMs opened the same file (creator pid and time): " + opened);
            for (final Musl.Proc proc : race.cs) {
                race.collect(proc);
            }
            for (final ChildJvm j : race.jvms) {
                race.collect(j);
            }
            race.check(p, names);
            try (SyncFile f = SyncFile.open(p)) {
                assertTrue(race.pids.contains((long) f.header().creatorPid()), "one of the racers created the file");
                assertEquals("opened " + f.header().creatorPid() + " " + f.header().createdMillis(),
                    opened.iterator().next());
            }
        }
    }

    @Test
    void cProgramsAndJvmsRacingToCreateTheSameNamesAllGetTheSameSlots() throws Exception {
        Musl.require();
        final Path p = dir.resolve("race-names");
        final int names = 40;
        try (SyncFile f = SyncFile.create(p, 64); Race race = new Race()) {
            final Block gate = f.slot("gate", SlotType.RAW, 8);
            for (int i = 0; i < 2; i++) {
                final ChildJvm j = ChildJvm.start(SyncFileChild.class, p.toString());
                race.jvms.add(j);
                j.expect("ready", CHILD);
                j.send("open 64");
                assertTrue(j.expectLine(CHILD).startsWith("opened "));
                j.send("race " + names + " 2 gate");
                j.expect("armed", CHILD);
            }
            for (int i = 0; i < 3; i++) {
                final Musl.Proc proc = new Musl.Proc(c, p.toString(), "race", Integer.toString(names), "gate");
                race.cs.add(proc);
                assertEquals("armed", proc.line());
            }
            gate.set(0, 1);
            for (final Musl.Proc proc : race.cs) {
                race.collect(proc);
            }
            for (final ChildJvm j : race.jvms) {
                race.collect(j);
            }
            final Map<Integer, Integer> byCreator = race.check(p, names);
            System.out.println("C/JVM race of names: slots by creator " + byCreator + " (C "
                + race.cs.stream().map(x -> x.process().pid()).toList() + ", JVMs "
                + race.jvms.stream().map(ChildJvm::pid).toList() + ")");
        }
    }

    @Test
    void aCProgramKilledWhileCreatingASlotIsTakenOverByTheJvm() throws Exception {
        Musl.require();
        final Path p = dir.resolve("c-dies");
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Musl.Proc hang = new Musl.Proc(c, p.toString(), "hang", "x");
            final CompletableFuture<Block> lookup;
            try (hang) {
                assertEquals("claimed", hang.line());
                lookup = CompletableFuture.supplyAsync(() -> f.slot("x", SlotType.RAW, 64));
                assertTrue(f.find("x").isEmpty(), "nothing published while the C process creates");
                hang.process().destroyForcibly();
                assertTrue(hang.process().waitFor(30, TimeUnit.SECONDS));
            }
            final Block b = lookup.get(60, TimeUnit.SECONDS);
            final SlotInfo x = f.find("x").orElseThrow();
            assertEquals(x.offset(), b.offsetInMemory());
            assertEquals(ProcessHandle.current().pid(), (long) x.creatorPid(), "the JVM took the dead claim over");
        }
    }

    @Test
    void aJvmKilledWhileCreatingASlotIsTakenOverByACProgram() throws Exception {
        Musl.require();
        final Path p = dir.resolve("jvm-dies");
        SyncFile.create(p, 8).close();
        try (ChildJvm child = ChildJvm.start(SyncFileChild.class, p.toString())) {
            child.expect("ready", CHILD);
            child.send("open 8");
            child.expectLine(CHILD);
            child.send("hang x");
            child.expect("claimed", CHILD);
            child.kill9();
        }
        final Musl.Proc get = new Musl.Proc(c, p.toString(), "get", "x");
        final String line = get.line();
        assertEquals(0, get.waitFor(), get.transcript());
        try (SyncFile f = SyncFile.open(p)) {
            final SlotInfo x = f.find("x").orElseThrow();
            assertEquals("slot x " + x.offset(), line);
            assertEquals(get.process().pid(), (long) x.creatorPid(), "the C program took the dead claim over");
        }
    }

    @Test
    void theCLibraryRefusesALinkAndAFileOthersMayWriteAsTheJvmDoes() throws Exception {
        Musl.require();
        final Path p = dir.resolve("real");
        SyncFile.create(p, 8).close();
        final Path link = Files.createSymbolicLink(dir.resolve("link"), p);
        final Musl.Proc viaLink = new Musl.Proc(c, link.toString(), "get", "x");
        assertEquals(1, viaLink.waitFor());
        assertTrue(viaLink.transcript().contains("error open: ELOOP"), viaLink.transcript());
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-rw-rw-"));
        final Musl.Proc open = new Musl.Proc(c, p.toString(), "get", "x");
        assertEquals(1, open.waitFor());
        assertTrue(open.transcript().contains("error open: EACCES"), open.transcript());
        try (SyncFile f = SyncFile.open(p, org.pthread4j.SharedFileOption.ALLOW_WRITES_BY_OTHER_USERS)) {
            assertTrue(f.find("x").isEmpty());
        }
    }
}
