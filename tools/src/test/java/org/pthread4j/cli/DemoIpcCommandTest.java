package org.pthread4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class DemoIpcCommandTest {
    @TempDir
    Path dir;

    @Test
    void theDemoPingPongsWithAPeerJvmThenRecoversFromItsDeathThroughEownerdead() {
        final Path file = dir.resolve("demo");
        final ByteArrayOutputStream o = new ByteArrayOutputStream();
        final ByteArrayOutputStream e = new ByteArrayOutputStream();
        final int rc = DemoIpcCommand.run(new String[] {"--seconds", "1", "--file", file.toString()},
            new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8));
        final String out = o.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, out + e.toString(StandardCharsets.UTF_8));
        assertTrue(out.contains(" round trips in all"), out);
        assertTrue(out.contains("held by tid "), out);
        assertTrue(out.contains("inspect: errorcheck robust, owner died (the next locker gets EOWNERDEAD)"), out);
        assertTrue(out.contains("lock returned EOWNERDEAD"), out);
        assertTrue(out.contains("trylock returned 0"), out);
        assertFalse(Files.exists(file), "the demo removes its file");
    }

    @Test
    void usage() {
        final ByteArrayOutputStream e = new ByteArrayOutputStream();
        assertEquals(2, DemoIpcCommand.run(new String[] {"--bogus"}, System.out, new PrintStream(e, true, StandardCharsets.UTF_8)));
        assertEquals(2, DemoIpcCommand.run(new String[] {"--seconds", "-1"}, System.out, new PrintStream(e, true, StandardCharsets.UTF_8)));
        assertTrue(e.toString(StandardCharsets.UTF_8).contains(DemoIpcCommand.USAGE));
    }
}
