package org.pthread4j.ipc;

import org.pthread4j.Barrier;
import org.pthread4j.BarrierAttr;
import org.pthread4j.BarrierLayout;
import org.pthread4j.Cond;
import org.pthread4j.CondAttr;
import org.pthread4j.CondLayout;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.Once;
import org.pthread4j.OnceLayout;
import org.pthread4j.RwLock;
import org.pthread4j.RwLockAttr;
import org.pthread4j.RwLockLayout;
import org.pthread4j.Sem;
import org.pthread4j.SemLayout;
import org.pthread4j.SharedFileOption;
import org.pthread4j.internal.SharedFiles;
import org.pthread4j.futex.Timespec;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.ipc.SyncFileFormatException.Problem;
import org.pthread4j.juc.OwnerDiedException;
import org.pthread4j.juc.PthreadCondition;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.juc.PthreadReadWriteLock;
import org.pthread4j.juc.PthreadSemaphore;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

import static org.pthread4j.ipc.SyncFileLayout.*;

/**
 * A file of named, process-shared synchronization objects: two JVMs, or a JVM and a C program
 * linked against musl, that map the same file block on the same mutexes, condition variables,
 * rwlocks and semaphores. The byte layout is described in {@link SyncFileLayout}.
 *
 * <h2>Creating and opening</h2>
 * {@link #create} is exclusive and atomic, as musl's {@code sem_open} is: the header is written
 * to a temporary file in the same directory, which is then hard-linked to the final name. A
 * process that opens the name therefore sees either no file or a complete header, never half
 * of one; a second create of the same name fails with {@link FileAlreadyExistsException}. The
 * file is {@code 0600} unless another mode is given, filtered by the umask as {@code open(2)}
 * filters it. {@link #open} validates everything before the first access: magic,
 * version, sizes against the file's length, and every published directory entry's name, type,
 * bounds, alignment and overlap; a file that fails is refused with a
 * {@link SyncFileFormatException} saying what is wrong. {@code /dev/shm} ({@link #shmPath}) is
 * the usual place, as for POSIX shared memory; any path on a file system that supports hard
 * links works.
 *
 * <h2>Who may use the file</h2>
 * Anyone who can write a sync file can rewrite its lock words: store an owner that never
 * unlocks, make a robust mutex {@code ENOTRECOVERABLE} for ever, forge a directory entry. So
 * every open and create keeps other users out, in each case as far as musl and glibc go and in
 * one case further:
 * <ul>
 * <li><b>No link is followed.</b> {@link #open} and {@link #openOrCreate} refuse a symbolic
 *     link at the path with a {@link FileSystemException} (ELOOP) before reading a byte of its
 *     target, as musl's and glibc's {@code shm_open} and {@code sem_open} do
 *     ({@code O_NOFOLLOW}); {@link #create} never follows one ({@code O_CREAT | O_EXCL}, then
 *     {@code link(2)}, which refuses an existing name, a dangling link included). So a link
 *     planted by another user can neither make this process write a slot into a file the
 *     planter chose, nor make an error message print that file's bytes.</li>
 * <li><b>The umask applies.</b> A new file gets the requested mode filtered by the process's
 *     umask, because it is created by {@code open(2)} with that mode, as glibc's
 *     {@code sem_open} creates its file (musl's too, after masking the mode with 0666); the
 *     mode is never set afterwards.</li>
 * <li><b>Nobody else may write it, unless the caller says so.</b> A file owned by another user
 *     (who can change its mode at any time), or writable by its group or by every user, is
 *     refused with an {@link AccessDeniedException} whose message says which, unless
 *     {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS} is given; so is a create whose mode,
 *     after the umask, would let them write it. The owner and mode are read from the open
 *     descriptor ({@code fstat}), so the file checked is the file mapped. musl and glibc check
 *     neither owner nor mode: a {@code sem_open} of a name another user created first opens
 *     that user's semaphore. This is where the library goes further.</li>
 * </ul>
 *
 * <h2>Get-or-create of a named slot, across processes</h2>
 * Entries are claimed strictly in index order by a CAS of their 64-bit state-and-stamp field
 * from FREE to CREATING (the claimer's pid, and the low bits of its start time as the stamp).
 * A process looking for a name walks the entries in order: a READY entry with the name is the
 * answer; a READY entry with another name is passed; the first FREE entry is claimed, filled
 * in, its block zeroed and its primitive initialized, and only then is its state set to READY
 * (the publication) and its waiters woken. A process that meets a CREATING entry never passes
 * it: it sleeps on the state word (a shared futex) until the entry is published, because the
 * entry may turn out to hold the very name it wants. So at most one entry is being created at a
 * time, two processes racing for one name get the same entry, and a block's offset follows
 * from the entries before it (the end of the last published block, rounded up to a cache
 * line) without any allocator state.
 *
 * <p><b>A creator that dies mid-creation cannot wedge the file.</b> A waiter wakes every 10 ms
 * to check its claimer in {@code /proc}: if the process is gone, is a zombie, or has a start
 * stamp other than the claim's (its pid was reused), the waiter takes the claim over with a
 * CAS from the dead claim to its own and creates the entry afresh; the dead process's caller
 * never received the slot, so nobody uses what it left half-written. A claimer that is alive
 * but takes longer than the {@linkplain #creationTimeout(Duration) creation timeout} (10 s by
 * default; a stopped process, say) makes the waiter fail with {@link IllegalStateException}
 * rather than hang. A creation that fails in Java (an exception from the initializer, or no
 * room left) resets its entry to FREE and wakes the waiters. The directory needs no lock
 * word and no lock is ever held across a process's death.
 *
 * <h2>Primitives</h2>
 * {@link #mutex}, {@link #cond}, {@link #rwlock}, {@link #sem}, {@link #barrier} and
 * {@link #once} get or create a named primitive, initialized as by its {@code *_init} when new
 * and attached (validated, nothing written) when it exists. Every one is process-shared,
 * whatever its attributes say, and has musl's x86_64 byte layout: a C program linked against
 * musl finds or creates the same slots with the library in {@code src/main/c}
 * ({@code pthread4j_sync.h}: {@code p4j_open}, {@code p4j_mutex}, {@code p4j_cond} ...), which
 * follows this protocol, and calls {@code pthread_mutex_lock}, {@code pthread_cond_wait} or
 * {@code sem_wait} on them. {@link #slot} hands out raw blocks for the caller's
 * own data (an Agrona ring buffer), {@link #doorbell} a {@link FutexDoorbell} for a
 * {@link FutexIdleStrategy}. A robust mutex whose holder is killed, even by {@code kill -9},
 * is marked by the kernel and the next locker gets {@code EOWNERDEAD} (see {@link Mutex}).
 *
 * <p>{@link #lock}, {@link #readWriteLock}, {@link #semaphore} and {@link #condition} give the
 * same slots {@code java.util.concurrent} faces: a robust, reentrant, process-shared
 * {@link PthreadLock} whose owner's death, in any process, surfaces as
 * {@link OwnerDiedException}, and conditions that live in the file (a process-shared lock's
 * {@link PthreadLock#newCondition()} refuses, since a condition in one process's memory could
 * never be signalled by another). {@link #mutex(String)} and {@link #cond(String)} attach to
 * what another process made whatever its attributes; a create with other attributes
 * ({@link #mutex(String, MutexAttr)}) is refused.
 *
 * <pre>{@code
 * try (SyncFile file = SyncFile.openOrCreate(SyncFile.shmPath("orders"), 64)) {
 *     PthreadLock lock = file.lock("orders.lock");            // robust, reentrant, process-shared
 *     Condition nonEmpty = file.condition("orders.nonempty", lock);
 *     try {
 *         lock.lock();
 *     } catch (OwnerDiedException e) {                         // a process died holding it
 *         repair();                                            // the lock is held here
 *         e.markConsistent();
 *     }
 *     try {
 *         // ... while (empty) nonEmpty.await(); ...
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 *
 * <h2>Closing</h2>
 * {@link #close()} unmaps the file. Every block from it then throws
 * {@link IllegalStateException} on its next access; nothing ever touches the unmapped memory.
 * A thread of this process asleep in a primitive of the file is woken (through a second, short
 * mapping of the same file, whose shared futex keys are the same), re-reads its word and gets
 * that exception; sleepers in other processes may see one spurious wakeup, which every wait
 * tolerates. Words of raw slots larger than {@value #CLOSE_WAKE_RAW_LIMIT} bytes are not woken.
 * The file itself stays, until {@link #unlink}. A close is refused while a thread of this
 * process holds one of the file's owner-tracked mutexes, which its kernel robust list points
 * into.
 *
 * <h2>Truncation</h2>
 * A sync file must keep its length while it is mapped. When a process that may write it
 * shortens it ({@code ftruncate}, an {@code O_TRUNC} open, {@code > file} in a shell), the
 * kernel drops the pages past the new end from every mapping, and an access to one of them
 * raises {@code SIGBUS}, which kills a C program. In this JVM, {@link #slot}, the named
 * getters, {@link #slots} and {@link #find} check the file's length first and throw
 * {@link UncheckedIOException} wrapping a {@link SyncFileFormatException} whose problem is
 * {@code TRUNCATED}; {@link #close()} still unmaps (without mapping past the end again, which
 * would grow the file). The primitives' operations on their words make no such check (it would
 * cost a system call each): HotSpot turns the fault of a read, a write, or an atomic the JIT
 * compiled into {@link InternalError} ("a fault occurred in an unsafe memory access operation");
 * a compare-and-exchange run by the interpreter is not guarded in JDK 25
 * ({@code Unsafe_CompareAndExchangeInt}) and the JVM dies of the {@code SIGBUS}. The checks of
 * who may open the file keep other users from truncating it; its own user must not.
 *
 * <p>A SyncFile is thread-safe.
 */
