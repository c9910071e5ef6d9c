package org.pthread4j.internal;

import org.pthread4j.futex.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Opening the files of shared objects (sync files, named semaphores) so that nobody else decides
 * what they are: the one place that opens them, for every caller in the library.
 *
 * <ul>
 * <li><b>No link is followed</b> ({@code O_NOFOLLOW}, as musl's and glibc's {@code sem_open}
 *     and {@code shm_open}): a symbolic link at the path is refused with ELOOP before a byte of
 *     its target is read.</li>
 * <li><b>The umask applies</b>: a file is created by {@code open(2)} with the requested mode,
 *     which the kernel filters by the umask, as glibc's {@code sem_open} does for exactly that
 *     reason; the mode is never set afterwards.</li>
 * <li><b>Nobody else can write the words</b>, unless the caller says it accepts that: a file
 *     owned by another user, or writable by its group or by others, is refused. The check is
 *     made on the open file descriptor ({@code fstat}), so the file checked is the file used.</li>
 * </ul>
 *
 * <p>The file is opened with raw system calls ({@code openat}, {@code fstat}), because a
 * {@link FileChannel} shows neither its descriptor nor its owner; the channel handed back is
 * opened through {@code /proc/self/fd/N}, which names exactly the checked file, and the raw
 * descriptor is closed.
 */
public final class SharedFiles {
    /**
     * What {@code fstat} said about an open file.
     *
     * @param dev  the device it lives on
     * @param ino  its inode: with {@code dev}, its identity
     * @param mode {@code st_mode}: type and permission bits
     * @param uid  its owner
     * @param gid  its group
     * @param size its length in bytes
     */
    public record Stat(long dev, long ino, int mode, int uid, int gid, long size) {
        /** {@return the permission bits, as {@code ls -l} shows them in octal} */
        public int permissions() {
            return mode & 07777;
        }
    }

    /**
     * An opened file.
     *
     * @param channel the channel, read and write
     * @param stat    the file as it was checked
     */
    public record Opened(FileChannel channel, Stat stat) {
    }

    private static final boolean X86 = isX86();
    private static final long SYS_OPENAT = X86 ? 257 : 56;
    private static final long SYS_FSTAT = X86 ? 5 : 80;
    private static final long SYS_CLOSE = X86 ? 3 : 57;
    private static final long SYS_GETEUID = X86 ? 107 : 175;
    private static final long AT_FDCWD = -100;
    private static final int O_RDWR = 02;
    private static final int O_CREAT = 0100;
    private static final int O_EXCL = 0200;
    private static final int O_NONBLOCK = 04000;
    private static final int O_NOFOLLOW = X86 ? 0400000 : 0100000;
    private static final int O_CLOEXEC = 02000000;
    /** musl's flags for a named semaphore ({@code sem_open.c}); O_NONBLOCK so a FIFO never blocks the open. */
    private static final int OPEN_FLAGS = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    /** Group and others write bits. */
    private static final int WRITE_BY_OTHERS = 0022;

    /** {@code struct stat} on x86_64 and on aarch64 (asm-generic): the fields read here. */
    private static final long STAT_SIZE = 256;
    private static final long ST_DEV = 0;
    private static final long ST_INO = 8;
    private static final long ST_MODE = X86 ? 24 : 16;
    private static final long ST_UID = X86 ? 28 : 24;
    private static final long ST_GID = X86 ? 32 : 28;
    private static final long ST_SIZE = 48;

    private SharedFiles() {
    }

    private static boolean isX86() {
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return arch.equals("amd64") || arch.equals("x86_64");
    }

    /**
     * Opens an existing file for reading and writing, without following a link, and checks it.
     *
     * @param path        the file
     * @param trustOthers whether a file another user owns, or that others may write, is accepted
     * @param option      the name of the option that sets {@code trustOthers}, for messages
     * @return the open file
     * @throws NoSuchFileException  when it does not exist (ENOENT)
     * @throws AccessDeniedException when the caller may not open it (EACCES), or, unless
     *                              {@code trustOthers}, it is another user's or writable by others
     * @throws FileSystemException  when it is a symbolic link (ELOOP) or not a regular file
     * @throws IOException          when it cannot be opened otherwise
     */
    public static Opened open(final Path path, final boolean trustOthers, final String option) throws IOException {
        return openChecked(path, OPEN_FLAGS, 0, trustOthers, option);
    }

    /**
     * Creates a file exclusively ({@code O_CREAT | O_EXCL}, which never follows a link) with the
     * given mode, which the kernel filters by the umask, and checks the result as
     * {@link #open}. When the created file fails the check it is removed again.
     *
     * @param path        the file, which must not exist
     * @param mode        permission bits before the umask
     * @param trustOthers whether a mode that lets others write is accepted
     * @param option      the name of the option that sets {@code trustOthers}, for messages
     * @return the open file
     * @throws FileAlreadyExistsException when the path exists, a link or a dangling link included
     * @throws AccessDeniedException      as {@link #open}
     * @throws IOException                when it cannot be created
     */
    public static Opened create(final Path path, final int mode, final boolean trustOthers, final String option)
            throws IOException {
        final int effective = mode & ~umask();
        if (!trustOthers && (effective & WRITE_BY_OTHERS) != 0) {
            throw writableByOthers(path, effective, "would be created with", option);
        }
        final Raw raw = openRaw(path, OPEN_FLAGS | O_CREAT | O_EXCL, mode & 07777);
        try {
            check(path, raw.stat, trustOthers, option);
        } catch (final IOException e) {
            close(raw.fd);
            Files.deleteIfExists(path); // made by the O_EXCL open above; a default ACL widened its mode
            throw e;
        }
        return channel(raw);
    }

