package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;

import static org.pthread4j.SemLayout.FLAGS;
import static org.pthread4j.SemLayout.PRIVATE;
import static org.pthread4j.SemLayout.SEM_VALUE_MAX;
import static org.pthread4j.SemLayout.VALUE;
import static org.pthread4j.SemLayout.WAITERS;
import static org.pthread4j.SemLayout.WAITERS_BIT;

/**
 * musl's {@code sem_t}: a counting semaphore on one futex word, unnamed (in any block, like
 * {@code sem_init}) or named (a file in {@code /dev/shm}, like {@code sem_open}), laid out as
 * musl lays it out on x86_64 ({@link SemLayout}).
 *
 * <h2>Implementation overview</h2>
 *
 * <p>The word {@code __val[0]} holds the value in bits 0-30 and, in bit 31, a sticky "sleepers
 * may exist" flag; {@code __val[1]} counts the threads inside a wait. A wait takes a permit by
 * CAS of the word to word-1 whenever the value bits are nonzero (the flag survives). With none
 * to take, a waiter spins while no one sleeps (musl: 100 times; here for a time, looking less
 * often as it goes: {@code Spin}, {@code Tuning}), then counts itself in, sets the flag by CAS
 * from exactly 0 to 0x80000000 (ignoring failure), and sleeps while the word is 0x80000000.
 *
 * <p>A post reads the waiter count <em>before</em> its CAS of the word to word+1: after that
 * CAS the thread that takes the permit may conclude it was the last user and unmap the
 * semaphore (glibc bug 12674, musl commit 88c4e720), so nothing but a futex wake may follow.
 * The flag catches waiters that arrive after that read. The wake rule is musl's current one
 * (commit 159d1f6c, 2022, plus 882aedf6, 2024):
 * <ul>
 * <li>when more than one waiter was seen, the post keeps the flag and wakes one;</li>
 * <li>when at most one was seen (really "exactly one, or a stale zero"), the post clears the
 *     flag and wakes <em>all</em>: every waiter it did not account for wakes up and sets the
 *     flag again if it still has to sleep. With the expected single sleeper this costs the same
 *     as a single wake. Keeping the flag sticky is what fixed the ABA that lost wakes when a
 *     value-encoded "zero with waiters" vanished under an intervening post;</li>
 * <li>the post wakes if the flag was set <em>or</em> the waiter count it read was nonzero
 *     (the 2024 fix): a post that cleared the flag but was delayed before its wake must not
 *     make later posts skip theirs, nor leave a sleeper on another mapping of the same
 *     semaphore stranded.</li>
 * </ul>
 *
 * <h2>Backends, interrupts, named semaphores</h2>
 *
 * <p>A private semaphore ({@code __val[2]} 128) sleeps on the backend it was made with, or
 * {@link Futexes#defaultPrivate()}; a process-shared or named one ({@code __val[2]} 0) on
 * {@link Futexes#shared()}. musl's {@code sem_wait} returns EINTR when a signal interrupts it;
 * here the analogue is {@link Thread#interrupt()}, answered by the {@code interruptible} forms
 * only (the interrupt status is left set for the caller to clear).
 *
 * <p>{@link #open(String, int, int, int, SharedFileOption...)} creates {@code /dev/shm/NAME}
 * (musl's {@code __shm_mapname}, so a musl C program's {@code sem_open} of the same name meets
 * it) exclusively and atomically: the initialized image is written to a temporary file that is
 * then hard-linked to the name, so no process ever sees a half-initialized semaphore (musl's
 * {@code sem_open}). Opening the same file again in this JVM returns the same {@code Sem}, with
 * a reference count per file (device and inode); {@link #close()} drops one reference and
 * unmaps at zero. The calls on the file system ({@code open}, {@code close}, {@code unlink})
 * throw {@link ErrnoException}; the operations on the words return an errno.
 *
 * <p>Memory consistency: actions before a {@link #post()} happen-before the return of the wait
 * that takes the permit it made. Results are errno values as musl sets them.
 *
 * <p>See {@code docs/05-semaphore.md}: the words, the states, the races and the tests that prove them.
 */
