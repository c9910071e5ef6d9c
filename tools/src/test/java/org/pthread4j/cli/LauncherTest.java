package org.pthread4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.ipc.SyncFile;

import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher script itself, run from another directory: it keeps the caller's working
 * directory, so relative paths mean what they mean there, and has no usage text of its own. It
 * runs from a copy of the checkout whose tools jar is up to date (a manifest naming this test's
 * class path), so it starts the CLI without building anything.
 */
class LauncherTest {
    private static final Path TOP = Path.of(System.getProperty("user.dir"));

    @TempDir
    Path checkout;
    @TempDir
    Path elsewhere;

    private record Run(int status, String out) {
    }

    private Run launch(final String... args) throws Exception {
        final List<String> cmd = new ArrayList<>(List.of("bash", checkout.resolve("pthread4j").toString()));
        cmd.addAll(List.of(args));
        final ProcessBuilder pb = new ProcessBuilder(cmd).directory(elsewhere.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("PTHREAD4J_JVM_FLAGS");
        final Process p = pb.start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the launcher finished");
        return new Run(p.exitValue(), out);
    }

    private void layOutCheckout() throws Exception {
        Files.copy(TOP.resolve("pthread4j"), checkout.resolve("pthread4j"));
        Files.createDirectories(checkout.resolve(".ci"));
        Files.copy(TOP.resolve(".ci/jdk.sh"), checkout.resolve(".ci/jdk.sh"));
        final FileTime old = FileTime.fromMillis(0);
        for (final String d : List.of("src/main", "tools/src/main", "core", "tools/target/lib")) {
            Files.createDirectories(checkout.resolve(d));
        }
        for (final String f : List.of("pom.xml", "core/pom.xml", "tools/pom.xml")) {
            Files.writeString(checkout.resolve(f), "");
            Files.setLastModifiedTime(checkout.resolve(f), old);
        }
        for (final String d : List.of("src/main", "tools/src/main")) {
            Files.setLastModifiedTime(checkout.resolve(d), old);
        }
        final StringBuilder classPath = new StringBuilder();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            classPath.append(Path.of(entry).toUri()).append(' ');
        }
        final Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath.toString().trim());
        try (OutputStream os = Files.newOutputStream(checkout.resolve("tools/target/pthread4j-tools.jar"));
             JarOutputStream jar = new JarOutputStream(os, m)) {
            jar.flush();
        }
    }

    @Test
    void theLauncherRunsInTheCallersDirectoryWithoutAUsageTextOfItsOwn() throws Exception {
        layOutCheckout();
        final Path file = elsewhere.resolve("mysync.bin");
        SyncFile.create(file, 2).close();

        final Run inspect = launch("inspect", "mysync.bin");
        assertEquals(0, inspect.status(), inspect.out());
        assertTrue(inspect.out().startsWith(file.toRealPath() + ": pthread4j sync file")
            || inspect.out().startsWith(file + ": pthread4j sync file"), inspect.out());
        assertFalse(inspect.out().contains("building"), "nothing was built: " + inspect.out());

        final Run none = launch();
        assertEquals(Main.USAGE, none.status(), none.out());
        assertTrue(none.out().startsWith("pthread4j: missing COMMAND\n"), "the CLI's message: " + none.out());
        final Run help = launch("--help");
        assertEquals(0, help.status(), help.out());
        assertEquals(Cli.run("--help").out(), help.out(), "the launcher prints the CLI's help, nothing of its own");

        final Run version = launch("--version");
        assertEquals(0, version.status(), version.out());
        assertTrue(version.out().startsWith("pthread4j "), version.out());
    }
}
