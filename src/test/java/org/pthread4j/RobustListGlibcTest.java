package org.pthread4j;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.pthread4j.futex.Errno;
import org.pthread4j.memory.Memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.inMillis;

/**
 * The kernel keeps one robust-list head per thread, and glibc registered one for every JVM
 * thread; this library's list takes the kernel's head only while it holds a mutex and gives
 * glibc's back when it empties. A glibc robust mutex locked by native code on a JVM thread
 * ({@code src/test/c/glibc_robust.c}, built with gcc and loaded through FFM) is then still
 * recovered when that thread dies: the next locker gets EOWNERDEAD.
 */
class RobustListGlibcTest {
    private static MethodHandle size;
    private static MethodHandle init;
    private static MethodHandle lock;
    private static MethodHandle timedLock;
    private static MethodHandle consistent;
    private static MethodHandle unlock;

    @BeforeAll
    static void build() throws Exception {
        final Path out = Path.of("target/c/libglibc_robust.so");
        Files.createDirectories(out.getParent());
        final Process p = new ProcessBuilder("gcc", "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-o", out.toString(),
            "src/test/c/glibc_robust.c", "-lpthread").redirectErrorStream(true).start();
        final String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "gcc failed:\n" + log);
        final SymbolLookup lib = SymbolLookup.libraryLookup(out.toAbsolutePath(), Arena.global());
        final Linker linker = Linker.nativeLinker();
        final FunctionDescriptor onMutex = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS);
        size = linker.downcallHandle(lib.findOrThrow("glibc_robust_size"), FunctionDescriptor.of(ValueLayout.JAVA_LONG));
        init = linker.downcallHandle(lib.findOrThrow("glibc_robust_init"), onMutex);
        lock = linker.downcallHandle(lib.findOrThrow("glibc_robust_lock"), onMutex);
        timedLock = linker.downcallHandle(lib.findOrThrow("glibc_robust_timedlock"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        consistent = linker.downcallHandle(lib.findOrThrow("glibc_robust_consistent"), onMutex);
        unlock = linker.downcallHandle(lib.findOrThrow("glibc_robust_unlock"), onMutex);
    }

    /** A glibc robust mutex in memory that is never freed (the kernel may write it after a thread's death). */
    private static MemorySegment glibcMutex() throws Throwable {
        final MemorySegment m = Arena.global().allocate((long) size.invokeExact(), 8);
        assertEquals(0, (int) init.invokeExact(m));
        return m;
    }

    private static void onThreadThatEnds(final Callable body) throws Exception {
        final FutureTask<Object> task = new FutureTask<>(() -> {
            try {
                body.run();
            } catch (final Exception | Error e) {
                throw e;
            } catch (final Throwable t) {
                throw new AssertionError(t);
            }
            return null;
        });
        final Thread t = Thread.ofPlatform().name("glibc-and-pthread4j").start(task);
        t.join(LIVENESS.toMillis());
        assertFalse(t.isAlive());
        task.get();
    }

    @FunctionalInterface
    private interface Callable {
        void run() throws Throwable;
    }

    /** The next locker's answer, waiting for the kernel's mark (liveness only). */
    private static int glibcLockAfterDeath(final MemorySegment m) throws Throwable {
        return (int) timedLock.invokeExact(m, LIVENESS.toMillis());
    }

    @Test
    void theKernelHoldsGlibcsHeadAgainOnceThePortsListIsEmpty() throws Exception {
        try (Memory mem = Memory.allocate(64)) {
            final Mutex m = new Mutex(mem.block(0, MutexLayout.SIZE, 8), MutexAttr.builder().robust(true).build());
            onThreadThatEnds(() -> {
                final long[] glibc = RobustList.kernelHead();
                assertTrue(glibc[0] != 0, "glibc registered a head for the JVM thread");
                final MemorySegment h = MemorySegment.ofAddress(glibc[0]).reinterpret(RobustList.HEAD_SIZE);
                assertEquals(-32, h.get(ValueLayout.JAVA_LONG, 8), "glibc's futex_offset");
                assertEquals(0, m.lock());
                final RobustList self = Self.current().robustOrNull();
                assertEquals(self.headAddress(), RobustList.kernelHead()[0], "the port's head while it holds a mutex");
                assertEquals(glibc[0], self.previousHead());
                assertEquals(0, m.unlock());
                assertEquals(glibc[0], RobustList.kernelHead()[0], "glibc's head once the list is empty");
                assertEquals(glibc[1], RobustList.kernelHead()[1]);
                assertEquals(0, m.tryLock());
                assertEquals(self.headAddress(), RobustList.kernelHead()[0], "the port's head again");
                assertEquals(0, m.unlock());
                assertEquals(glibc[0], RobustList.kernelHead()[0]);
            });
        }
    }

    @Test
    void aGlibcRobustMutexLockedAfterThePortsListEmptiedGivesEOWNERDEADWhenTheThreadDies() throws Throwable {
        final MemorySegment g = glibcMutex();
        try (Memory mem = Memory.allocate(64)) {
            final Mutex m = new Mutex(mem.block(0, MutexLayout.SIZE, 8), MutexAttr.builder().robust(true).build());
            onThreadThatEnds(() -> {
                assertEquals(0, m.lock());
                assertEquals(0, m.unlock());
                assertEquals(0, (int) lock.invokeExact(g), "native code locks a glibc robust mutex on the JVM thread");
            });
            assertEquals(Errno.EOWNERDEAD, glibcLockAfterDeath(g), "glibc's robust list was the kernel's at death");
            assertEquals(0, (int) consistent.invokeExact(g));
            assertEquals(0, (int) unlock.invokeExact(g));
        }
    }

    @Test
    void aGlibcRobustMutexHeldWhileThePortLocksAndUnlocksGivesEOWNERDEADWhenTheThreadDies() throws Throwable {
        final MemorySegment g = glibcMutex();
        try (Memory mem = Memory.allocate(128)) {
            final Mutex a = new Mutex(mem.block(0, MutexLayout.SIZE, 8), MutexAttr.builder().robust(true).build());
            final Mutex b = new Mutex(mem.block(64, MutexLayout.SIZE, 8), MutexAttr.builder()
                .type(MutexAttr.ERRORCHECK).pshared(true).build());
            onThreadThatEnds(() -> {
                assertEquals(0, (int) lock.invokeExact(g));
                assertEquals(0, a.lock());
                assertEquals(0, b.lock());
                assertEquals(0, a.unlock());
                assertEquals(0, b.unlock());
            });
            assertEquals(Errno.EOWNERDEAD, glibcLockAfterDeath(g));
            assertEquals(0, (int) consistent.invokeExact(g));
            assertEquals(0, (int) unlock.invokeExact(g));
        }
    }

    @Test
    void thePortsMutexesAreStillRecoveredAfterItsListEmptiedAndFilledAgain() throws Exception {
        try (Memory mem = Memory.allocate(128)) {
            final Mutex a = new Mutex(mem.block(0, MutexLayout.SIZE, 8), MutexAttr.builder().robust(true).build());
            final Mutex b = new Mutex(mem.block(64, MutexLayout.SIZE, 8), MutexAttr.builder().robust(true).build());
            onThreadThatEnds(() -> {
                for (int i = 0; i < 3; i++) {
                    assertEquals(0, a.lock());
                    assertEquals(0, a.unlock());
                }
                assertEquals(0, b.lock());
            });
            assertEquals(Errno.EOWNERDEAD, b.timedLock(inMillis(LIVENESS.toMillis())));
            assertEquals(0, b.consistent());
            assertEquals(0, b.unlock());
            assertEquals(0, a.tryLock());
            assertEquals(0, a.unlock());
        }
    }
}