public final class Sem {
    /** {@code SEM_VALUE_MAX}: 0x7fffffff. */
    public static final int VALUE_MAX = SEM_VALUE_MAX;

    private final Block block;
    private final MemorySegment seg;
    private final Futex futex;
    private final boolean priv;
    /** The mapping of a named semaphore, null for an unnamed one. */
    private final Memory mapping;
    /** The file identity of a named semaphore (device and inode), null for an unnamed one. */
    private final Object fileKey;
    private final String name;

    /**
     * {@code sem_init}: sets the value, a zero waiter count and the private flag. The other
     * bytes of the block are left as they are, as musl leaves them.
     *
     * @param block   at least {@link SemLayout#SIZE} bytes, 4-byte aligned
     * @param pshared whether processes mapping the block share the semaphore
     * @param value   the initial value, in [0, {@link #VALUE_MAX}]
     * @throws IllegalArgumentException when the value is negative (musl's EINVAL for an
     *                                  unsigned value above {@code SEM_VALUE_MAX}), or the block
     *                                  is too small or misaligned
     */
    public Sem(final Block block, final boolean pshared, final int value) {
        this(block, pshared, value, null);
    }

    /**
     * {@code sem_init} on a chosen backend for a private semaphore.
     *
     * @param block        at least {@link SemLayout#SIZE} bytes, 4-byte aligned
     * @param pshared      whether processes mapping the block share the semaphore
     * @param value        the initial value, in [0, {@link #VALUE_MAX}]
     * @param privateFutex backend for a private semaphore (for a process-shared one: a backend
     *                     that serves shared words), or null for the default
     * @throws IllegalArgumentException when the value is negative, the block is unsuitable, or
     *                                  a process-shared semaphore is given a backend that cannot
     *                                  serve shared words
     */
    public Sem(final Block block, final boolean pshared, final int value, final Futex privateFutex) {
        // src/thread/sem_init.c
        SemLayout.checkBlock(block);
        if (value < 0) {
            throw new IllegalArgumentException(Backing.einval("sem_init value " + Integer.toUnsignedString(value)
                + " > SEM_VALUE_MAX"));
        }
        this.block = block;
        this.seg = block.segment();
        this.priv = !pshared;
        this.futex = Backing.futex(pshared, privateFutex, "process-shared semaphore");
        this.mapping = null;
        this.fileKey = null;
        this.name = null;
        block.set(VALUE, value);
        block.set(WAITERS, 0);
        block.set(FLAGS, pshared ? 0 : PRIVATE);
    }

    /** A view; for {@link #attach} and named semaphores. */
    Sem(final Block block, final Futex futex, final boolean priv, final Memory mapping, final Object fileKey,
        final String name) {
        this.block = block;
        this.seg = block.segment();
        this.futex = futex;
        this.priv = priv;
        this.mapping = mapping;
        this.fileKey = fileKey;
        this.name = name;
    }

    /**
     * Views a semaphore initialized elsewhere (another process, a C program linked with musl)
     * without changing it. A private one gets {@link Futexes#defaultPrivate()}.
     *
     * @param block the block holding the semaphore
     * @return the view
     * @throws IllegalArgumentException when the block is unsuitable or holds no initialized
     *                                  {@code sem_t} ({@code __val[2]} not 0 or 128, or a
     *                                  negative waiter count)
     */
    public static Sem attach(final Block block) {
        return attach(block, null);
    }

