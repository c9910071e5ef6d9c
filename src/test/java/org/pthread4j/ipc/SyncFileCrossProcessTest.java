package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.testing.ChildJvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** Two JVMs sharing one sync file. */
class SyncFileCrossProcessTest {
    private static final Duration LIVE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void twoJvmsRacingToCreateTheFileAndItsSlotsGetTheSameFileAndOffsets() throws Exception {
        final Path p = dir.resolve("race");
        final int names = 40;
        try (ChildJvm a = ChildJvm.start(SyncFileChild.class, p.toString());
             ChildJvm b = ChildJvm.start(SyncFileChild.class, p.toString())) {
            a.expect("ready", LIVE);
            b.expect("ready", LIVE);
            a.send("open 64");
            b.send("open 64");
            final String openedA = a.expectLine(LIVE);
            final String openedB = b.expectLine(LIVE);
            assertTrue(openedA.startsWith("opened "), openedA);
            assertEquals(openedA, openedB, "both opened the one file (same creator and creation time)");
            a.send("race " + names + " 2");
            b.send("race " + names + " 2");
            final Map<String, Set<Long>> offsets = new HashMap<>();
            for (final ChildJvm c : new ChildJvm[] {a, b}) {
                int answers = 0;
                for (String line = c.expectLine(LIVE); !line.equals("raced"); line = c.expectLine(LIVE)) {
                    final String[] w = line.split(" ");
                    assertEquals("slot", w[0], line);
                    offsets.computeIfAbsent(w[1], k -> new HashSet<>()).add(Long.parseLong(w[2]));
                    answers++;
                }
                assertEquals(2 * names, answers, c.transcript());
            }
            assertEquals(names, offsets.size());
            offsets.forEach((name, at) -> assertEquals(1, at.size(), name + " got different offsets: " + at));
            try (SyncFile f = SyncFile.open(p)) {
                assertEquals(names, f.slots().size());
                for (final SlotInfo s : f.slots()) {
                    assertEquals(Set.of(s.offset()), offsets.get(s.name()), s.name());
                }
                assertEquals(names, new HashSet<>(offsets.values()).size(), "every name has its own block");
            }
            a.send("exit");
            b.send("exit");
            assertEquals(0, a.waitFor(LIVE));
            assertEquals(0, b.waitFor(LIVE));
        }
    }

    @Test
    void aCreatorKilledInTheMiddleOfACreationDoesNotWedgeTheFile() throws Exception {
        final Path p = dir.resolve("killed");
        SyncFile.create(p, 4).close();
        try (ChildJvm a = ChildJvm.start(SyncFileChild.class, p.toString());
             ChildJvm b = ChildJvm.start(SyncFileChild.class, p.toString());
             SyncFile f = SyncFile.open(p)) {
            a.expect("ready", LIVE);
            b.expect("ready", LIVE);
            a.send("open 4");
            b.send("open 4");
            a.expectLine(LIVE);
            b.expectLine(LIVE);
            a.send("hang x");
            a.expect("claimed", LIVE);
            final SyncFileInspector.Report during = SyncFileInspector.inspect(p);
            assertEquals((int) a.pid(), during.pending().pid());
            assertEquals(Liveness.Status.ALIVE, during.pending().status());
            b.send("get x");
            a.kill9();
            final String got = b.expectLine(Duration.ofSeconds(30));
            assertTrue(got.startsWith("slot x "), got);
            assertEquals(Long.parseLong(got.substring(7)), f.slot("x", SlotType.RAW, 64).offsetInMemory());
            final SyncFileInspector.Report after = SyncFileInspector.inspect(p);
            assertNull(after.pending());
            assertEquals((int) b.pid(), after.slots().getFirst().info().creatorPid(), "the survivor created it afresh");
            b.send("exit");
            assertEquals(0, b.waitFor(LIVE));
        }
    }
}
