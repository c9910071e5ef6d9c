package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.internal.SharedFiles;
import org.pthread4j.memory.Memory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The file side of named semaphores, after musl's {@code src/thread/sem_open.c} and
 * {@code src/mman/shm_open.c} ({@code __shm_mapname}): name checks, exclusive creation by
 * temp file and hard link, and the process-wide table that makes a second open of the same
 * file return the same mapping.
 *
 * <p>Files are opened and created by {@link SharedFiles}: no link is followed, the umask
 * filters a new file's mode, and a file other users can write is refused unless the caller
 * accepts it ({@link SharedFileOption}). The table is keyed by the file's identity (device and
 * inode, from {@code fstat} of the opened descriptor), as musl keys its table by inode. musl's table has
 * {@code SEM_NSEMS_MAX} (256) slots; this one has no slot limit and answers EMFILE only when
 * the total reference count would overflow, musl's other EMFILE case.
 */
final class NamedSems {
    /** Where named semaphores live: a name maps to {@code /dev/shm/NAME}, as musl's {@code __shm_mapname}. */
    static final Path DIR = Path.of("/dev/shm");
    /** {@code NAME_MAX}: the longest name, in UTF-8 bytes. */
    static final int NAME_MAX = 255;

    /** The option that accepts files others can write, as messages name it. */
    private static final String OPTION = "SharedFileOption." + SharedFileOption.ALLOW_WRITES_BY_OTHER_USERS;

    /** One mapped file: the semaphore every opener in this JVM gets, and its reference count. */
    private static final class Entry {
        final Sem sem;
        int refs;

        Entry(final Sem sem) {
            this.sem = sem;
        }
    }

    private static final Object LOCK = new Object();
    /** Guarded by {@link #LOCK}. */
    private static final Map<Object, Entry> TABLE = new HashMap<>();
    /** Sum of all reference counts; guarded by {@link #LOCK}. */
    private static long totalRefs;

    private NamedSems() {
    }

    /**
     * musl's {@code __shm_mapname}: drops leading slashes and checks the rest.
     *
     * @param name the name as given
     * @return the name without leading slashes
     * @throws ErrnoException EINVAL (empty, '/', NUL, "." or ".."), ENAMETOOLONG
     */
    static String checkName(final String name) throws ErrnoException {
        // src/mman/shm_open.c: __shm_mapname
        if (name == null) {
            throw new ErrnoException(Errno.EINVAL, "null semaphore name");
        }
        int i = 0;
        while (i < name.length() && name.charAt(i) == '/') {
            i++;
        }
        final String n = name.substring(i);
        if (n.isEmpty() || n.indexOf('/') >= 0 || n.indexOf('\0') >= 0 || n.equals(".") || n.equals("..")) {
            throw new ErrnoException(Errno.EINVAL, "bad semaphore name '" + name + "'");
        }
        if (n.getBytes(StandardCharsets.UTF_8).length > NAME_MAX) {
            throw new ErrnoException(Errno.ENAMETOOLONG, "semaphore name longer than " + NAME_MAX + " bytes");
        }
        return n;
    }

    static Path path(final String checkedName) {
        return DIR.resolve(checkedName);
    }

    static Sem open(final String name, final int oflag, final int mode, final int value,
                    final SharedFileOption... options) throws ErrnoException {
        // src/thread/sem_open.c: sem_open
        final boolean trust = List.of(options).contains(SharedFileOption.ALLOW_WRITES_BY_OTHER_USERS);
        final String n = checkName(name);
        final Path path = path(n);
        synchronized (LOCK) {
            if (totalRefs >= Integer.MAX_VALUE) {
                throw new ErrnoException(Errno.EMFILE, "too many references to named semaphores");
            }
        }
        final int flags = oflag & (OpenFlags.O_CREAT | OpenFlags.O_EXCL);
        final boolean exclusive = flags == (OpenFlags.O_CREAT | OpenFlags.O_EXCL);
        if (exclusive && Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new ErrnoException(Errno.EEXIST, path + " exists");
        }
        Memory map = null;
        Object key = null;
        ByteBuffer image = null;
        for (;;) {
            if (!exclusive) {
                final Opened o = openExisting(path, trust);
                if (o != null) {
                    map = o.map;
                    key = o.key;
                    break;
                }
            }
            if ((flags & OpenFlags.O_CREAT) == 0) {
                throw new ErrnoException(Errno.ENOENT, path + " does not exist");
            }
            if (image == null) {
                if (value < 0) {
                    throw new ErrnoException(Errno.EINVAL, "value " + Integer.toUnsignedString(value)
                        + " > SEM_VALUE_MAX");
                }
                // sem_init(&newsem, 1, value): value, no waiters, shared (flag 0).
                image = ByteBuffer.allocate(SemLayout.SIZE).order(ByteOrder.nativeOrder());
                image.putInt(SemLayout.VALUE, value).putInt(SemLayout.WAITERS, 0).putInt(SemLayout.FLAGS, 0);
            }
            final Path tmp = DIR.resolve("tmp-" + System.nanoTime());
            final SharedFiles.Opened created;
            try {
                created = SharedFiles.create(tmp, mode & 0666, trust, OPTION);
            } catch (final FileAlreadyExistsException e) {
                continue;
            } catch (final IOException e) {
                throw failure(e, "cannot create " + tmp);
            }
            try (FileChannel ch = created.channel()) {
                image.clear();
                while (image.hasRemaining()) {
                    ch.write(image);
                }
                key = new FileId(created.stat().dev(), created.stat().ino());
                map = Memory.map(ch, path.toString(), SemLayout.SIZE);
            } catch (final IOException e) {
                deleteQuietly(tmp);
                throw failure(e, "cannot write " + tmp);
            }
            int e = 0;
            IOException linkFailure = null;
            try {
                Files.createLink(path, tmp);
            } catch (final FileAlreadyExistsException x) {
                e = Errno.EEXIST;
            } catch (final IOException x) {
                linkFailure = x;
                e = errno(x);
            }
            deleteQuietly(tmp);
            if (e == 0) {
                break;
            }
            map.close();
            map = null;
            if (e != Errno.EEXIST || exclusive) {
                throw e == Errno.EEXIST ? new ErrnoException(e, path + " exists")
                    : failure(linkFailure, "cannot link " + path);
            }
        }
        synchronized (LOCK) {
            Entry entry = TABLE.get(key);
            if (entry != null) {
                map.close();
            } else {
                final Block block = map.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
                entry = new Entry(new Sem(block, Futexes.shared(), false, map, key, n));
                TABLE.put(key, entry);
            }
            entry.refs++;
            totalRefs++;
            return entry.sem;
        }
    }