    /**
     * Views an initialized semaphore, with the backend to use if it is private.
     *
     * @param block        the block holding the semaphore
     * @param privateFutex backend for a private semaphore (for a process-shared one: a backend
     *                     that serves shared words), or null for the default
     * @return the view
     * @throws IllegalArgumentException when the block holds no initialized {@code sem_t}, or a
     *                                  process-shared one is given a backend that cannot serve
     *                                  shared words
     */
    public static Sem attach(final Block block, final Futex privateFutex) {
        SemLayout.checkInitialized(block);
        final boolean pshared = block.get(FLAGS) == 0;
        return new Sem(block, Backing.futex(pshared, privateFutex, "process-shared semaphore"), !pshared, null, null, null);
    }

    // ------------------------------------------------------------------------------------------
    // Named semaphores: sem_open.c, sem_unlink.c (NamedSems does the file work)

    /**
     * {@code sem_open} without creation arguments: opens an existing named semaphore, or with
     * {@link OpenFlags#O_CREAT} creates one with mode {@link OpenFlags#DEFAULT_MODE} and value 0.
     *
     * <p>As musl's and glibc's {@code sem_open}, it never follows a symbolic link at the name
     * (ELOOP). Further than either, a file owned by another user, or writable by its group or by
     * others, is refused with EACCES unless {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS}
     * is given: whoever can write the file can forge or take every permit.
     *
     * @param name    the name: leading slashes are dropped; the rest must be nonempty, contain
     *                no '/' or NUL, not be "." or "..", and be at most 255 UTF-8 bytes; it names
     *                {@code /dev/shm/NAME}, as in musl (glibc uses {@code /dev/shm/sem.NAME})
     * @param oflag   0, {@link OpenFlags#O_CREAT}, or {@code O_CREAT | O_EXCL}; other bits are ignored
     * @param options {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS} or none
     * @return the semaphore, shared with every other opener of the same file in this JVM
     * @throws ErrnoException with EINVAL or ENAMETOOLONG for a bad name, ENOENT when it does not
     *                        exist and O_CREAT is absent, EEXIST for O_CREAT|O_EXCL on an
     *                        existing name, EINVAL for a file that holds no semaphore, EACCES
     *                        (permission denied, or another user's or others-writable file
     *                        without the option), ELOOP (a symbolic link), EMFILE, or EIO for
     *                        another I/O failure
     */
    public static Sem open(final String name, final int oflag, final SharedFileOption... options)
        throws ErrnoException {
        return NamedSems.open(name, oflag, OpenFlags.DEFAULT_MODE, 0, options);
    }

    /**
     * {@code sem_open(name, oflag, mode, value)}.
     *
     * <p>Creation is exclusive and atomic: the semaphore is written to a temporary file in
     * {@code /dev/shm}, created with the mode (which the umask filters, as {@code open(2)}
     * does), and hard-linked to {@code /dev/shm/NAME}; without O_EXCL, losing the race to
     * another creator opens the winner's semaphore. Opening a file that this JVM has open
     * already returns the same {@code Sem} and adds a reference.
     *
     * @param name    the name (see {@link #open(String, int, SharedFileOption...)})
     * @param oflag   0, {@link OpenFlags#O_CREAT}, or {@code O_CREAT | O_EXCL}
     * @param mode    permission bits of a created file (masked with 0666, then by the umask); a
     *                mode that lets the group or others write needs the option
     * @param value   initial value of a created semaphore, in [0, {@link #VALUE_MAX}]; a negative
     *                value (above SEM_VALUE_MAX as unsigned) is EINVAL when a file is created
     * @param options {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS} or none
     * @return the semaphore
     * @throws ErrnoException as {@link #open(String, int, SharedFileOption...)} describes
     */
    public static Sem open(final String name, final int oflag, final int mode, final int value,
                           final SharedFileOption... options) throws ErrnoException {
        return NamedSems.open(name, oflag, mode, value, options);
    }