public final class SyncFile implements AutoCloseable {
    /** Where named sync files live by default, as POSIX shared memory does. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/dev/shm");
    /** How long a slot lookup waits for a live process that is creating an entry. */
    public static final Duration DEFAULT_CREATION_TIMEOUT = Duration.ofSeconds(10);
    /** The mode of a created file unless another is given: {@code rw-------}. */
    public static final Set<PosixFilePermission> DEFAULT_MODE = PosixFilePermissions.fromString("rw-------");
    /** Raw slots up to this size have all their words woken by {@link #close()}. */
    public static final int CLOSE_WAKE_RAW_LIMIT = 256;

    private static final long CLAIMER_CHECK_NANOS = 10_000_000L;
    /** The option that accepts files others can write, as messages name it. */
    private static final String OPTION = "SharedFileOption." + SharedFileOption.ALLOW_WRITES_BY_OTHER_USERS;

    private final Path path;
    private final FileChannel channel;
    private final Memory memory;
    private final MemorySegment seg;
    private final Directory dir;
    private final Futex futex;
    private final long claim;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Held shared by a creation in progress, exclusively by close: a claim is never left behind. */
    private final ReentrantReadWriteLock creating = new ReentrantReadWriteLock();
    private volatile long creationTimeoutNanos = DEFAULT_CREATION_TIMEOUT.toNanos();

    private SyncFile(final Path path, final FileChannel channel, final Memory memory, final Directory dir) {
        this.path = path;
        this.channel = channel;
        this.memory = memory;
        this.seg = memory.segment();
        this.dir = dir;
        this.futex = Futexes.shared();
        this.claim = ((long) Liveness.selfStamp() << 32) | (creating(Liveness.selfPid()) & 0xFFFF_FFFFL);
    }

    /**
     * The path of a named file in {@link #DEFAULT_DIRECTORY}, by musl's rules for shared
     * memory names ({@code __shm_mapname}): one leading {@code /} is dropped; the rest must be
     * non-empty, hold no {@code /}, not be {@code .} or {@code ..}, and be at most 255 bytes.
     *
     * @param name the name, such as {@code "orders"} or {@code "/orders"}
     * @return {@code /dev/shm/<name>}
     * @throws IllegalArgumentException for a name musl refuses
     */
    public static Path shmPath(final String name) {
        Objects.requireNonNull(name, "name");
        final String n = name.startsWith("/") ? name.substring(1) : name;
        if (n.isEmpty() || n.contains("/") || n.equals(".") || n.equals("..") || n.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("invalid shared memory name '" + name + "' (EINVAL)");
        }
        if (n.getBytes(StandardCharsets.UTF_8).length > 255) {
            throw new IllegalArgumentException("shared memory name is longer than 255 bytes (ENAMETOOLONG)");
        }
        return DEFAULT_DIRECTORY.resolve(n);
    }

