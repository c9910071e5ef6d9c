package org.pthread4j.cli.workload;

import org.pthread4j.Cond;
import org.pthread4j.CondAttr;
import org.pthread4j.CondLayout;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.RwLock;
import org.pthread4j.RwLockAttr;
import org.pthread4j.RwLockLayout;
import org.pthread4j.Sem;
import org.pthread4j.SemLayout;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.internal.Syscall;
import org.pthread4j.memory.Memory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The futex backends the workloads compare, with the kernel ones only where they exist, and the
 * {@link Place places} a library primitive is measured in: process-private memory on one
 * backend, or process-shared memory (a {@code MAP_SHARED} file in {@code /dev/shm}).
 */
final class BenchBackends {
    /** Why the kernel backends are skipped elsewhere. */
    static final String NO_KERNEL = "needs Linux on x86_64 or aarch64";
    /** The backend column of a process-shared primitive. */
    static final String PSHARED = "pshared (/dev/shm)";

    private BenchBackends() {
    }

    /**
     * Fails on an errno result: a benchmark of a primitive that fails measures nothing.
     *
     * @param r    what the call returned
     * @param call the call, for the message
     * @throws IllegalStateException when {@code r} is not 0
     */
    static void check(final int r, final String call) {
        if (r != 0) {
            throw new IllegalStateException(call + " returned " + Errno.name(r));
        }
    }

    /** @return whether the kernel backends can run here */
    static boolean kernel() {
        return Syscall.AVAILABLE;
    }

    /** @return the names of every backend for private words: parking, linux, linux-noprivate */
    static List<String> privateNames() {
        return List.of("parking", "linux", "linux-noprivate");
    }

    /** @return every private backend, then {@link #PSHARED} */
    static List<String> privateAndShared() {
        final List<String> names = new ArrayList<>(privateNames());
        names.add(PSHARED);
        return names;
    }

    /**
     * @param name a backend name
     * @return whether it needs the kernel
     */
    static boolean needsKernel(final String name) {
        return !name.startsWith("parking");
    }

    /**
     * A case per private backend, or a skipped case where the backend cannot run.
     *
     * @param impl the impl column
     * @param make the case for a backend
     * @return the cases
     */
    static List<Case> perPrivateBackend(final String impl, final Function<Futex, Case.Opener> make) {
        return perPlace(impl, privateNames(), p -> make.apply(p.futex()));
    }

    /**
     * A case per place, or a skipped case where the place cannot be had here.
     *
     * @param impl  the impl column
     * @param names backend names ({@link #privateNames()}, {@link #PSHARED})
     * @param make  the case for a place
     * @return the cases
     */
    static List<Case> perPlace(final String impl, final List<String> names, final Function<Place, Case.Opener> make) {
        final List<Case> cases = new ArrayList<>();
        for (final String name : names) {
            if (needsKernel(name) && !kernel()) {
                cases.add(Case.skipped(impl, name, NO_KERNEL));
            } else {
                cases.add(Case.of(impl, name, () -> make.apply(Place.named(name)).open()));
            }
        }
        return cases;
    }

    /**
     * Where a library primitive lives and sleeps: process-private memory with a private
     * backend, or a {@code MAP_SHARED} mapping with the pshared attribute (kernel futexes
     * without the private flag). The factories initialize each primitive with the place's
     * attributes at a given offset of a memory from {@link #memory}.
     *
     * @param name   the backend column
     * @param futex  the private backend, or {@code null} for a shared place
     * @param shared whether the primitives are process-shared
     */
    record Place(String name, Futex futex, boolean shared) {
        /**
         * @param name a private backend's name or {@link #PSHARED}
         * @return the place
         */
        static Place named(final String name) {
            return PSHARED.equals(name) ? new Place(name, null, true) : new Place(name, Futexes.byName(name), false);
        }

        /**
         * @param size bytes
         * @return zeroed private memory, or a fresh shared mapping of a file in {@code /dev/shm}
         *     (the file is unlinked at once: the mapping alone keeps it)
         * @throws IOException when the file cannot be made or mapped
         */
        Memory memory(final long size) throws IOException {
            if (!shared) {
                return Memory.allocate(size);
            }
            final Path shm = Path.of("/dev/shm");
            final Path dir = Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
            final Path file = Files.createTempFile(dir, "pthread4j-bench-", ".shm");
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.allocate(1), size - 1);
                return Memory.map(ch, file.toString(), size);
            } finally {
                Files.deleteIfExists(file);
            }
        }

        /**
         * @param memory the memory
         * @param offset where, 8-byte aligned
         * @return a NORMAL mutex with this place's attributes
         */
        Mutex mutex(final Memory memory, final long offset) {
            return new Mutex(memory.block(offset, MutexLayout.SIZE, MutexLayout.ALIGNMENT),
                MutexAttr.builder().pshared(shared).futex(futex).build());
        }

        /**
         * @param memory the memory
         * @param offset where, 8-byte aligned
         * @return a CLOCK_REALTIME condvar with this place's attributes
         */
        Cond cond(final Memory memory, final long offset) {
            return new Cond(memory.block(offset, CondLayout.SIZE, CondLayout.ALIGNMENT),
                CondAttr.builder().pshared(shared).futex(futex).build());
        }

        /**
         * @param memory the memory
         * @param offset where, 8-byte aligned
         * @return a rwlock with this place's attributes
         */
        RwLock rwlock(final Memory memory, final long offset) {
            return new RwLock(memory.block(offset, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT),
                RwLockAttr.builder().pshared(shared).futex(futex).build());
        }

        /**
         * @param memory the memory
         * @param offset where, 4-byte aligned
         * @param value  the initial value
         * @return a semaphore with this place's attributes
         */
        Sem sem(final Memory memory, final long offset, final int value) {
            return new Sem(memory.block(offset, SemLayout.SIZE, SemLayout.ALIGNMENT), shared, value, futex);
        }
    }
}