    /** A successfully opened existing file. */
    private record Opened(Memory map, Object key) {
    }

    /** A file's identity, as {@code fstat} gives it: musl keys its table by inode. */
    private record FileId(long dev, long ino) {
    }

    /**
     * Opens and maps an existing file without following a link, checks who may write it, and
     * checks it holds a process-shared semaphore.
     *
     * @return the mapping, or null when the file does not exist
     */
    private static Opened openExisting(final Path path, final boolean trust) throws ErrnoException {
        final SharedFiles.Opened o;
        try {
            o = SharedFiles.open(path, trust, OPTION);
        } catch (final NoSuchFileException e) {
            return null;
        } catch (final IOException e) {
            throw failure(e, "cannot open " + path);
        }
        final Memory map;
        try (FileChannel ch = o.channel()) {
            if (o.stat().size() < SemLayout.SIZE) {
                throw new ErrnoException(Errno.EINVAL, path + " is " + o.stat().size()
                    + " bytes, too short for a semaphore");
            }
            map = Memory.map(ch, path.toString(), SemLayout.SIZE);
        } catch (final IOException e) {
            throw failure(e, "cannot open " + path);
        }
        final Block block = map.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
        try {
            SemLayout.checkInitialized(block);
            if (block.get(SemLayout.FLAGS) != 0) {
                throw new IllegalArgumentException("sem_t: private flag set in a named semaphore");
            }
        } catch (final IllegalArgumentException e) {
            map.close();
            throw new ErrnoException(Errno.EINVAL, path + " holds no semaphore: " + e.getMessage(), e);
        }
        return new Opened(map, new FileId(o.stat().dev(), o.stat().ino()));
    }

    static void close(final Sem sem) throws ErrnoException {
        // src/thread/sem_open.c: sem_close
        synchronized (LOCK) {
            final Entry entry = TABLE.get(sem.fileKey());
            if (entry == null || entry.sem != sem) {
                throw new ErrnoException(Errno.EINVAL, sem + " is not open (closed as often as opened)");
            }
            totalRefs--;
            if (--entry.refs > 0) {
                return;
            }
            TABLE.remove(sem.fileKey());
        }
        sem.mapping().close();
    }

    static void unlink(final String name) throws ErrnoException {
        // src/thread/sem_unlink.c: shm_unlink (src/mman/shm_open.c)
        final Path path = path(checkName(name));
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new ErrnoException(Errno.EISDIR, path + " is a directory");
        }
        try {
            Files.delete(path);
        } catch (final IOException e) {
            throw failure(e, "cannot unlink " + path);
        }
    }

    private static void deleteQuietly(final Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (final IOException ignored) {
            // a leftover temp file is harmless, as in musl
        }
    }

    /** The errno a failed file operation stands for. */
    static int errno(final IOException e) {
        if (e instanceof NoSuchFileException) {
            return Errno.ENOENT;
        }
        if (e instanceof FileAlreadyExistsException) {
            return Errno.EEXIST;
        }
        if (e instanceof AccessDeniedException) {
            return Errno.EACCES;
        }
        final String reason = e instanceof FileSystemException fse ? fse.getReason() : e.getMessage();
        if (reason != null) {
            if (reason.contains("symbolic link")) {
                return Errno.ELOOP;
            }
            if (reason.contains("Is a directory")) {
                return Errno.EISDIR;
            }
        }
        return Errno.EIO;
    }

    private static ErrnoException failure(final IOException e, final String what) {
        return new ErrnoException(errno(e), what + ": " + e, e);
    }
}