    /**
     * Creates a file with room for {@code capacity} slots of up to
     * {@value SyncFileLayout#DEFAULT_BYTES_PER_SLOT} bytes (every musl type fits), mode 0600
     * (before the umask).
     *
     * @param path     the file to create; it must not exist
     * @param capacity directory entries, 1 to {@value SyncFileLayout#MAX_CAPACITY}
     * @param options  {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS} or none
     * @return the open file
     * @throws FileAlreadyExistsException when the path exists (EEXIST)
     * @throws IOException                when the file cannot be created
     */
    public static SyncFile create(final Path path, final int capacity, final SharedFileOption... options)
            throws IOException {
        return create(path, capacity, (long) capacity * DEFAULT_BYTES_PER_SLOT, DEFAULT_MODE, options);
    }

    /**
     * Creates a file with room for {@code capacity} primitive slots and the given mode.
     *
     * @param path     the file to create; it must not exist
     * @param capacity directory entries
     * @param mode     the file's permissions, filtered by the umask as {@code open(2)} filters them
     * @param options  {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS} or none
     * @return the open file
     * @throws FileAlreadyExistsException when the path exists (EEXIST)
     * @throws AccessDeniedException      when the mode, after the umask, lets the group or others
     *                                    write the file and the option is not given
     * @throws IOException                when the file cannot be created
     */
    public static SyncFile create(final Path path, final int capacity, final Set<PosixFilePermission> mode,
                                  final SharedFileOption... options) throws IOException {
        return create(path, capacity, (long) capacity * DEFAULT_BYTES_PER_SLOT, mode, options);
    }