    /**
     * {@code sem_unlink}: removes the name ({@code /dev/shm/NAME}). Openers keep their semaphore
     * until they close it. Like {@link #open(String, int, SharedFileOption...)} and
     * {@link #close()}, a call on the file system that throws; operations on the words return
     * an errno.
     *
     * @param name the name, validated as by {@link #open(String, int, SharedFileOption...)}
     * @throws ErrnoException with EINVAL or ENAMETOOLONG (bad name), ENOENT, EACCES, EISDIR, or
     *                        EIO
     */
    public static void unlink(final String name) throws ErrnoException {
        NamedSems.unlink(name);
    }

    /**
     * {@code sem_close}: drops one reference to a named semaphore; the last one unmaps it, and
     * any later use of this object throws {@link IllegalStateException}.
     *
     * @throws ErrnoException with EINVAL when this semaphore is unnamed or already fully closed
     */
    public void close() throws ErrnoException {
        if (fileKey == null) {
            throw new ErrnoException(Errno.EINVAL, this + " is unnamed: sem_close is for named semaphores only");
        }
        NamedSems.close(this);
    }

    /** {@return the name this semaphore was opened by (without leading slashes), or null if unnamed} */
    public String name() {
        return name;
    }

    Memory mapping() {
        return mapping;
    }

    Object fileKey() {
        return fileKey;
    }

    // ------------------------------------------------------------------------------------------
    // sem_trywait.c, sem_timedwait.c, sem_wait.c

    /**
     * {@code sem_trywait}: takes a permit if one is available.
     *
     * <p>Memory effects: on success, as a wait (see the class description).
     *
     * @return 0, or EAGAIN when the value is 0
     */
    public int tryAwait() {
        // src/thread/sem_trywait.c
        int val;
        while (((val = block.get(VALUE)) & SEM_VALUE_MAX) != 0) {
            if (block.cas(VALUE, val, val - 1) == val) {
                return 0;
            }
        }
        return Errno.EAGAIN;
    }

    /**
     * {@code sem_wait} (named {@code await} because {@link Object#wait()} is final): takes a
     * permit, sleeping until one is posted. Not interruptible: an interrupt is kept for the
     * caller.
     *
     * @return 0
     */
    public int await() {
        return timedAwait(Timespec.CLOCK_REALTIME, null, false);
    }

    /**
     * {@code sem_timedwait}: {@link #await()} until a deadline on {@link Timespec#CLOCK_REALTIME}.
     *
     * @param at the absolute deadline, or null for none
     * @return 0, ETIMEDOUT, or EINVAL (nsec outside [0, 1e9), checked only if the call would sleep)
     */
    public int timedAwait(final Timespec at) {
        return timedAwait(Timespec.CLOCK_REALTIME, at, false);
    }

    /**
     * Takes a permit, sleeping until one is posted, the deadline on {@code clock} passes, or, if
     * {@code interruptible}, the thread is interrupted. An interruptible call made with the
     * interrupt status already set answers EINTR at once, even if a permit is available (musl's
     * {@code sem_timedwait} is a cancellation point before it looks at the value). The
     * interrupt status is left set.
     *
     * @param clock         {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}
     * @param at            the absolute deadline, or null for none
     * @param interruptible whether {@link Thread#interrupt()} ends the wait with EINTR
     * @return 0, ETIMEDOUT, EINTR, or EINVAL (bad deadline or clock, checked only if the call
     *     would sleep)
     */
    public int timedAwait(final int clock, final Timespec at, final boolean interruptible) {
        // src/thread/sem_timedwait.c (sem_wait.c calls it without a deadline)
        if (interruptible && Thread.currentThread().isInterrupted()) {
            return Errno.EINTR;
        }
        if (tryAwait() == 0) {
            return 0;
        }
        Spin.whileBelow(seg, VALUE, SEM_VALUE_MAX, 1, WAITERS, Tuning.DEFAULT.spinNanos());
        while (tryAwait() != 0) {
            block.getAndAdd(WAITERS, 1);
            final int r;
            try {
                block.cas(VALUE, 0, WAITERS_BIT);
                r = futex.timedWait(seg, VALUE, WAITERS_BIT, priv, clock, at, interruptible);
            } finally {
                block.getAndAdd(WAITERS, -1);
            }
            if (r != 0 && r != Errno.EAGAIN) {
                return r;
            }
        }
        return 0;
    }

