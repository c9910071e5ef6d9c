package org.pthread4j.cli.fs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * A regular file opened for reading without ever blocking: a FIFO, a device or a directory at
 * the path is refused with its type in words before anything is opened, and the open itself
 * uses {@code O_NONBLOCK}, so a FIFO swapped in between is opened without waiting for a writer
 * and then refused. The channel is the file the check was made on: it is reopened through
 * {@code /proc/self/fd}, which names the inode the descriptor holds, not the path.
 *
 * @param path     the file as named
 * @param channel  the file, open for reading
 * @param owner    its owner's name (or uid)
 * @param group    its group's name (or gid)
 * @param mode     its permission bits, e.g. {@code 0600}
 * @param device   its device number ({@code st_dev})
 * @param inode    its inode number
 */
public record RegularFile(Path path, FileChannel channel, String owner, String group, int mode, long device,
                          long inode) implements AutoCloseable {
    private static final int O_RDONLY = 0;
    private static final int O_NOCTTY = 0400;
    private static final int O_NONBLOCK = 04000;
    private static final int O_CLOEXEC = 02000000;
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final Map<Integer, String> TYPES = Map.of(0040000, "is a directory",
        0010000, "not a regular file (a FIFO)", 0140000, "not a regular file (a socket)",
        0020000, "not a regular file (a character device)", 0060000, "not a regular file (a block device)");

    /**
     * Opens a regular file for reading.
     *
     * @param path the file
     * @return it, open
     * @throws IOException with the problem in words ({@code "no such file"}, {@code "permission
     *                     denied"}, {@code "is a directory"}, {@code "not a regular file (a
     *                     FIFO)"}), without the file's name
     */
    public static RegularFile open(final Path path) throws IOException {
        check(path);
        final int fd = Native.open(path.toAbsolutePath().toString(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        try {
            final Path self = Path.of("/proc/self/fd/" + fd);
            final int type = check(self);
            final PosixFileAttributes a = Files.readAttributes(self, PosixFileAttributes.class);
            final FileChannel ch = FileChannel.open(self, StandardOpenOption.READ);
            return new RegularFile(path, ch, a.owner().getName(), a.group().getName(), type & 07777,
                ((Number) Files.getAttribute(self, "unix:dev")).longValue(),
                ((Number) Files.getAttribute(self, "unix:ino")).longValue());
        } finally {
            Native.close(fd);
        }
    }

    /** @return the mode of a regular file; else throws the problem in words */
    private static int check(final Path p) throws IOException {
        final int mode;
        try {
            mode = ((Number) Files.getAttribute(p, "unix:mode")).intValue();
        } catch (final IOException e) {
            throw new IOException(Problems.words(e), e);
        }
        if ((mode & S_IFMT) != S_IFREG) {
            throw new IOException(TYPES.getOrDefault(mode & S_IFMT, "not a regular file"));
        }
        return mode;
    }

    /** {@return the mode as {@code ls} shows it, e.g. {@code rw-------}} */
    public String permissions() {
        final java.util.Set<PosixFilePermission> set = java.util.EnumSet.noneOf(PosixFilePermission.class);
        final PosixFilePermission[] all = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_READ};
        for (int bit = 0; bit < all.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                set.add(all[bit]);
            }
        }
        return PosixFilePermissions.toString(set);
    }

    /** {@return whether users other than the owner may write it: group- or world-writable} */
    public boolean writableByOthers() {
        return (mode & 0022) != 0;
    }

    /** {@return who besides the owner may write it, e.g. "its group and every user", or null} */
    public String otherWriters() {
        final boolean g = (mode & 0020) != 0;
        final boolean o = (mode & 0002) != 0;
        return g && o ? "group " + group + " and every user" : g ? "group " + group : o ? "every user" : null;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    /** {@code open(2)} and {@code close(2)} through the FFM API, with errno. */
    private static final class Native {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
        private static final VarHandle ERRNO = CAPTURE.varHandle(
            java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
        private static final MethodHandle OPEN = LINKER.downcallHandle(
            LINKER.defaultLookup().find("open").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
        private static final MethodHandle CLOSE = LINKER.downcallHandle(
            LINKER.defaultLookup().find("close").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

        static int open(final String path, final int flags) throws IOException {
            try (Arena a = Arena.ofConfined()) {
                final MemorySegment state = a.allocate(CAPTURE);
                final int fd = (int) OPEN.invokeExact(state, a.allocateFrom(path), flags, 0);
                if (fd < 0) {
                    throw new IOException(Problems.errno((int) ERRNO.get(state, 0L)));
                }
                return fd;
            } catch (final IOException | RuntimeException | Error e) {
                throw e;
            } catch (final Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        static void close(final int fd) {
            try {
                final int r = (int) CLOSE.invokeExact(fd);
                assert r == 0 || r == -1;
            } catch (final Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }
}
