package org.pthread4j.cli.inspect;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.ipc.SyncFile;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code inspect --watch}: frames in place on a terminal, a line per change elsewhere. */
class WatchTest {
    @TempDir
    Path dir;

    @Test
    void changesSinceTheLastFrameAreOneLineEach() {
        final Map<String, String> before = Map.of("f: m", "normal, free, 0 waiters", "f: s", "value 1, 0 waiters");
        final Map<String, String> after = new java.util.LinkedHashMap<>();
        after.put("f: m", "normal, held by tid 7 (alive), 0 waiters");
        after.put("f: s", "value 1, 0 waiters");
        after.put("f: r", "free, 0 waiters");
        assertEquals(List.of("f: m: normal, free, 0 waiters -> normal, held by tid 7 (alive), 0 waiters",
            "f: r: new: free, 0 waiters"), Watch.changes(before, after));
        assertEquals(List.of("f: m: gone", "f: s: gone").size(), Watch.changes(before, Map.of()).size());
    }

    @Test
    void aTerminalGetsFramesRedrawnInPlace() throws Exception {
        final Path p = dir.resolve("w");
        try (SyncFile f = SyncFile.create(p, 4)) {
            f.mutex("m");
            final StringWriter out = new StringWriter();
            new Watch(List.of(p), 10, new ProcScan(), false, new PrintWriter(out), true).run(2);
            final String s = out.toString();
            assertTrue(s.startsWith("\033[H\033[2Jpthread4j inspect --watch: every 10 ms, "), s);
            assertEquals(2, s.split("\033\\[H\033\\[2J", -1).length - 1, "two frames: " + s);
            assertTrue(s.contains("  0  m     mutex"), s);
            assertTrue(s.endsWith("nothing changed since the last frame\n"), s);
        }
    }

    @Test
    void anythingElseGetsTheReportOnceThenTimeStampedChangeLines() throws Exception {
        final Path p = dir.resolve("w");
        try (SyncFile f = SyncFile.create(p, 4)) {
            f.mutex("m");
            final StringWriter out = new StringWriter();
            new Watch(List.of(p), 10, new ProcScan(), false, new PrintWriter(out), false).run(3);
            final String s = out.toString();
            assertFalse(s.contains("\033"), s);
            assertTrue(s.startsWith(p + ": pthread4j sync file"), s);
            assertTrue(s.contains("normal, free, 0 waiters\n"), s);
            assertTrue(s.lines().noneMatch(l -> l.matches("\\d\\d:\\d\\d:.*")), "no change, no line: " + s);
        }
    }
}