    /**
     * Takes {@code n} permits at once if that many are available: {@link #tryAwait()} with a
     * count, for the {@code java.util.concurrent} adapter (POSIX semaphores take one permit at
     * a time). The CAS subtracts {@code n} and keeps bit 31, as {@link #tryAwait()} does.
     *
     * <p>Memory effects: on success, as a wait.
     *
     * @param n how many permits, at least 1
     * @return 0, or EAGAIN when fewer than {@code n} are available; EINVAL for {@code n < 1}
     */
    public int tryAwait(final int n) {
        if (n == 1) {
            return tryAwait();
        }
        if (n < 1) {
            return Errno.EINVAL;
        }
        int val;
        while (((val = block.get(VALUE)) & SEM_VALUE_MAX) >= n) {
            if (block.cas(VALUE, val, val - n) == val) {
                return 0;
            }
        }
        return Errno.EAGAIN;
    }

    /**
     * Takes {@code n} permits at once, sleeping until that many are available: the sleep of
     * {@link #timedAwait(int, Timespec, boolean)} generalized. A waiter short of permits counts
     * itself in, sets bit 31 on the value it saw (musl's waiter sets it on 0, the only value a
     * single-permit waiter sleeps on) and sleeps while the word holds that value with the bit.
     * Every post changes the word, so the race with a post is closed as in {@code sem_wait}.
     * The permits are taken all together or not at all, so two waiters can never each hold
     * part of what they need.
     *
     * <p>Wakeups follow {@link #post()}'s rule, which wakes one sleeper when several sleep: a
     * waiter woken with too few permits sleeps again and the permits wait for the next post
     * or a waiter that needs fewer, as a larger request at the head of a
     * {@code java.util.concurrent.Semaphore}'s queue holds back the ones behind it.
     *
     * @param n             how many permits, at least 1
     * @param clock         {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}
     * @param at            the absolute deadline, or null for none
     * @param interruptible whether {@link Thread#interrupt()} ends the wait with EINTR
     * @return 0, ETIMEDOUT, EINTR, or EINVAL ({@code n < 1}, or a bad deadline or clock,
     *     checked only if the call would sleep)
     */
    public int timedAwait(final int n, final int clock, final Timespec at, final boolean interruptible) {
        if (n == 1) {
            return timedAwait(clock, at, interruptible);
        }
        if (n < 1) {
            return Errno.EINVAL;
        }
        if (interruptible && Thread.currentThread().isInterrupted()) {
            return Errno.EINTR;
        }
        if (tryAwait(n) == 0) {
            return 0;
        }
        Spin.whileBelow(seg, VALUE, SEM_VALUE_MAX, n, WAITERS, Tuning.DEFAULT.spinNanos());
        while (tryAwait(n) != 0) {
            block.getAndAdd(WAITERS, 1);
            final int r;
            try {
                final int val = block.get(VALUE);
                if ((val & SEM_VALUE_MAX) >= n) {
                    continue;
                }
                final int t = val | WAITERS_BIT;
                block.cas(VALUE, val, t);
                r = futex.timedWait(seg, VALUE, t, priv, clock, at, interruptible);
            } finally {
                block.getAndAdd(WAITERS, -1);
            }
            if (r != 0 && r != Errno.EAGAIN) {
                return r;
            }
        }
        return 0;
    }

    // ------------------------------------------------------------------------------------------
    // sem_post.c

