package org.pthread4j.cli.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The C baselines ship in the tools jar and are compiled into a cache keyed by their content. */
class CProgramsTest {
    @TempDir
    Path cache;

    @Test
    void theSourcesAreResourcesOfTheJarNotFilesOfTheProject() throws Exception {
        for (final String program : new String[] {"futex_swap", "futex_lock", "cond_bench", "ipc_pingpong"}) {
            final byte[] source = CPrograms.source(program);
            assertTrue(new String(source, java.nio.charset.StandardCharsets.UTF_8).contains("int main("), program);
        }
    }

    @Test
    void aProgramIsCompiledOnceIntoADirectoryNamedByItsSourceHash() throws Exception {
        final Object built = CPrograms.build(cache, CPrograms.Libc.GLIBC, "futex_swap");
        assumeTrue(built instanceof Path, () -> "gcc is needed: " + built);
        final Path binary = (Path) built;
        assertTrue(binary.startsWith(cache), binary.toString());
        assertEquals(cache, binary.getParent().getParent());
        assertTrue(binary.getParent().getFileName().toString().matches("[0-9a-f]{16}"), binary.toString());
        assertTrue(Files.isExecutable(binary));
        assertArrayEquals(CPrograms.source("futex_swap"), Files.readAllBytes(binary.getParent().resolve("futex_swap.c")));
        try (var files = Files.list(binary.getParent())) {
            assertEquals(2, files.count(), "the source and the binary, no temporary file left");
        }
        final long modified = Files.getLastModifiedTime(binary).toMillis();
        assertEquals(binary, CPrograms.build(cache, CPrograms.Libc.GLIBC, "futex_swap"));
        assertEquals(modified, Files.getLastModifiedTime(binary).toMillis(), "not compiled again");
        final double[] figures = CPrograms.run(binary, new String[] {"swap"}, 5_000_000L);
        assertTrue(figures.length >= 1 && figures[0] > 0);
    }

    @Test
    void theDefaultCacheFollowsXdgOrTheHomeDirectory() {
        final Path c = CPrograms.defaultCache();
        assertTrue(c.endsWith(Path.of("pthread4j", "bench-c")), c.toString());
        final String xdg = System.getenv("XDG_CACHE_HOME");
        assertEquals(xdg != null && xdg.startsWith("/") ? Path.of(xdg, "pthread4j", "bench-c")
            : Path.of(System.getProperty("user.home"), ".cache", "pthread4j", "bench-c"), c);
    }
}
