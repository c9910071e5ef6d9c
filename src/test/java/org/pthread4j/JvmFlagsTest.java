package org.pthread4j;

import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.testing.ChildJvm;
import org.pthread4j.testing.LibraryUserChild;

import java.io.File;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.constantpool.ClassEntry;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a program that uses the library needs on its java command line, and what it gets without
 * it, checked in JVMs started with exactly those flags (README, "Use it in your project").
 */
class JvmFlagsTest {
    private static final Duration LIVENESS = Duration.ofSeconds(120);
    private static final String DENY = "--illegal-native-access=deny";

    @Test
    void deniedNativeAccessOnTheClassPathIsAnIllegalCallerExceptionNamingEnableNativeAccessForAllUnnamed() throws Exception {
        final String line = run(classPath(DENY), "robust");
        assertTrue(line.startsWith("threw java.lang.IllegalCallerException: "), line);
        assertTrue(line.contains("add --enable-native-access=ALL-UNNAMED to the java command line"), line);
        assertTrue(line.contains("Enable-Native-Access: ALL-UNNAMED to the manifest of an executable jar"), line);
    }

    @Test
    void deniedNativeAccessOnTheModulePathIsAnIllegalCallerExceptionNamingTheModule() throws Exception {
        final String line = run(modulePath(DENY), "robust");
        assertTrue(line.startsWith("threw java.lang.IllegalCallerException: "), line);
        assertTrue(line.contains("add --enable-native-access=org.pthread4j to the java command line"), line);
        // the manifest attribute grants only the unnamed module: no use to a named library
        assertTrue(!line.contains("Enable-Native-Access"), line);
    }

    @Test
    void privateLocksOnTheParkingBackendNeedNoNativeAccess() throws Exception {
        assertEquals("ok private", run(classPath(DENY), "private"));
        assertEquals("ok private", run(modulePath(DENY), "private"));
    }

    @Test
    void anUnknownFutexBackendIsAnIllegalArgumentExceptionListingTheValidValues() throws Exception {
        final String line = run(classPath("--enable-native-access=ALL-UNNAMED", "-Dpthread4j.futex=kernel"), "private");
        assertEquals("threw java.lang.IllegalArgumentException: -Dpthread4j.futex=kernel: unknown futex backend "
            + "'kernel'; the valid values are parking, linux and linux-noprivate", line);
    }

    @Test
    void everyPrimitiveRunsWithoutAddExportsOnTheClassPathAndTheModulePath(@TempDir final Path dir) throws Exception {
        assertEquals("ok tour", run(classPath(DENY, "--enable-native-access=ALL-UNNAMED"), "tour", dir.toString()));
        assertEquals("ok tour", run(modulePath(DENY, "--enable-native-access=org.pthread4j"), "tour", dir.toString()));
    }

    /** Another architecture, or another system: the JVM is told it runs on Linux riscv64. */
    @Test
    void elsewherePrivatePrimitivesRunOnTheParkingBackendAndKernelOnesAreRefusedClearly(@TempDir final Path dir)
        throws Exception {
        final List<String> elsewhere = classPath("--enable-native-access=ALL-UNNAMED", "-Dos.arch=riscv64");
        assertEquals("ok private-tour", run(elsewhere, "private-tour"));
        assertEquals("threw java.lang.UnsupportedOperationException: the Linux futex backend needs Linux on x86_64 or "
            + "aarch64, and this JVM runs on Linux riscv64: process-shared and robust primitives need it; private ones "
            + "run on the parking backend (the default)", run(elsewhere, "shared", dir.toString()));
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "a refused sync file was created");
        }
        final String robust = run(elsewhere, "robust");
        assertTrue(robust.startsWith("threw java.lang.UnsupportedOperationException: robust mutexes need the kernel"
            + " robust list"), robust);
    }

    @Test
    void onlyAgronasUnsafeBufferNeedsTheJdkInternalMiscExport() throws Exception {
        final String without = run(classPath("--enable-native-access=ALL-UNNAMED"), "unsafe-buffer");
        assertTrue(without.startsWith("threw java.lang.IllegalAccessError: "), without);
        assertTrue(without.contains("does not export jdk.internal.misc"), without);
        assertEquals("ok unsafe-buffer", run(classPath("--enable-native-access=ALL-UNNAMED",
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"), "unsafe-buffer"));
        // on the module path Agrona is the automatic module org.agrona
        final String withoutOnModulePath = run(modulePath("--enable-native-access=org.pthread4j"), "unsafe-buffer");
        assertTrue(withoutOnModulePath.contains("does not export jdk.internal.misc to module org.agrona"), withoutOnModulePath);
        assertEquals("ok unsafe-buffer", run(modulePath("--enable-native-access=org.pthread4j",
            "--add-exports", "java.base/jdk.internal.misc=org.agrona"), "unsafe-buffer"));
    }

    /** The library's classes name no Agrona class but two interfaces, which load without the export. */
    @Test
    void theLibraryUsesOnlyAgronaInterfacesThatNeedNoExport() throws IOException, URISyntaxException {
        final Set<String> named = new TreeSet<>();
        try (Stream<Path> files = Files.walk(location(Mutex.class))) {
            for (final Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                for (final var entry : ClassFile.of().parse(f).constantPool()) {
                    if (entry instanceof ClassEntry c && c.asInternalName().startsWith("org/agrona/")) {
                        named.add(c.asInternalName());
                    }
                }
            }
        }
        assertEquals(Set.of("org/agrona/concurrent/AtomicBuffer", "org/agrona/concurrent/IdleStrategy"), named);
    }

    private static String run(final List<String> options, final String... args) throws Exception {
        try (ChildJvm child = ChildJvm.start(options, LibraryUserChild.class, args)) {
            final String line = child.expectLine(LIVENESS);
            assertEquals(0, child.waitFor(LIVENESS), child.transcript());
            return line;
        }
    }

    private static List<String> classPath(final String... flags) {
        final List<String> options = new ArrayList<>(List.of(flags));
        options.add("-cp");
        options.add(System.getProperty("java.class.path"));
        return options;
    }

    /** The library and Agrona on the module path, the child (outside the library's packages) on the class path. */
    private static List<String> modulePath(final String... flags) throws URISyntaxException {
        final Path library = location(Mutex.class);
        assertTrue(Files.exists(library.resolve("module-info.class")), "no module-info.class in " + library);
        final List<String> options = new ArrayList<>(List.of(flags));
        options.add("-p");
        options.add(library + File.pathSeparator + location(AtomicBuffer.class));
        options.add("--add-modules");
        options.add("org.pthread4j");
        options.add("-cp");
        options.add(location(LibraryUserChild.class).toString());
        return options;
    }

    private static Path location(final Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