    /**
     * {@code sem_post}: adds a permit and wakes by musl's rule (one sleeper when more than one
     * was counted, else all, dropping the flag).
     *
     * <p>Memory effects: actions before this call happen-before the return of the wait that
     * takes this permit.
     *
     * @return 0, or EOVERFLOW when the value is already {@link #VALUE_MAX} (left unchanged)
     */
    public int post() {
        // src/thread/sem_post.c, with commit 882aedf6 (2024)
        int val;
        int waiters;
        int next;
        do {
            val = block.get(VALUE);
            waiters = block.get(WAITERS);
            if ((val & SEM_VALUE_MAX) == SEM_VALUE_MAX) {
                return Errno.EOVERFLOW;
            }
            next = val + 1;
            if (waiters <= 1) {
                next &= ~WAITERS_BIT;
            }
        } while (block.cas(VALUE, val, next) != val);
        if (val < 0 || waiters != 0) {
            futex.wake(seg, VALUE, waiters > 1 ? 1 : -1, priv);
        }
        return 0;
    }

    /**
     * Adds {@code n} permits in one CAS: {@link #post()} with a count, for the
     * {@code java.util.concurrent} adapter. The wake rule is musl's with {@code n} in place of
     * one: when more than {@code n} waiters were seen the post keeps bit 31 and wakes {@code n};
     * otherwise it clears the bit and wakes them all. Like {@link #post()} it reads the waiter
     * count before its CAS and touches nothing but the futex after it.
     *
     * <p>Memory effects: actions before this call happen-before the return of each wait that
     * takes one of these permits.
     *
     * @param n how many permits, at least 1
     * @return 0; EOVERFLOW when the value would pass {@link #VALUE_MAX} (left unchanged);
     *     EINVAL for {@code n < 1}
     */
    public int post(final int n) {
        if (n == 1) {
            return post();
        }
        if (n < 1) {
            return Errno.EINVAL;
        }
        int val;
        int waiters;
        int next;
        do {
            val = block.get(VALUE);
            waiters = block.get(WAITERS);
            if ((val & SEM_VALUE_MAX) > SEM_VALUE_MAX - n) {
                return Errno.EOVERFLOW;
            }
            next = val + n;
            if (waiters <= n) {
                next &= ~WAITERS_BIT;
            }
        } while (block.cas(VALUE, val, next) != val);
        if (val < 0 || waiters != 0) {
            futex.wake(seg, VALUE, waiters > n ? n : -1, priv);
        }
        return 0;
    }

    // ------------------------------------------------------------------------------------------
    // sem_getvalue.c, sem_destroy.c, introspection

    /**
     * {@code sem_getvalue}: the value, never negative (waiters are not reported as a negative
     * value, as POSIX would allow).
     *
     * @return the value bits of the word, in [0, {@link #VALUE_MAX}]
     */
    public int getValue() {
        // src/thread/sem_getvalue.c
        return block.get(VALUE) & SEM_VALUE_MAX;
    }

    /** {@return how many threads are inside a wait ({@code __val[1]}), a snapshot} */
    public int waiterCount() {
        return block.get(WAITERS);
    }

    /** {@return whether bit 31 of the word says sleepers may exist} */
    public boolean hasWaitersBit() {
        return block.get(VALUE) < 0;
    }

    /**
     * {@code sem_destroy}: nothing to do, as in musl.
     *
     * @return 0
     */
    public int destroy() {
        return 0;
    }

    /** {@return whether the semaphore is process-shared ({@code __val[2]} is 0)} */
    public boolean isPshared() {
        return !priv;
    }

    /** {@return the block this semaphore lives in} */
    public Block block() {
        return block;
    }

    /** {@return the futex backend this semaphore sleeps on} */
    public Futex futex() {
        return futex;
    }

    @Override
    public String toString() {
        final String where = name != null ? "named '" + name + "'" : priv ? "private on " + futex.name() : "pshared";
        if (mapping != null && !mapping.isOpen()) {
            return "Sem[" + where + ", closed]";
        }
        final int w = block.get(VALUE);
        return "Sem[value=" + (w & SEM_VALUE_MAX) + (w < 0 ? ", waiters bit" : "") + ", waiters="
            + block.get(WAITERS) + ", " + where + "]";
    }
}