    /**
     * {@return the calling process's umask, read from {@code /proc/self/status} without changing
     *     it (Linux 4.7 and later); {@code 022} when it cannot be read}
     */
    public static int umask() {
        try {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("Umask:")) {
                    return Integer.parseInt(line.substring(6).trim(), 8);
                }
            }
        } catch (final IOException | RuntimeException e) {
            // fall through to the common default
        }
        return 022;
    }

    /** {@return the calling process's effective user id} */
    public static int euid() {
        return (int) Syscall.call(SYS_GETEUID, 0, 0, 0, 0, 0, 0);
    }

    private static Opened openChecked(final Path path, final int flags, final int mode, final boolean trustOthers,
                                      final String option) throws IOException {
        final Raw raw = openRaw(path, flags, mode);
        try {
            check(path, raw.stat, trustOthers, option);
        } catch (final IOException e) {
            close(raw.fd);
            throw e;
        }
        return channel(raw);
    }

    /** A raw descriptor and what {@code fstat} said about it. */
    private record Raw(int fd, Stat stat) {
    }

    private static Raw openRaw(final Path path, final int flags, final int mode) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment name = arena.allocateFrom(path.toString(), StandardCharsets.UTF_8);
            final long r = Syscall.call(SYS_OPENAT, AT_FDCWD, name.address(), flags, mode, 0, 0);
            if (r < 0) {
                throw failure(path, (int) -r);
            }
            final int fd = (int) r;
            final MemorySegment buf = arena.allocate(STAT_SIZE, 8);
            final long s = Syscall.call(SYS_FSTAT, fd, buf.address(), 0, 0, 0, 0);
            if (s < 0) {
                close(fd);
                throw failure(path, (int) -s);
            }
            return new Raw(fd, new Stat(buf.get(ValueLayout.JAVA_LONG, ST_DEV), buf.get(ValueLayout.JAVA_LONG, ST_INO),
                buf.get(ValueLayout.JAVA_INT, ST_MODE), buf.get(ValueLayout.JAVA_INT, ST_UID),
                buf.get(ValueLayout.JAVA_INT, ST_GID), buf.get(ValueLayout.JAVA_LONG, ST_SIZE)));
        }
    }

    /** The channel over the checked descriptor: {@code /proc/self/fd/N} names exactly that file. */
    private static Opened channel(final Raw raw) throws IOException {
        try {
            return new Opened(FileChannel.open(Path.of("/proc/self/fd/" + raw.fd), StandardOpenOption.READ,
                StandardOpenOption.WRITE), raw.stat);
        } finally {
            close(raw.fd);
        }
    }

    private static void check(final Path path, final Stat st, final boolean trustOthers, final String option)
            throws IOException {
        if ((st.mode() & S_IFMT) != S_IFREG) {
            throw new FileSystemException(path.toString(), null, "not a regular file (st_mode "
                + Integer.toOctalString(st.mode()) + ")");
        }
        if (trustOthers) {
            return;
        }
        final int euid = euid();
        if (st.uid() != euid) {
            throw new AccessDeniedException(path.toString(), null, "owned by uid " + st.uid() + ", not by this process's"
                + " uid " + euid + ": its owner can rewrite its lock words and change its mode at any time; refused"
                + " unless opened with " + option);
        }
        if ((st.permissions() & WRITE_BY_OTHERS) != 0) {
            throw writableByOthers(path, st.permissions(), "has", option);
        }
    }

    private static AccessDeniedException writableByOthers(final Path path, final int perms, final String verb,
                                                          final String option) {
        final boolean group = (perms & 0020) != 0;
        final boolean others = (perms & 0002) != 0;
        final String who = group && others ? "its group and every other user" : group ? "its group" : "every other user";
        return new AccessDeniedException(path.toString(), null, verb + " mode 0" + Integer.toOctalString(perms)
            + ", which lets " + who + " rewrite its lock words; refused unless opened with " + option);
    }

    private static void close(final int fd) {
        Syscall.call(SYS_CLOSE, fd, 0, 0, 0, 0, 0);
    }

    private static IOException failure(final Path path, final int errno) {
        final String p = path.toString();
        return switch (errno) {
            case Errno.ENOENT -> new NoSuchFileException(p, null, "no such file");
            case Errno.EEXIST -> new FileAlreadyExistsException(p, null, "a file with this name exists (EEXIST)");
            case Errno.EACCES, Errno.EPERM -> new AccessDeniedException(p, null, "permission denied ("
                + Errno.name(errno) + ")");
            case Errno.ELOOP -> new FileSystemException(p, null, "is a symbolic link; shared files are opened"
                + " without following links (O_NOFOLLOW), so it is refused (ELOOP)");
            case Errno.EISDIR -> new FileSystemException(p, null, "is a directory (EISDIR)");
            default -> new FileSystemException(p, null, "cannot open: " + Errno.name(errno));
        };
    }
}