    /**
     * Creates a file: the header is written to a temporary file in the same directory, created
     * exclusively with the mode (which the umask filters, as {@code open(2)} does), and then
     * hard-linked to {@code path} (atomic and exclusive) and unlinked.
     *
     * @param path      the file to create; it must not exist
     * @param capacity  directory entries, 1 to {@value SyncFileLayout#MAX_CAPACITY}
     * @param dataBytes bytes for the slots' blocks (each block starts on a 64-byte boundary)
     * @param mode      the file's permissions, filtered by the umask
     * @param options   {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS} or none
     * @return the open file
     * @throws FileAlreadyExistsException when the path exists (EEXIST), a link or a dangling link
     *                                    included
     * @throws AccessDeniedException      when the mode, after the umask, lets the group or others
     *                                    write the file and the option is not given (nothing is
     *                                    created)
     * @throws IllegalArgumentException   for a capacity or size out of range
     * @throws IOException                when the file cannot be created
     * @throws UnsupportedOperationException when this JVM does not run on Linux x86_64 or aarch64
     */
    public static SyncFile create(final Path path, final int capacity, final long dataBytes,
                                  final Set<PosixFilePermission> mode, final SharedFileOption... options)
            throws IOException {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(mode, "mode");
        Futexes.shared(); // a platform without the kernel backend is refused before a file is made
        final boolean trust = trustsOthers(options);
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be in [1, " + MAX_CAPACITY + "]: " + capacity);
        }
        final long total = SyncFileLayout.dataStart(capacity) + dataBytes;
        if (dataBytes < 0 || total > MAX_TOTAL_SIZE) {
            throw new IllegalArgumentException("data size must be in [0, " + (MAX_TOTAL_SIZE - SyncFileLayout.dataStart(capacity))
                + "]: " + dataBytes);
        }
        final Path abs = path.toAbsolutePath();
        if (Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileAlreadyExistsException(abs.toString(), null, "a file with this name exists (EEXIST)");
        }
        final Path parent = abs.getParent();
        FileChannel ch = null;
        Path tmp = null;
        for (int attempt = 0; ch == null; attempt++) {
            tmp = parent.resolve("." + abs.getFileName() + ".tmp-" + Liveness.selfPid() + "-" + System.nanoTime());
            try {
                ch = SharedFiles.create(tmp, bits(mode), trust, OPTION).channel();
            } catch (final FileAlreadyExistsException e) {
                if (attempt > 100) {
                    throw e;
                }
            }
        }
        boolean ok = false;
        try {
            final ByteBuffer h = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
            h.put(MAGIC_OFFSET, MAGIC);
            h.putInt(VERSION_OFFSET, VERSION);
            h.putInt(DATA_START_OFFSET, SyncFileLayout.dataStart(capacity));
            h.putLong(TOTAL_SIZE_OFFSET, total);
            h.putInt(CREATOR_PID_OFFSET, Liveness.selfPid());
            h.putInt(CAPACITY_OFFSET, capacity);
            h.putLong(CREATED_OFFSET, System.currentTimeMillis());
            h.putInt(ENTRY_SIZE_FIELD_OFFSET, ENTRY_SIZE);
            writeFully(ch, h, 0);
            writeFully(ch, ByteBuffer.allocate(1), total - 1);
            try {
                Files.createLink(abs, tmp);
            } catch (final FileAlreadyExistsException e) {
                throw new FileAlreadyExistsException(abs.toString(), null, "a file with this name exists (EEXIST)");
            }
            final SyncFile f = load(abs, ch);
            ok = true;
            return f;
        } finally {
            Files.deleteIfExists(tmp);
            if (!ok) {
                ch.close();
            }
        }
    }

    /**
     * Opens an existing file, validating it completely before any use. A symbolic link at the
     * path is refused (ELOOP) without reading its target, as musl's and glibc's
     * {@code shm_open} refuse it ({@code O_NOFOLLOW}); so is a file another user owns, or that
     * its group or others may write, unless {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS}
     * is given.
     *
     * @param path    the file
     * @param options {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS} or none
     * @return the open file
     * @throws NoSuchFileException     when it does not exist (ENOENT); the message is
     *                                 {@code PATH: no such file}
     * @throws FileSystemException     when it is a symbolic link (ELOOP) or not a regular file
     * @throws AccessDeniedException   when the caller may not open it (EACCES), or it is another
     *                                 user's or writable by others and the option is not given;
     *                                 the message says which
     * @throws SyncFileFormatException when it is empty, truncated, foreign, of a newer format
     *                                 version, or corrupt; the message says which and where
     * @throws IOException             when it cannot be opened or mapped
     */
    public static SyncFile open(final Path path, final SharedFileOption... options) throws IOException {
        final Path abs = path.toAbsolutePath();
        final FileChannel ch = SharedFiles.open(abs, trustsOthers(options), OPTION).channel();
        boolean ok = false;
        try {
            final SyncFile f = load(abs, ch);
            ok = true;
            return f;
        } finally {
            if (!ok) {
                ch.close();
            }
        }
    }

    /**
     * Opens the file, creating it (mode 0600 before the umask, {@code capacity} slots) when it
     * does not exist. When two processes race, one creates and the other opens the complete file.
     *
     * @param path     the file
     * @param capacity directory entries if it has to be created
     * @param options  {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS} or none
     * @return the open file
     * @throws IOException as {@link #open} and {@link #create}
     */
    public static SyncFile openOrCreate(final Path path, final int capacity, final SharedFileOption... options)
            throws IOException {
        return openOrCreate(path, capacity, (long) capacity * DEFAULT_BYTES_PER_SLOT, DEFAULT_MODE, options);
    }

    /**
     * Opens the file, creating it with these parameters when it does not exist (those of an
     * existing file are kept). When two processes race, one creates and the other opens the
     * complete file. A link at the path is refused, dangling or not.
     *
     * @param path      the file
     * @param capacity  directory entries if it has to be created
     * @param dataBytes bytes for slots' blocks if it has to be created
     * @param mode      permissions if it has to be created, filtered by the umask
     * @param options   {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS} or none
     * @return the open file
     * @throws IOException as {@link #open} and {@link #create}
     */
    public static SyncFile openOrCreate(final Path path, final int capacity, final long dataBytes,
                                        final Set<PosixFilePermission> mode, final SharedFileOption... options)
            throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return open(path, options);
            } catch (final NoSuchFileException e) {
                try {
                    return create(path, capacity, dataBytes, mode, options);
                } catch (final FileAlreadyExistsException raced) {
                    if (attempt > 100) {
                        throw raced;
                    }
                }
            }
        }
    }

    /**
     * Removes a file's name, as {@code shm_unlink}: a link at the path is removed, not its
     * target. Processes that have it open keep using it.
     *
     * @param path the file
     * @return whether it existed
     * @throws IOException when it cannot be removed
     */
    public static boolean unlink(final Path path) throws IOException {
        return Files.deleteIfExists(path);
    }

    private static boolean trustsOthers(final SharedFileOption... options) {
        return List.of(options).contains(SharedFileOption.ALLOW_WRITES_BY_OTHER_USERS);
    }

    /** {@return the mode bits of a permission set, as {@code open(2)} takes them} */
    private static int bits(final Set<PosixFilePermission> mode) {
        int bits = 0;
        for (final PosixFilePermission p : mode) {
            bits |= 0400 >> p.ordinal();
        }
        return bits;
    }

    private static SyncFile load(final Path path, final FileChannel ch) throws IOException {
        final long length = Directory.precheck(path, ch);
        final Memory mem = Memory.map(ch, path.toString(), length);
        try {
            final Directory d = Directory.load(path, mem.segment(), length);
            return new SyncFile(path, ch, mem, d);
        } catch (final IOException | RuntimeException e) {
            mem.close();
            throw e;
        }
    }

    private static void writeFully(final FileChannel ch, final ByteBuffer b, final long at) throws IOException {
        long pos = at;
        while (b.hasRemaining()) {
            pos += ch.write(b, pos);
        }
    }

    /**
     * The block of a raw slot, created zeroed when the name is new.
     *
     * @param name a slot name (1 to 31 of {@code A-Z a-z 0-9 _ . -})
     * @param type the slot's type
     * @param size its size: the musl type's for a primitive, at least 4 for {@link SlotType#RAW}
     * @return the block
     * @see #slot(String, SlotType, int, Consumer)
     */
    public Block slot(final String name, final SlotType type, final int size) {
        return slot(name, type, size, b -> { });
    }

    /**
     * Gets or creates a named slot, atomically across processes: every process that asks for a
     * name gets the same block. A new slot's block is zeroed and passed to {@code init} before
     * it becomes visible to any other lookup, here or in another process; the publication
     * happens-after {@code init} returns, and a lookup that finds the slot happens-after it.
     *
     * @param name a slot name (1 to 31 of {@code A-Z a-z 0-9 _ . -})
     * @param type the slot's type
     * @param size its size: the musl type's for a primitive, at least 4 for {@link SlotType#RAW}
     * @param init initializes a new slot's block (not called when the slot exists); an exception
     *             from it abandons the creation and is rethrown
     * @return the block
     * @throws IllegalArgumentException when the name, or the size for the type, is invalid
     * @throws IllegalStateException    when the slot exists with another type or size, when the
     *                                  directory or the data area is full, when a live process
     *                                  has been creating an entry for longer than the creation
     *                                  timeout, or when this file is closed
     * @throws UncheckedIOException     wrapping a {@link SyncFileFormatException} when another
     *                                  process published a corrupt entry
     */
    public Block slot(final String name, final SlotType type, final int size, final Consumer<? super Block> init) {
        final String problem = nameProblem(name);
        if (problem != null) {
            throw new IllegalArgumentException("slot name '" + name + "': " + problem);
        }
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(init, "init");
        if (!type.accepts(size)) {
            throw new IllegalArgumentException("a " + type.label() + " slot cannot be " + size + " bytes"
                + (type == SlotType.RAW ? " (at least " + SlotType.MIN_RAW_SIZE + ")" : " (it is " + type.size() + ")"));
        }
        checkOpen();
        checkLength();
        // The count first, then the lookup: every entry below the count is already in the name
        // map, and the scan below starts at the count, so an entry another thread of this
        // process accepts in between is found by one or the other, never skipped.
        int i = dir.readyCount();
        final SlotInfo known = dir.byName(name);
        if (known != null) {
            return blockOf(known, type, size);
        }
        final int cap = dir.header().capacity();
        final long start = System.nanoTime();
        while (i < cap) {
            final long at = entryOffset(i) + ENTRY_STATE_OFFSET;
            final long sw = (long) Block.LONG.getVolatile(seg, at);
            final int state = (int) sw;
            if (state == READY) {
                final SlotInfo s = accept(i);
                if (s.name().equals(name)) {
                    return blockOf(s, type, size);
                }
                i++;
            } else if (state == FREE) {
                if ((long) Block.LONG.compareAndExchange(seg, at, sw, claim) == sw) {
                    return createAt(i, name, type, size, init);
                }
            } else if (isCreating(state)) {
                final int pid = creatingPid(state);
                final int stamp = (int) (sw >>> 32);
                if (!Liveness.claimerAlive(pid, stamp)) {
                    if ((long) Block.LONG.compareAndExchange(seg, at, sw, claim) == sw) {
                        return createAt(i, name, type, size, init);
                    }
                    continue;
                }
                final long now = System.nanoTime();
                final long timeout = creationTimeoutNanos;
                if (now - start > timeout) {
                    throw new IllegalStateException(path + ": slot " + i + " has been in creation by process " + pid
                        + ", which is alive, for more than " + Duration.ofNanos(timeout) + "; '" + name
                        + "' cannot be looked up past it");
                }
                futex.timedWait(seg, at, state, false, Timespec.CLOCK_MONOTONIC,
                    Timespec.ofNanos(now + CLAIMER_CHECK_NANOS), false);
            } else {
                throw new UncheckedIOException(Directory.bad(path, Problem.BAD_STATE, String.format(
                    "slot %d has state 0x%08x, which is none of FREE (0), READY (1) or CREATING (0x40000000 | pid)",
                    i, state)));
            }
        }
        throw new IllegalStateException(path + ": the directory is full (" + cap + " slots); '" + name
            + "' cannot be created");
    }

    /** Fills in the claimed entry {@code i}, initializes the block, publishes. */
    private Block createAt(final int i, final String name, final SlotType type, final int size,
                           final Consumer<? super Block> init) {
        final long e = entryOffset(i);
        boolean published = false;
        creating.readLock().lock();
        try {
            checkOpen();
            final long offset = dir.nextOffset();
            if (offset > dir.header().totalSize() - size) {
                throw new IllegalStateException(path + ": no room for '" + name + "': " + size + " bytes at offset "
                    + offset + ", but the file ends at " + dir.header().totalSize());
            }
            final byte[] n = new byte[NAME_FIELD_SIZE];
            final byte[] ascii = name.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(ascii, 0, n, 0, ascii.length);
            MemorySegment.copy(n, 0, seg, ValueLayout.JAVA_BYTE, e + ENTRY_NAME_OFFSET, NAME_FIELD_SIZE);
            seg.set(ValueLayout.JAVA_INT, e + ENTRY_TYPE_OFFSET, type.code());
            seg.set(ValueLayout.JAVA_INT, e + ENTRY_SIZE_OFFSET, size);
            seg.set(ValueLayout.JAVA_LONG, e + ENTRY_OFFSET_OFFSET, offset);
            seg.set(ValueLayout.JAVA_INT, e + ENTRY_CREATOR_OFFSET, Liveness.selfPid());
            seg.set(ValueLayout.JAVA_INT, e + ENTRY_RESERVED_OFFSET, 0);
            final Block b = memory.block(offset, size, MIN_SLOT_ALIGNMENT);
            b.clear();
            init.accept(b);
            // The publication: every write above happens-before a lookup that reads READY.
            Block.INT.setVolatile(seg, e + ENTRY_STATE_OFFSET, READY);
            published = true;
            futex.wake(seg, e + ENTRY_STATE_OFFSET, -1, false);
            accept(i);
            return b;
        } finally {
            if (!published && memory.isOpen()) {
                seg.asSlice(e, ENTRY_STATE_OFFSET).fill((byte) 0);
                seg.asSlice(e + ENTRY_TYPE_OFFSET, ENTRY_SIZE - ENTRY_TYPE_OFFSET).fill((byte) 0);
                Block.LONG.setVolatile(seg, e + ENTRY_STATE_OFFSET, (long) FREE);
                futex.wake(seg, e + ENTRY_STATE_OFFSET, -1, false);
            }
            creating.readLock().unlock();
        }
    }

    private SlotInfo accept(final int i) {
        try {
            return dir.accept(i);
        } catch (final SyncFileFormatException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private Block blockOf(final SlotInfo s, final SlotType type, final int size) {
        if (s.type() != type) {
            throw new IllegalStateException(path + ": slot '" + s.name() + "' is a " + s.type().label() + ", not a "
                + type.label());
        }
        if (s.size() != size) {
            throw new IllegalStateException(path + ": slot '" + s.name() + "' is " + s.size() + " bytes, not " + size);
        }
        return memory.block(s.offset(), s.size(), MIN_SLOT_ALIGNMENT);
    }

    // ---------------------------------------------------------------------------------------
    // Primitives: get-or-create, always process-shared, musl's byte layout.

    /**
     * Attaches to the named mutex whatever its attributes, or creates a NORMAL process-shared
     * one (musl's default) when the name is new. The attributes of an existing mutex, set by
     * whoever created it (another JVM, a C program), are {@link Mutex#attr()}'s.
     *
     * @param name the slot's name
     * @return a view of the mutex
     * @throws IllegalStateException when the slot holds something else, or a mutex that is not
     *                               process-shared; and as {@link #slot(String, SlotType, int, Consumer)}
     * @see #mutex(String, MutexAttr)
     */
    public Mutex mutex(final String name) {
        final MutexAttr shared = MutexAttr.DEFAULT.toBuilder().pshared(true).build();
        final Block b = slot(name, SlotType.MUTEX, MutexLayout.SIZE, blk -> new Mutex(blk, shared));
        final Mutex m = attach(name, () -> Mutex.attach(b));
        if (!m.attr().pshared()) {
            throw new IllegalStateException(path + ": mutex '" + name + "' is " + m.attr() + ", not process-shared");
        }
        return m;
    }

    /**
     * Gets or creates a named mutex ({@code pthread_mutex_init} with these attributes when new).
     * The mutex is process-shared whatever {@code attr} says: a mutex in a file that other
     * processes map has to be. For robust mutexes, see {@link Mutex} on how a process killed
     * while holding one is detected. A create is refused when the name exists with other
     * attributes; {@link #mutex(String)} attaches whatever they are.
     *
     * @param name the slot's name
     * @param attr the attributes of a new mutex; an existing one must have the same type,
     *             robustness and sharing
     * @return a view of the mutex
     * @throws IllegalStateException when the slot holds something else, or a mutex with other
     *                               attributes; and as {@link #slot(String, SlotType, int, Consumer)}
     */
    public Mutex mutex(final String name, final MutexAttr attr) {
        Objects.requireNonNull(attr, "attr");
        final MutexAttr shared = attr.pshared() ? attr : attr.toBuilder().pshared(true).build();
        final Block b = slot(name, SlotType.MUTEX, MutexLayout.SIZE, blk -> new Mutex(blk, shared));
        final Mutex m = attach(name, () -> Mutex.attach(b, shared.futex()));
        if (m.bits() != shared.bits()) {
            throw new IllegalStateException(path + ": mutex '" + name + "' exists as " + m.attr() + ", not " + shared
                + "; mutex(name) attaches to it whatever its attributes");
        }
        return m;
    }

    /**
     * Attaches to the named condvar whatever its clock, or creates one whose timed waits use
     * CLOCK_REALTIME (POSIX's default) when the name is new.
     *
     * @param name the slot's name
     * @return a view of the condvar ({@link Cond#clock()} says its clock)
     * @throws IllegalStateException when the slot holds something else or a condvar that is not
     *                               process-shared; and as {@link #slot(String, SlotType, int, Consumer)}
     * @see #cond(String, CondAttr)
     */
    public Cond cond(final String name) {
        final CondAttr shared = CondAttr.builder().pshared(true).build();
        final Block b = slot(name, SlotType.COND, CondLayout.SIZE, blk -> new Cond(blk, shared));
        final Cond c = attach(name, () -> Cond.attach(b));
        if (!c.isPshared()) {
            throw new IllegalStateException(path + ": condvar '" + name + "' is not process-shared");
        }
        return c;
    }

    /**
     * Gets or creates a named condvar, process-shared whatever {@code attr} says. A create is
     * refused when the name exists with another clock; {@link #cond(String)} attaches whatever
     * it is.
     *
     * @param name the slot's name
     * @param attr the attributes (clock) of a new condvar; an existing one must have the same clock
     * @return a view of the condvar
     * @throws IllegalStateException when the slot holds something else or another clock; and as
     *                               {@link #slot(String, SlotType, int, Consumer)}
     */
    public Cond cond(final String name, final CondAttr attr) {
        Objects.requireNonNull(attr, "attr");
        final CondAttr shared = attr.pshared() ? attr : CondAttr.builder().pshared(true).clock(attr.clock()).build();
        final Block b = slot(name, SlotType.COND, CondLayout.SIZE, blk -> new Cond(blk, shared));
        final Cond c = attach(name, () -> Cond.attach(b));
        if (c.clock() != shared.clock()) {
            throw new IllegalStateException(path + ": condvar '" + name + "' exists with clock " + c.clock() + ", not "
                + shared.clock() + "; cond(name) attaches to it whatever its clock");
        }
        return c;
    }

    /** A view of a published slot's primitive; a block that holds none is this file's error, named. */
    private <T> T attach(final String name, final java.util.function.Supplier<T> view) {
        try {
            return view.get();
        } catch (final IllegalArgumentException e) {
            throw new IllegalStateException(path + ": slot '" + name + "' holds no valid primitive: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------------------------------
    // java.util.concurrent faces over the same slots

    /**
     * A {@link java.util.concurrent.locks.Lock} over a named mutex, for code written against
     * {@code ReentrantLock}: a new mutex is RECURSIVE (reentrant, as {@code ReentrantLock}),
     * robust and process-shared; an existing one is attached whatever its attributes, as
     * {@link #mutex(String)}, and must record its owner (RECURSIVE or ERRORCHECK). When a
     * thread or process dies holding it, even by {@code kill -9}, the next acquisition in any
     * process throws {@link OwnerDiedException} with the lock held. Its conditions are
     * {@link #condition(String, PthreadLock)}; {@link PthreadLock#newCondition()} refuses, since
     * a condition in one process's memory could not be signalled by another.
     *
     * @param name the slot's name
     * @return the lock
     * @throws IllegalStateException when the slot holds something else, or a NORMAL mutex (it
     *                               records no owner); and as {@link #slot(String, SlotType, int, Consumer)}
     */
    public PthreadLock lock(final String name) {
        final MutexAttr attr = MutexAttr.builder().type(MutexAttr.RECURSIVE).robust(true).pshared(true).build();
        slot(name, SlotType.MUTEX, MutexLayout.SIZE, blk -> new Mutex(blk, attr));
        final Mutex m = mutex(name);
        if (m.attr().type() == MutexAttr.NORMAL) {
            throw new IllegalStateException(path + ": mutex '" + name + "' is " + m.attr() + ": a NORMAL mutex records"
                + " no owner, so it cannot be a Lock (unlock by a non-owner could not be refused)");
        }
        return PthreadLock.of(m);
    }

    /**
     * A {@link java.util.concurrent.locks.ReadWriteLock} over a named process-shared rwlock
     * ({@link #rwlock(String)}). Its write lock has no condition (a process-shared one could not
     * be made in one process's memory).
     *
     * @param name the slot's name
     * @return the lock
     * @throws IllegalStateException as {@link #slot(String, SlotType, int, Consumer)}
     */
    public PthreadReadWriteLock readWriteLock(final String name) {
        return PthreadReadWriteLock.of(rwlock(name));
    }

    /**
     * A {@link java.util.concurrent.Semaphore} over a named process-shared semaphore
     * ({@link #sem(String, int)}): {@code permits} is used only when it is new, as
     * {@code sem_open}'s value.
     *
     * @param name    the slot's name
     * @param permits the permits of a new semaphore, 0 to {@link Sem#VALUE_MAX}
     * @return the semaphore
     * @throws IllegalArgumentException for negative permits
     * @throws IllegalStateException    as {@link #slot(String, SlotType, int, Consumer)}
     */
    public PthreadSemaphore semaphore(final String name, final int permits) {
        return PthreadSemaphore.of(sem(name, permits));
    }

    /**
     * A {@link java.util.concurrent.locks.Condition} of a process-shared lock over a named
     * condvar: a new one's timed waits use CLOCK_MONOTONIC; an existing one is attached
     * whatever its clock ({@link #cond(String)}). Threads of every process that waits and
     * signals with the same lock and name meet on it.
     *
     * @param name the slot's name
     * @param lock a process-shared lock, such as {@link #lock(String)}'s
     * @return the condition
     * @throws IllegalArgumentException when the lock is not process-shared (its holders could
     *                                  not all wait on a condvar in shared memory)
     * @throws IllegalStateException    as {@link #slot(String, SlotType, int, Consumer)}
     */
    public PthreadCondition condition(final String name, final PthreadLock lock) {
        if (!lock.mutex().attr().pshared()) {
            throw new IllegalArgumentException(lock + " is process-private: a condition in " + path
                + " needs a process-shared lock, such as lock(name)");
        }
        final CondAttr monotonic = CondAttr.builder().pshared(true).clock(Timespec.CLOCK_MONOTONIC).build();
        slot(name, SlotType.COND, CondLayout.SIZE, blk -> new Cond(blk, monotonic));
        return lock.attachCondition(cond(name).block());
    }

    /**
     * Gets or creates a named process-shared rwlock.
     *
     * @param name the slot's name
     * @return a view of the rwlock
     * @throws IllegalStateException as {@link #slot(String, SlotType, int, Consumer)}
     */
    public RwLock rwlock(final String name) {
        final Block b = slot(name, SlotType.RWLOCK, RwLockLayout.SIZE, blk -> new RwLock(blk, RwLockAttr.PSHARED));
        return RwLock.attach(b);
    }

    /**
     * Gets or creates a named process-shared semaphore. Like {@code sem_open} with
     * {@code O_CREAT}, {@code value} is used only when the semaphore is new.
     *
     * @param name  the slot's name
     * @param value the initial value of a new semaphore, 0 to {@link Sem#VALUE_MAX}
     * @return a view of the semaphore
     * @throws IllegalArgumentException for a negative value
     * @throws IllegalStateException    as {@link #slot(String, SlotType, int, Consumer)}
     */
    public Sem sem(final String name, final int value) {
        if (value < 0) {
            throw new IllegalArgumentException("semaphore value " + value + " is negative (EINVAL)");
        }
        final Block b = slot(name, SlotType.SEM, SemLayout.SIZE, blk -> new Sem(blk, true, value));
        return Sem.attach(b);
    }

    /**
     * Gets or creates a named process-shared barrier.
     *
     * @param name  the slot's name
     * @param count the parties of a new barrier; an existing one must have the same count
     * @return a view of the barrier
     * @throws IllegalArgumentException for a count below 1
     * @throws IllegalStateException    when the barrier exists with another count; and as
     *                                  {@link #slot(String, SlotType, int, Consumer)}
     */
    public Barrier barrier(final String name, final int count) {
        if (count < 1) {
            throw new IllegalArgumentException("barrier count " + count + " is below 1 (EINVAL)");
        }
        final Block b = slot(name, SlotType.BARRIER, BarrierLayout.SIZE, blk -> new Barrier(blk, BarrierAttr.PSHARED, count));
        final Barrier bar = Barrier.attach(b);
        if (bar.count() != count) {
            throw new IllegalStateException(path + ": barrier '" + name + "' has count " + bar.count() + ", not " + count);
        }
        return bar;
    }

    /**
     * Gets or creates a named once control, process-shared: among all the processes that map
     * the file, one {@link Once#run} runs its routine.
     *
     * @param name the slot's name
     * @return a view of the once control
     * @throws IllegalStateException as {@link #slot(String, SlotType, int, Consumer)}
     */
    public Once once(final String name) {
        final Block b = slot(name, SlotType.ONCE, OnceLayout.SIZE, blk -> new Once(blk, true, null));
        return Once.attach(b, true, null);
    }

    /**
     * Gets or creates a named {@link FutexDoorbell}, for a producer to ring and a
     * {@link FutexIdleStrategy} to sleep on.
     *
     * @param name the slot's name
     * @return a view of the doorbell
     * @throws IllegalStateException as {@link #slot(String, SlotType, int, Consumer)}
     */
    public FutexDoorbell doorbell(final String name) {
        return new FutexDoorbell(slot(name, SlotType.DOORBELL, FutexDoorbell.SIZE));
    }

    /**
     * Looks a slot up without creating it and without waiting for a creation in progress.
     *
     * @param name the slot's name
     * @return its description, if published
     * @throws IllegalStateException when this file is closed
     * @throws UncheckedIOException  wrapping a {@link SyncFileFormatException} for a corrupt entry
     */
    public Optional<SlotInfo> find(final String name) {
        for (final SlotInfo s : slots()) {
            if (s.name().equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /**
     * {@return every published slot, in directory order, including those other processes
     *     published since this file was opened}
     *
     * @throws IllegalStateException when this file is closed
     * @throws UncheckedIOException  wrapping a {@link SyncFileFormatException} for a corrupt entry
     */
    public List<SlotInfo> slots() {
        checkOpen();
        checkLength();
        final int cap = dir.header().capacity();
        for (int i = dir.readyCount(); i < cap && dir.state(i) == READY; i++) {
            accept(i);
        }
        return dir.slots();
    }

    /**
     * The block of a published slot.
     *
     * @param info a slot of this file
     * @return its block
     */
    public Block block(final SlotInfo info) {
        return memory.block(info.offset(), info.size(), MIN_SLOT_ALIGNMENT);
    }

    /** {@return the validated header} */
    public SyncFileHeader header() {
        return dir.header();
    }

    /** {@return the file's absolute path} */
    public Path path() {
        return path;
    }

    /** {@return the mapping (for code that places its own words; closing it closes this file's blocks)} */
    public Memory memory() {
        return memory;
    }

    /** {@return how long a lookup waits for a live process that is creating an entry} */
    public Duration creationTimeout() {
        return Duration.ofNanos(creationTimeoutNanos);
    }

    /**
     * {@return this file}
     *
     * @param timeout how long a lookup waits for a live process that is creating an entry
     */
    public SyncFile creationTimeout(final Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("negative timeout: " + timeout);
        }
        this.creationTimeoutNanos = timeout.toNanos();
        return this;
    }

    /** {@return whether {@link #close()} has not been called} */
    public boolean isOpen() {
        return !closed.get();
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException(path + " is closed");
        }
    }

    /**
     * Unmaps the file; idempotent. Later accesses through any block of it throw
     * {@link IllegalStateException}, and this process's threads asleep on its primitives are
     * woken to see that exception. The file stays on disk.
     *
     * <p>Closing while a thread of this process holds a mutex of the file that is on its kernel
     * robust list (a robust mutex, or any owner-tracked one: every mutex of a sync file is
     * process-shared) is refused, as unmapping such a mutex is an error in C: the list would
     * point into unmapped memory, where the kernel's walk at the thread's death would stop
     * (leaving the mutexes behind it unrecovered) or, were the addresses reused, write. The
     * check reads the lock words and links when {@code close} is called (through any mapping of
     * the file in this process): an owner-tracked mutex whose word names a thread of this process
     * and whose {@code _m_prev} is set; a lock taken after it is the caller's race. A NORMAL
     * mutex records no owner and does not stop a close.
     *
     * @throws IllegalStateException when a thread of this process holds such a mutex; the file
     *                               stays open, and the message names the mutex and the thread
     */
    @Override
    public void close() {
        if (closed.get()) {
            return;
        }
        final boolean truncated = truncatedTo() >= 0;
        if (!truncated) {
            refuseWhileHeld();
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        creating.writeLock().lock();
        creating.writeLock().unlock();
        final List<SlotInfo> published = dir.slots();
        // Map the file a second time before unmapping the first, so the new mapping cannot take
        // the old one's addresses; shared futex keys are (inode, offset), so a wake through
        // either mapping reaches a sleeper on either. Not for a truncated file: mapping past its
        // end would grow it again.
        try (Arena a = Arena.ofConfined()) {
            MemorySegment second = null;
            try {
                second = truncated ? null : channel.map(FileChannel.MapMode.READ_WRITE, 0, seg.byteSize(), a);
            } catch (final IOException | RuntimeException e) {
                // Without a second mapping the sleepers stay asleep; nothing else depends on it.
            }
            memory.close();
            if (second != null) {
                for (final SlotInfo s : published) {
                    if (s.type() == SlotType.RAW && s.size() > CLOSE_WAKE_RAW_LIMIT) {
                        continue;
                    }
                    for (long w = s.offset(); w + 4 <= s.end(); w += 4) {
                        futex.wake(second, w, -1, false);
                    }
                }
            }
        } finally {
            try {
                channel.close();
            } catch (final IOException ignored) {
                // nothing was written through the channel after creation
            }
        }
    }

    /** Refuses the close while a thread of this process holds a mutex of the file on its robust list. */
    private void refuseWhileHeld() {
        for (final SlotInfo s : slots()) {
            if (s.type() != SlotType.MUTEX) {
                continue;
            }
            final int type = (int) Block.INT.getVolatile(seg, s.offset() + MutexLayout.TYPE);
            // A fair mutex is never linked, and its skip map lies over _m_prev and _m_next.
            final boolean linked = (type & MutexLayout.ROBUST) != 0
                || ((type & MutexLayout.OWNER_TRACKED_MASK) != 0 && (type & MutexLayout.PSHARED) != 0
                && (type & MutexLayout.FAIR) == 0);
            final int owner = (int) Block.INT.getVolatile(seg, s.offset() + MutexLayout.LOCK) & MutexLayout.OWNER_MASK;
            // A locker links the mutex (_m_prev) before anything else can see it held.
            final boolean onList = (long) Block.LONG.getVolatile(seg, s.offset() + MutexLayout.PREV) != 0;
            if (linked && onList && owner != 0 && owner != MutexLayout.OWNER_MASK
                && Liveness.isThreadOfThisProcess(owner)) {
                throw new IllegalStateException(path + " is not closed: mutex '" + s.name() + "' is held by thread "
                    + owner + " of this process" + (owner == Liveness.currentTid() ? " (the caller)" : "")
                    + ", whose kernel robust list points into the file's mapping; unlock it first");
            }
        }
    }

    /** {@return the file's length when it is shorter than the mapping (it was truncated), else -1} */
    private long truncatedTo() {
        try {
            final long size = channel.size();
            return size < seg.byteSize() ? size : -1;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Refuses to touch the mapping of a truncated file: the kernel answers an access to a page
     * past the end of the file with SIGBUS (see "Truncation" in the class overview).
     *
     * @throws UncheckedIOException wrapping a {@link SyncFileFormatException} ({@code TRUNCATED})
     */
    private void checkLength() {
        final long size = truncatedTo();
        if (size >= 0) {
            throw new UncheckedIOException(Directory.bad(path, Problem.TRUNCATED, "the file is now " + size
                + " bytes, but " + seg.byteSize() + " are mapped: it was truncated while in use, and an access past"
                + " its end would fault (SIGBUS); no slot of it can be used any more"));
        }
    }

    @Override
    public String toString() {
        return "SyncFile[" + path + (closed.get() ? ", closed" : "") + "]";
    }
}
