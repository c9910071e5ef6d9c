package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * musl's {@code pthread_mutex_t} on a 40-byte block of off-heap memory ({@link MutexLayout}):
 * NORMAL, RECURSIVE and ERRORCHECK mutexes, process-private or process-shared, stalled or
 * robust. Every method returns an errno as musl does; the uncontended paths make no futex
 * call and allocate nothing.
 *
 * <h2>Implementation overview</h2>
 *
 * <p>The mutex is two words and a few helpers. {@code _m_lock} is the lock and the futex.
 * A NORMAL mutex (no owner tracking) holds {@code 0} when free and {@code EBUSY} (16) when
 * locked, so {@code trylock} can return its CAS witness masked with 16. Every other mutex is
 * <em>owner-tracked</em> and its word has the kernel's robust-futex shape: bits 0-29 the
 * owner's thread id, bit 30 {@code OWNER_DIED}, bit 31 {@code WAITERS}:
 *
 * <pre>
 *   0                       free
 *   tid                     held by tid (bit 31 added when someone may sleep)
 *   0x40000000              owner died holding it; robust: the next locker gets EOWNERDEAD,
 *                           not robust: locked for ever
 *   tid | 0x40000000        held by tid after EOWNERDEAD, inconsistent until consistent()
 *   0x7fffffff              unlocked while inconsistent: ENOTRECOVERABLE for ever
 * </pre>
 *
 * <p>{@code _m_waiters} counts the threads in the sleeping phase of a lock. Lock is: one CAS
 * (0 to 16, or 0 to tid); on failure a bounded spin (musl: 100 {@code onSpinWait}s; here at
 * most {@code Backoff.PAUSES}, 1000, testing the word after 1, 2, 4 ... up to 64 of them, see
 * {@code Backoff}) that runs only while the word is busy and nobody sleeps (so a newcomer does
 * not overtake queued sleepers), and ends without a steal when the holder keeps taking the lock
 * back (then, untimed, a poll: see below); then a loop of: count myself in {@code _m_waiters},
 * CAS bit 31 into the value I saw, sleep on the futex while the word holds exactly that value,
 * count myself out, retry (musl's rule; under the bit rule the CAS and the sleep are one
 * set-bit-and-wait on any busy value, see "Sleeping on a busy word" below).
 * Unlock swaps the word to 0 and wakes one sleeper if the swapped-out value had bit 31 or (musl's
 * rule, see below) if {@code _m_waiters}, read before the swap, was nonzero.
 *
 * <p>The races this closes (docs/sources.md, "musl: the mutex"):
 * <ul>
 * <li><b>Lost wake-up.</b> A sleeper passes the exact value it saw, bit 31 included, to the
 *     futex wait, which compares and sleeps atomically with respect to wakes. An unlock that
 *     lands between the sleeper's look and its sleep changes the word, so the wait returns at
 *     once and the sleeper retries.</li>
 * <li><b>Why both a bit and a count.</b> A new owner's plain CAS from 0 drops bit 31 while
 *     others still sleep. musl's rule lets the count carry "someone sleeps" across it: unlock
 *     wakes whenever {@code _m_waiters} is nonzero. The count alone is not enough because
 *     unlock samples it <em>before</em> releasing: a sleeper that arrives after the sample
 *     either sets bit 31 before the swap (the swap returns it: wake) or fails its CAS after it
 *     (its wait returns at once).</li>
 * <li><b>The bit rule</b> (process-private mutexes). musl's rule wakes on every unlock while
 *     anyone is counted, also in the tens of microseconds between a wake and the woken thread's
 *     first run, when nobody sleeps to take it. Private mutexes wake only when bit 31 was set,
 *     and keep the bit true instead: a thread acquiring after a sleep while
 *     {@code _m_waiters} is nonzero records bit 31 with its CAS (a thread that has not slept
 *     took no wake and records nothing); a sleeper leaving without the
 *     lock (timeout, interrupt) while others are counted wakes one of them, since it may have
 *     taken the wake that carried the bit; a condvar waiter requeued onto the mutex relocks
 *     through the sleeping loop. So a plain locker's CAS from 0 drops the bit only while a woken
 *     thread is on its way to put it back. Process-shared and robust mutexes keep musl's rule,
 *     because a musl C process may share the word; {@value #COUNT_WAKES_PROPERTY}{@code =true}
 *     gives it to private ones too.</li>
 * <li><b>Sleeping on a busy word</b> (bit rule). A sleeper does not wait on the exact value it
 *     saw: a word that changes at every lock and unlock of the running threads would turn that
 *     wait away again and again (measured: most waits of 4 threads on 2 cores returned at once).
 *     It calls {@link Futex#setBitWait}: set bit 31 into whatever busy value the word holds and
 *     sleep, atomically on the parking backend. A thread that has not slept in this lock also
 *     <em>joins</em> sleepers already queued there, whatever the word holds, as a newcomer to a
 *     {@code java.util.concurrent} lock parks behind its queue; a woken thread never joins, it
 *     re-arms the bit (the wake chain above), which is what makes joining safe.</li>
 * <li><b>Sleeping on a word of its own</b> (bit rule, kernel backends). The kernel's wait
 *     compares one exact value, so a set-bit-and-wait composed from a CAS and a wait on the lock
 *     word is turned away whenever the word moved in the microsecond before the sleep, and each
 *     attempt costs the holder a wake syscall (measured, 4 threads on 2 cores: about 340,000
 *     waits a second returned at once, about 1,000 slept). There, sleepers wait on
 *     {@link MutexLayout#SEQ} instead, a word that moves only when a wake is due: read it, set
 *     bit 31 into the busy lock word, wait while it is unchanged; an unlock that finds bit 31,
 *     still holding, takes the bit out, <em>then</em> moves the sequence, then releases and
 *     wakes ({@link SeqSleep}, proved by {@code MutexSeqSleepTest} and jcstress
 *     {@code MutexBitRuleTest}). A condvar requeues its
 *     waiters onto that word too ({@link #sleepOffset()}).</li>
 * <li><b>A woken thread that loses the race polls</b> (bit rule, untimed locks). A woken
 *     thread that finds the lock taken again would re-arm bit 31 at once, and the holder's next
 *     unlock, a few nanoseconds later, would wake another sleeper, who mostly loses the race too:
 *     with 4 threads on 2 cores the wake went round the sleepers without end, each costing the
 *     holder a wake and keeping a second CPU busy. Instead it polls first: up to
 *     {@link #POLLS} timed waits of {@link #POLL_NANOS} on the word it saw (the wake sequence on
 *     the kernel backends), without the bit, each followed by a {@code trylock} that records the
 *     bit. The sleepers behind it stay asleep and the holder's unlocks stay single CASes; the
 *     poller is still the woken thread the bit rule counts on, so it either acquires (recording
 *     the bit for them), or, the polls spent, sleeps with the bit, or, interrupted, passes its
 *     wake on. A lock released for good is seen within one poll. {@value #POLLS_PROPERTY}{@code =0}
 *     turns it off.</li>
 * <li><b>A locker that meets a holder relocking polls</b> (every mutex, untimed locks). musl's
 *     spin takes the first free word it sees; when the holder freed it only between two of its own
 *     locks, that steals it from a running thread that wants it back at once, which then spins
 *     and steals it back: two CPUs passing the lock's line at every round (seed 000's stress, 4
 *     threads on 2 cores: 300,000-500,000 changes of owner a second, against 5,000-25,000 for
 *     {@code ReentrantLock}). Here the spin looks at a free word twice more before it ends on it
 *     and stops after two relocks ({@code Backoff}); the thread then makes up to {@link #POLLS}
 *     plain timed sleeps, from {@link #POLL_NANOS} doubling up to 8 times that, each followed
 *     by a {@code trylock} that records nothing, before its first sleep. The poller is neither
 *     counted in {@code _m_waiters} nor on a futex queue and sets no bit, so the holder's unlocks
 *     owe it no wake (under musl's rule an unlock wakes while anyone is counted; on the kernel
 *     backends the holder's next unlock claimed the bit of a fresh sleeper before it was inside
 *     its wait), and it takes no wake meant for a sleeper, a musl C process's among them: to the
 *     protocol it is a thread still in musl's {@code a_spin}, and having taken no wake it owes
 *     none. A condvar waiter's relock
 *     ({@link #relock()}) keeps musl's spin, which takes the first free word: it meets a signaler
 *     about to release. {@code pthread4j.spin.relocks=0} restores musl's spin and the sleep at
 *     once everywhere.</li>
 * <li><b>Destroy after unlock.</b> Unlock reads and writes everything it needs before its
 *     releasing swap (a CAS on the wake-sequence path, after the sequence moved) and afterwards
 *     touches nothing but the futex wake, which never reads the memory; so another thread may
 *     lock, unlock, destroy and free the mutex the moment the release lands (POSIX allows
 *     exactly that).</li>
 * </ul>
 * Every word access is volatile (musl treats each atomic as a full barrier), so the swap of
 * an unlock cannot pass its own earlier read of {@code _m_waiters}.
 *
 * <h2>Owners and threads</h2>
 *
 * <p>The owner id is {@link ThreadIds#current()}: the kernel tid for a platform thread, an id
 * from 2^29 up (never a kernel tid) for a virtual thread. NORMAL, RECURSIVE and ERRORCHECK
 * process-private mutexes work on virtual threads; with the parking backend (the default) a
 * blocked virtual thread unmounts and frees its carrier, with the kernel backend it pins the
 * carrier while it sleeps. Robust mutexes, and owner-tracked process-shared mutexes, need the
 * kernel tid as owner (it is what the kernel compares when a thread dies, and a virtual id
 * means nothing in another process): their {@code lock}, {@code trylock} and
 * {@code timedlock} throw {@link UnsupportedOperationException} on a virtual thread.
 * A process-shared NORMAL mutex works on a virtual thread, pinning the carrier while asleep.
 *
 * <h2>Robustness: the kernel robust list</h2>
 *
 * <p>A robust mutex (and, as in musl, every owner-tracked process-shared mutex) is linked,
 * while held, into its owner thread's kernel robust list ({@code set_robust_list(2)}), through
 * {@code _m_next}/{@code _m_prev} exactly as musl's trylock and unlock link it, with
 * {@code list_op_pending} set around the lock's CAS and the unlock's swap. Each platform
 * thread registers its own list head (24 bytes of native memory that is never freed) the first
 * time it locks such a mutex. When the thread's native thread exits (a Java platform thread
 * ends) or its process dies, even by {@code kill -9}, the kernel walks the list: in every
 * word still naming the thread it clears the owner, sets {@code OWNER_DIED} (keeping bit 31),
 * and if bit 31 was set wakes one sleeper with a <em>shared</em> futex wake. The next
 * {@code lock}, or the sleeper woken, then acquires with {@link Errno#EOWNERDEAD}; it calls
 * {@link #consistent()} and {@link #unlock()} to return the mutex to normal, or unlocks
 * without it, making the mutex {@link Errno#ENOTRECOVERABLE} for everyone.
 *
 * <p>Because that kernel wake is shared, a robust mutex always sleeps in the kernel with
 * shared futex operations ({@code priv} false), even when process-private; and a lock
 * records bit 31 on acquiring whenever {@code _m_waiters} is nonzero, so the kernel knows to
 * wake. musl did exactly this in 2014 (commit bc09d58c forced robust mutexes to be
 * process-shared) until it walked the list itself in {@code pthread_exit} (b092f1c5), which a
 * Java thread cannot do: the JVM offers no hook that runs when a thread ends.
 *
 * <p>Limits of this mechanism:
 * <ul>
 * <li>The kernel keeps one list head per thread, and glibc registered its own for every JVM
 *     thread. This list takes the kernel's head only while it holds a mutex and gives glibc's
 *     back when it empties ({@code RobustList}), so a glibc robust mutex that native code holds
 *     on the thread is recovered unless the thread holds one of these at its death too. Each
 *     switch is a {@code set_robust_list} call: a lock and unlock that leave the thread's list
 *     empty cost two (see {@code docs/07-robust-and-shared.md}).</li>
 * <li>The mark happens when the native thread exits, a moment after {@link Thread#join()}
 *     returns: a {@code trylock} right after the join may still answer EBUSY; a {@code lock}
 *     sleeps until the kernel marks the word and wakes it.</li>
 * <li>The kernel marks at most 2048 mutexes of a thread ({@code ROBUST_LIST_LIMIT}), so a thread
 *     that holds 2048 gets EAGAIN from a lock of another instead of a lock the kernel would
 *     not recover (musl and glibc take it and lose its recovery in silence).</li>
 * <li>A robust mutex must be locked and unlocked through the same mapping of its memory; one
 *     locked through another mapping is unlinked lazily. Closing memory that holds a locked
 *     robust mutex is an error, as freeing a locked mutex is in C.</li>
 * <li>Owner-tracked process-private mutexes that are not robust are not on the list: if the
 *     owner dies they stay locked for ever, as in musl ({@code lock} blocks, {@code timedlock}
 *     answers ETIMEDOUT, {@code trylock} EBUSY). Their word keeps the dead owner's id; should
 *     Linux give that tid to a new thread, that thread would be taken for the owner (musl
 *     prevents this by walking the list at thread exit; this library cannot). A NORMAL mutex
 *     has no owner and simply stays locked.</li>
 * </ul>
 *
 * <h2>Backends</h2>
 *
 * <p>A process-private, non-robust mutex sleeps on {@link MutexAttr#futex()} or
 * {@link Futexes#defaultPrivate()} with the private flag; a process-shared or robust one on
 * {@link Futexes#shared()} (or the attributes' backend, which must serve shared words)
 * without it. All views of one private mutex must use the same backend, or a waker and a
 * sleeper do not meet.
 *
 * <h2>Differences from musl</h2>
 * <ul>
 * <li>Priority inheritance (type bit 8) is not supported; {@link #attach} refuses it.</li>
 * <li>Process-private mutexes wake by the bit rule and sleep by set-bit-and-wait (above). With
 *     seed 000's stress at 4 threads on 2 cores the bit rule gave 0.26-0.36x
 *     {@code ReentrantLock}'s throughput where musl's rule gave 0.16-0.17x
 *     ({@code ./pthread4j bench lock --threads 2,4}, same runs); set-bit-and-wait with joining
 *     raised it to 0.77-0.83x on the parking backend ({@code ./pthread4j bench lock}, two runs;
 *     JMH {@code MutexBenchmark -t 4}: 0.67-0.69x). On the kernel backends they sleep on the
 *     wake sequence {@link MutexLayout#SEQ} (a word musl leaves unused): 0.24-0.25x before,
 *     0.34-0.40x after ({@code ./pthread4j bench lock}, linux and linux-noprivate, 4 threads, five runs).</li>
 * <li>The spin ends without a steal when the holder keeps relocking, and the locker then polls
 *     uncounted before its first sleep (above); musl takes the first free word and sleeps at
 *     once. Seed 000's stress, 4 threads on 2 cores, three runs alternated with
 *     the build before ({@code ./pthread4j bench lock cond ipc --threads 2,4}): parking 0.35-0.74x
 *     {@code ReentrantLock} to 1.01-1.02x, linux 0.33-0.46x to 1.02-1.04x, process-shared
 *     0.26-0.27x to 0.94-1.02x; 2 threads 0.45-1.71x to 1.67-2.01x. A condvar waiter relocks
 *     with musl's spin ({@link #relock()}).</li>
 * <li>An unlock that makes a robust mutex unrecoverable wakes every sleeper (musl wakes one,
 *     which leaves the others asleep for ever); each then returns ENOTRECOVERABLE.</li>
 * <li>{@link #timedLock(int, Timespec, boolean)} takes a clock and can be interruptible.</li>
 * </ul>
 *
 * <p>Memory consistency: actions of a thread before {@code unlock} happen-before the actions
 * of a thread after a later successful {@code lock}, {@code trylock} or {@code timedlock}
 * (result 0 or EOWNERDEAD) of the same mutex, in this process or, through shared memory, in
 * another.
 *
 * <p>See {@code docs/02-mutex.md}: the words, the states, the races and the tests that prove them.
 */
public final class Mutex {
    /**
     * The property that gives process-private mutexes musl's exact wake rule (an unlock wakes
     * when {@code _m_waiters} is nonzero or bit 31 was set) instead of the bit rule; see
     * "Differences from musl" in the class overview.
     */
    public static final String COUNT_WAKES_PROPERTY = "pthread4j.mutex.countWakes";

    /** {@value #COUNT_WAKES_PROPERTY}: whether private mutexes wake as musl does. */
    static final boolean COUNT_WAKES = Boolean.getBoolean(COUNT_WAKES_PROPERTY);

    /** The property that sets {@link #POLLS}. */
    public static final String POLLS_PROPERTY = "pthread4j.mutex.polls";

    /** The property that sets {@link #POLL_NANOS}. */
    public static final String POLL_NANOS_PROPERTY = "pthread4j.mutex.pollNanos";

    /**
     * How many timed waits a woken thread that finds the lock taken makes before it sleeps with
     * bit 31 (bit rule, untimed locks; 0: it re-arms the bit at once); and how many plain timed
     * sleeps an untimed locker whose spin saw the holder take the lock back at once makes before
     * its first sleep (0: it sleeps at once). Default 20.
     */
    public static final int POLLS = Math.max(0, Integer.getInteger(POLLS_PROPERTY, 20));

    /**
     * How long each of a woken thread's waits lasts, and the first sleep of a locker's poll
     * (doubling up to 8 times this), in nanoseconds: default 50,000 (50 µs); a setting is held
     * to 1 ns - 1 s, so a deadline computed from it cannot overflow.
     */
    public static final long POLL_NANOS = Math.min(1_000_000_000L, Math.max(1, Long.getLong(POLL_NANOS_PROPERTY, 50_000L)));

    private static final VarHandle INT = Block.INT;
    private static final long TYPE = MutexLayout.TYPE;
    private static final long LOCK = MutexLayout.LOCK;
    private static final long WAITERS = MutexLayout.WAITERS;
    private static final long COUNT = MutexLayout.COUNT;
    private static final long SEQ = MutexLayout.SEQ;
    private static final int OWNER_MASK = MutexLayout.OWNER_MASK;
    private static final int OWNER_DIED = MutexLayout.OWNER_DIED;
    private static final int WAITERS_BIT = MutexLayout.WAITERS_BIT;
    private static final int EBUSY = Errno.EBUSY;

    /** What {@link #state()} reports. */
    public enum State {
        /** Not held. */
        FREE,
        /** Held (by {@link #ownerId()} when owner-tracked). */
        LOCKED,
        /**
         * The owner died holding it: either not yet claimed (robust: the next locker gets
         * EOWNERDEAD; not robust: locked for ever), or claimed with EOWNERDEAD and not yet
         * made consistent.
         */
        OWNER_DIED,
        /** Unlocked while inconsistent: every lock answers ENOTRECOVERABLE. */
        UNRECOVERABLE
    }

    private final Block block;
    private final MemorySegment seg;
    /** {@code _m_type}, cached: musl writes it only at init. */
    private final int type;
    private final int kind;
    /** Anything but a plain NORMAL mutex: {@code (type & 15) != 0}. */
    private final boolean tracked;
    private final boolean robust;
    /** On the owner's kernel robust list while held: robust, or owner-tracked and process-shared. */
    private final boolean linked;
    private final boolean priv;
    /**
     * musl's wake rule: unlock wakes when {@code _m_waiters} is nonzero or bit 31 was set.
     * Process-shared and robust mutexes always use it (a musl process may share the word);
     * process-private ones use the bit rule unless {@link #COUNT_WAKES}.
     */
    private final boolean countWakes;
    /**
     * Sleepers wait on {@code SEQ}, not on {@code _m_lock}: the bit rule on a backend whose
     * set-bit-and-wait is not atomic (see "Sleeping on a word of its own" in the overview).
     */
    private final boolean seqSleep;
    private final Futex futex;
    private final MutexAttr attr;

    /**
     * Initializes a mutex in {@code block}, like {@code pthread_mutex_init}
     * ({@code pthread_mutex_init.c}): zeroes its 40 bytes and stores the type word. Initializing
     * a mutex that some thread uses is an error, as in C.
     *
     * @param block the block: at least {@link MutexLayout#SIZE} bytes, 8-byte aligned
     * @param attr  the attributes ({@link MutexAttr#DEFAULT} for a NORMAL private mutex)
     * @throws IllegalArgumentException when the block is too small or misaligned
     */
    public Mutex(final Block block, final MutexAttr attr) {
        this(block, Objects.requireNonNull(attr, "attr"), attr.bits(), attr.futex(), true);
    }

    private Mutex(final Block block, final MutexAttr attr, final int type, final Futex requested, final boolean init) {
        MutexLayout.checkBlock(Objects.requireNonNull(block, "block"));
        MutexLayout.checkType(type);
        this.block = block;
        this.seg = block.segment();
        this.type = type;
        this.kind = type & MutexLayout.KIND_MASK;
        this.tracked = (type & MutexLayout.OWNER_TRACKED_MASK) != 0;
        this.robust = (type & MutexLayout.ROBUST) != 0;
        final boolean shared = robust || (type & MutexLayout.PSHARED) != 0;
        this.linked = robust || (tracked && (type & MutexLayout.PSHARED) != 0);
        this.priv = !shared;
        this.countWakes = shared || COUNT_WAKES;
        if (shared) {
            if (requested != null && !requested.supportsShared()) {
                throw new IllegalArgumentException("backend " + requested.name()
                    + " cannot serve the shared futex operations of a " + (robust ? "robust" : "process-shared")
                    + " mutex");
            }
            this.futex = requested != null ? requested : Futexes.shared();
        } else {
            this.futex = requested != null ? requested : Futexes.defaultPrivate();
        }
        this.seqSleep = !countWakes && !futex.atomicSetBitWait();
        this.attr = attr != null ? attr : MutexAttr.ofBits(type, requested);
        if (init) {
            seg.asSlice(0, MutexLayout.SIZE).fill((byte) 0);
            INT.setVolatile(seg, TYPE, type);
        }
    }

    /**
     * A view of a mutex initialized elsewhere (by another process through a mapped file, or
     * by another view): reads and validates {@code _m_type} and the words that must agree with
     * it, changes nothing. An all-zero block is a valid NORMAL private mutex (musl's
     * {@code PTHREAD_MUTEX_INITIALIZER}). A private mutex gets
     * {@link Futexes#defaultPrivate()}; see {@link #attach(Block, Futex)}.
     *
     * @param block the block holding the mutex
     * @return the view
     * @throws IllegalArgumentException when the block is too small, misaligned, or does not
     *                                  hold a mutex: an unknown type word, a NORMAL lock word
     *                                  other than 0 / EBUSY (with or without bit 31), a
     *                                  negative waiter or recursion count
     */
    public static Mutex attach(final Block block) {
        return attach(block, null);
    }

    /**
     * {@link #attach(Block)} with a chosen backend (which must be the one every other view of a
     * private mutex uses, and serve shared words for a shared or robust one).
     *
     * @param block the block holding the mutex
     * @param futex the backend, or {@code null} for the default
     * @return the view
     * @throws IllegalArgumentException as {@link #attach(Block)}, or for a backend that cannot
     *                                  serve a shared or robust mutex
     */
    public static Mutex attach(final Block block, final Futex futex) {
        MutexLayout.checkBlock(Objects.requireNonNull(block, "block"));
        final int type = block.get(TYPE);
        MutexLayout.checkType(type);
        final int lock = block.get(LOCK);
        if ((type & MutexLayout.OWNER_TRACKED_MASK) == 0 && (lock & ~WAITERS_BIT) != 0 && (lock & ~WAITERS_BIT) != EBUSY) {
            throw new IllegalArgumentException("not a mutex: a NORMAL mutex's lock word is 0 or EBUSY, "
                + block + " holds 0x" + Integer.toHexString(lock));
        }
        if (block.get(WAITERS) < 0 || block.get(COUNT) < 0) {
            throw new IllegalArgumentException("not a mutex: negative waiter count " + block.get(WAITERS)
                + " or recursion count " + block.get(COUNT) + " in " + block);
        }
        return new Mutex(block, null, type, futex, false);
    }

    // ---------------------------------------------------------------------------------------
    // lock, trylock, timedlock: pthread_mutex_lock.c, pthread_mutex_trylock.c,
    // pthread_mutex_timedlock.c

    /**
     * Locks, sleeping as long as needed ({@code pthread_mutex_lock.c}). Not interruptible: an
     * interrupt is kept and left set.
     *
     * <p>Memory effects: a result of 0 or EOWNERDEAD has the effects of acquiring the lock.
     *
     * @return 0; EOWNERDEAD (robust: acquired, the previous owner died; call
     *     {@link #consistent()}); ENOTRECOVERABLE (robust, unrecoverable; not acquired);
     *     EDEADLK (ERRORCHECK relock by the owner); EAGAIN (RECURSIVE count would pass
     *     {@code Integer.MAX_VALUE}; or a robust or owner-tracked process-shared mutex, and the
     *     calling thread already holds 2048 such, the most the kernel marks when a thread dies:
     *     not acquired, and without sleeping). A NORMAL mutex relocked by its owner deadlocks, as
     *     POSIX specifies.
     * @throws UnsupportedOperationException on a virtual thread, for a robust or owner-tracked
     *                                       process-shared mutex
     */
    public int lock() {
        return lock(Backoff.RELOCKS);
    }

    /**
     * Relocks after a condvar wait ({@link Cond}): {@link #lock()}, except that the spin takes the
     * first free word, as musl's does. The waiter was signaled (or gave up) and meets a signaler
     * about to release the mutex: a handoff, where taking the word between the signaler's unlock
     * and its next lock is what lets the turn pass (seed 002's ping-pong: a waiter that waited out
     * such relocks instead ran 0.6x as many round trips, between processes too).
     *
     * @return as {@link #lock()}
     */
    int relock() {
        return lock(0);
    }

    /** {@link #lock()}, with the spin ending after {@code relocks} relocks (0: at the first free word). */
    private int lock(final int relocks) {
        if (tryLockFree() == 0) {
            return 0;
        }
        return lockSlow(Timespec.CLOCK_REALTIME, null, false, false, relocks);
    }

    /**
     * The first step of {@link #lock()} alone: one CAS that takes a free word, and nothing else
     * (not a relock by the owner, not a mutex on the kernel robust list, whose acquisition links
     * the list: both answer EBUSY with nothing done). For a caller that does something of its own
     * before the rest of a lock: the {@code java.util.concurrent} adapter tries this, then
     * {@link #tryLock()}, and times only the {@link #lock()} that follows when both failed.
     *
     * <p>Memory effects: a result of 0 has the effects of acquiring the lock.
     *
     * @return 0 (acquired) or EBUSY (nothing done)
     */
    public int tryLockFree() {
        if (!tracked) {
            return (int) INT.compareAndExchange(seg, LOCK, 0, EBUSY) == 0 ? 0 : EBUSY;
        }
        // The first step of musl's trylock_owner when the word is 0: a plain CAS to tid.
        return !linked && (int) INT.compareAndExchange(seg, LOCK, 0, self().tid) == 0 ? 0 : EBUSY;
    }

    /**
     * {@link #lock()} that gives up when the thread is interrupted, on entry or while asleep.
     * The interrupt status is left set.
     *
     * @return as {@link #lock()}, or EINTR (not acquired)
     * @throws UnsupportedOperationException as {@link #lock()}
     */
    public int lockInterruptibly() {
        return timedLock(Timespec.CLOCK_REALTIME, null, true);
    }

    /**
     * Locks if that needs no waiting ({@code pthread_mutex_trylock.c}).
     *
     * <p>Memory effects: a result of 0 or EOWNERDEAD has the effects of acquiring the lock.
     *
     * @return 0; EBUSY (held by another thread, or by the caller for NORMAL/ERRORCHECK, or a
     *     non-robust mutex whose owner died); EOWNERDEAD; ENOTRECOVERABLE; EAGAIN (RECURSIVE
     *     count overflow, or 2048 robust mutexes held, as {@link #lock()})
     * @throws UnsupportedOperationException as {@link #lock()}
     */
    public int tryLock() {
        if (!tracked) {
            return (int) INT.compareAndExchange(seg, LOCK, 0, EBUSY) & EBUSY;
        }
        final Self self = self();
        return trylockOwner(self.tid, linked ? self.robust() : null, 0);
    }

    /**
     * Locks, sleeping until {@code abs} on CLOCK_REALTIME at the latest
     * ({@code pthread_mutex_timedlock.c}). The deadline is only looked at if the call has to
     * sleep: a free mutex is acquired even with an invalid one.
     *
     * @param abs the absolute deadline on CLOCK_REALTIME, or {@code null} for none
     * @return as {@link #lock()}, or ETIMEDOUT (not acquired), or EINVAL (the call had to sleep
     *     and {@code abs.nsec()} is outside {@code [0, 1e9)})
     * @throws UnsupportedOperationException as {@link #lock()}
     */
    public int timedLock(final Timespec abs) {
        return timedLock(Timespec.CLOCK_REALTIME, abs, false);
    }

    /**
     * Locks with a deadline on a chosen clock, optionally interruptible.
     *
     * @param clock         {@link Timespec#CLOCK_REALTIME} or {@link Timespec#CLOCK_MONOTONIC}
     * @param abs           the absolute deadline on {@code clock}, or {@code null} for none
     * @param interruptible whether an interrupt (already set on entry, or arriving while asleep)
     *                      ends the call with EINTR
     * @return as {@link #timedLock(Timespec)}, or EINTR (not acquired), or EINVAL for an unknown
     *     clock when the call had to sleep
     * @throws UnsupportedOperationException as {@link #lock()}
     */
    public int timedLock(final int clock, final Timespec abs, final boolean interruptible) {
        if (interruptible && Thread.currentThread().isInterrupted()) {
            return Errno.EINTR;
        }
        if (!tracked && (int) INT.compareAndExchange(seg, LOCK, 0, EBUSY) == 0) {
            return 0;
        }
        return lockSlow(clock, abs, interruptible, false, Backoff.RELOCKS);
    }

    /**
     * The body of musl's {@code __pthread_mutex_timedlock} after its fast path.
     *
     * @param woken   whether the caller slept on the mutex's word already (a requeued condvar
     *                waiter): its first {@code trylock} records bit 31 while others are counted
     * @param relocks the relocks that end the spin ({@link Backoff#whileNonzero}); 0 for a
     *                condvar waiter's relock, whose spin takes the first free word
     */
    private int lockSlow(final int clock, final Timespec abs, final boolean interruptible, final boolean woken,
                         final int relocks) {
        final Self me = tracked ? self() : null;
        final RobustList self = linked ? me.robust() : null;
        final int tid = tracked ? me.tid : 0;
        boolean slept = woken;
        int r = tryLock(tid, self, slept);
        if (r != EBUSY) {
            return r;
        }
        // musl: spin 100 times while the word is busy and nobody sleeps; here with backoff, and
        // ending early when the holder keeps taking the lock back (Backoff). Then, untimed, this
        // thread polls uncounted before its first sleep (class overview).
        if (Backoff.whileNonzero(seg, LOCK, WAITERS, relocks) && abs == null && POLLS > 0) {
            r = Backoff.pollUncounted(this, interruptible, () -> tryLock(tid, self, false));
            if (r != EBUSY) {
                return r;
            }
        }
        while ((r = tryLock(tid, self, slept)) == EBUSY) {
            r = (int) INT.getVolatile(seg, LOCK);
            final int own = r & OWNER_MASK;
            if (own == 0 && (r == 0 || robust)) {
                continue;
            }
            if (kind == MutexLayout.ERRORCHECK && own == tid) {
                return Errno.EDEADLK;
            }
            INT.getAndAdd(seg, WAITERS, 1);
            // musl: a_cas(r -> r | bit), then wait on r | bit. Here one set-and-wait (seed 000's
            // FUTEX_SET_WAIT), which backends without it compose from exactly that CAS and wait;
            // the parking backend sets the bit and queues the sleeper under its bucket lock, so
            // an unlock that sees the bit always finds the sleeper to wake.
            //
            // Bit rule: the sleep sets the bit in whatever busy value the word holds by then (a
            // word that changes at every lock and unlock of the running threads would turn an
            // exact-value sleep away again and again), and a thread that has not slept joins the
            // sleepers already queued, whatever the word holds, as a newcomer to
            // java.util.concurrent's locks parks behind their queue. The wake chain that makes
            // joining safe: each woken thread re-arms the bit, by acquiring (trylock's mark) or
            // by going back to sleep (never joining), so while any sleeper is counted, one is
            // woken after another.
            final int e = countWakes ? futex.setWait(seg, LOCK, r, r | WAITERS_BIT, priv, clock, abs, interruptible)
                : seqSleep ? SeqSleep.await(futex, seg, LOCK, SEQ, 1, priv, clock, abs, interruptible)
                : futex.setBitWait(seg, LOCK, WAITERS_BIT, 1, !slept, priv, clock, abs, interruptible);
            INT.getAndAdd(seg, WAITERS, -1);
            if (e == Errno.ETIMEDOUT || e == Errno.EINVAL || (e == Errno.EINTR && interruptible)) {
                // Bit rule: this thread may have taken the wake meant to carry bit 31 to the
                // others; leaving without the lock, it passes that wake on.
                if (!countWakes && (int) INT.getVolatile(seg, WAITERS) != 0) {
                    SeqSleep.passWake(futex, seg, LOCK, SEQ, seqSleep, priv);
                }
                return e;
            }
            // EAGAIN: this thread did not sleep, so it took no wake and stays free to join.
            slept |= e == 0;
            if (e == 0 && !countWakes && abs == null && POLLS > 0) {
                r = SeqSleep.poll(futex, seg, LOCK, SEQ, seqSleep, WAITERS, priv, OWNER_MASK, 1, interruptible,
                    () -> tryLock(tid, self, true));
                if (r != EBUSY) {
                    return r;
                }
            }
        }
        return r;
    }

    /**
     * The releasing step of a {@link #seqSleep} mutex ({@link SeqSleep}), from {@code w}, the word
     * as the holder last read it, to 0. While bit 31 is set, the holder first takes it out
     * ({@link SeqSleep#claim}), then moves the sequence, then releases; each step while it still
     * holds the mutex, so unlock touches nothing of the mutex after releasing it. A sleeper that
     * set the bit again after the claim makes the releasing CAS fail, and its bit gets a move of
     * its own. One wake follows: the woken thread re-arms the bit for any other (the bit rule).
     */
    private void releaseSeq(int w) {
        boolean moved = false;
        for (;;) {
            if (w < 0) {
                final int x = SeqSleep.claim(seg, LOCK, SEQ, w);
                if (x != w) {
                    w = x;
                    continue;
                }
                w &= Integer.MAX_VALUE;
                moved = true;
            }
            final int x = (int) INT.compareAndExchange(seg, LOCK, w, 0);
            if (x == w) {
                break;
            }
            w = x;
        }
        if (moved) {
            futex.wake(seg, SEQ, 1, priv);
        }
    }

    /**
     * Locks a mutex after sleeping on its word elsewhere: for a condvar waiter that was requeued
     * onto the mutex and woken by an unlock. Skips the fast path, so the acquisition records bit
     * 31 while others sleep (the bit rule; see the class overview); spins as {@link #relock()}.
     *
     * @return as {@link #lock()}
     */
    int lockWoken() {
        return lockSlow(Timespec.CLOCK_REALTIME, null, false, true, 0);
    }

    /**
     * The lock step of the sleeping loop: musl's trylock, except that under the bit rule an
     * acquisition made after a sleep while {@code _m_waiters} is nonzero records bit 31 (the
     * unlock that woke this thread took it away), so that its unlock wakes the next sleeper. A
     * thread that has not slept took no wake and records nothing.
     */
    private int tryLock(final int tid, final RobustList self, final boolean slept) {
        final int mark = slept && !countWakes && (int) INT.getVolatile(seg, WAITERS) != 0 ? WAITERS_BIT : 0;
        if (!tracked) {
            return (int) INT.compareAndExchange(seg, LOCK, 0, EBUSY | mark) & EBUSY;
        }
        return trylockOwner(tid, self, mark);
    }

    /**
     * musl's {@code __pthread_mutex_trylock_owner}, without the priority-inheritance parts.
     *
     * @param mark {@link MutexLayout#WAITERS_BIT} to record bit 31 with the acquisition (the bit
     *             rule), else 0
     */
    private int trylockOwner(final int tid, final RobustList self, final int mark) {
        final int old = (int) INT.getVolatile(seg, LOCK);
        final int own = old & OWNER_MASK;
        if (own == tid && kind == MutexLayout.RECURSIVE) {
            final int count = (int) INT.get(seg, COUNT);
            if (Integer.compareUnsigned(count, Integer.MAX_VALUE) >= 0) {
                return Errno.EAGAIN;
            }
            INT.set(seg, COUNT, count + 1);
            return 0;
        }
        if (own == OWNER_MASK) {
            return Errno.ENOTRECOVERABLE;
        }
        if (self != null && own != tid && self.isFull()) {
            return Errno.EAGAIN; // the kernel would not mark it at this thread's death (RobustList.LIMIT)
        }
        if (own != 0 || (old != 0 && !robust)) {
            return EBUSY;
        }
        if (self == null) {
            return (int) INT.compareAndExchange(seg, LOCK, old, tid | mark) == old ? 0 : EBUSY;
        }
        // Linked: the kernel must see bit 31 to wake a sleeper when this owner dies.
        int next = tid | (old & OWNER_DIED);
        if ((int) INT.getVolatile(seg, WAITERS) != 0) {
            next |= WAITERS_BIT;
        }
        final long node = seg.address() + MutexLayout.NEXT;
        self.pending(node);
        if ((int) INT.compareAndExchange(seg, LOCK, old, next) != old) {
            self.pending(0);
            return EBUSY;
        }
        self.link(seg);
        if (old != 0) {
            INT.set(seg, COUNT, 0);
            return Errno.EOWNERDEAD;
        }
        return 0;
    }

    // ---------------------------------------------------------------------------------------
    // unlock: pthread_mutex_unlock.c

    /**
     * Unlocks ({@code pthread_mutex_unlock.c}). Reads everything it needs before the releasing
     * swap and afterwards only wakes the futex, so the mutex may be destroyed and its memory
     * freed by another thread as soon as it is acquired again.
     *
     * <p>Memory effects: actions before it happen-before a later acquisition of the mutex.
     *
     * @return 0; EPERM (owner-tracked kinds: the caller is not the owner, or it is not
     *     locked). A NORMAL mutex is not checked: any thread may unlock it. A robust mutex
     *     unlocked after EOWNERDEAD without {@link #consistent()} becomes unrecoverable.
     */
    public int unlock() {
        final int waiters = countWakes ? (int) INT.getVolatile(seg, WAITERS) : 0;
        if (tracked) {
            if (!linked && !countWakes) {
                // Bit rule, not on a robust list: when the word is exactly our tid (no bit 31)
                // and no recursion is pending, one CAS releases. The count is read first: it is
                // ours if the CAS succeeds, and the CAS fails for a non-owner.
                final int tid = self().tid;
                if ((kind != MutexLayout.RECURSIVE || (int) INT.get(seg, COUNT) == 0)
                    && (int) INT.compareAndExchange(seg, LOCK, tid, 0) == tid) {
                    return 0;
                }
            }
            return unlockOwner(waiters);
        }
        if (seqSleep) {
            releaseSeq(EBUSY);
            return 0;
        }
        final int cont = (int) INT.getAndSet(seg, LOCK, 0);
        if (waiters != 0 || cont < 0) {
            futex.wake(seg, LOCK, 1, priv);
        }
        return 0;
    }

    /** The owner-tracked part of musl's {@code __pthread_mutex_unlock}. */
    private int unlockOwner(final int waiters) {
        final int old = (int) INT.getVolatile(seg, LOCK);
        final Self self = self();
        if ((old & OWNER_MASK) != self.tid) {
            return Errno.EPERM;
        }
        if (kind == MutexLayout.RECURSIVE) {
            final int count = (int) INT.get(seg, COUNT);
            if (count != 0) {
                INT.set(seg, COUNT, count - 1);
                return 0;
            }
        }
        final int next = robust && (old & OWNER_DIED) != 0 ? MutexLayout.UNRECOVERABLE : 0;
        final RobustList list = linked ? self.robustOrNull() : null;
        if (list != null) {
            return unlockLinked(list, waiters, next);
        }
        if (seqSleep) {
            releaseSeq(old);
            return 0;
        }
        final int cont = (int) INT.getAndSet(seg, LOCK, next);
        if (waiters != 0 || cont < 0) {
            futex.wake(seg, LOCK, 1, priv);
        }
        return 0;
    }

    private int unlockLinked(final RobustList self, final int waiters, final int next) {
        self.pending(seg.address() + MutexLayout.NEXT);
        final boolean found = self.unlink(seg);
        final int cont = (int) INT.getAndSet(seg, LOCK, next);
        if (waiters != 0 || cont < 0) {
            futex.wake(seg, LOCK, next == MutexLayout.UNRECOVERABLE ? -1 : 1, priv);
        }
        // Unlike musl, list_op_pending is cleared only after the wake: a thread killed between
        // the releasing swap and the wake then still names this mutex, and the kernel's exit
        // walk, finding the word 0, issues the wake the dead thread owed (Linux's
        // handle_futex_death pending-op case). Clearing it first left a sleeper asleep for
        // ever in that window. The pending slot is our own memory, not the mutex's.
        self.pending(0);
        if (!found) {
            self.purge();
        }
        return 0;
    }

    // ---------------------------------------------------------------------------------------
    // consistent, destroy: pthread_mutex_consistent.c, pthread_mutex_destroy.c

    /**
     * Marks a robust mutex acquired with EOWNERDEAD consistent again
     * ({@code pthread_mutex_consistent.c}); the next unlock then frees it normally.
     *
     * @return 0; EINVAL (not robust, not locked, or not inconsistent); EPERM (the caller is not
     *     the owner; also for an unrecoverable mutex, whose owner field is nonzero)
     */
    public int consistent() {
        final int old = (int) INT.getVolatile(seg, LOCK);
        final int own = old & OWNER_MASK;
        if (!robust || own == 0 || (old & OWNER_DIED) == 0) {
            return Errno.EINVAL;
        }
        if (own != self().tid) {
            return Errno.EPERM;
        }
        INT.getAndBitwiseAnd(seg, LOCK, ~OWNER_DIED);
        return 0;
    }

    /**
     * {@code pthread_mutex_destroy.c}: nothing to release; the block may be reused or freed
     * once no thread uses the mutex.
     *
     * @return 0
     */
    public int destroy() {
        return 0;
    }

    /** The calling thread's identity ({@link Self#current()}: a table read, no thread-local lookup). */
    private static Self self() {
        return Self.current();
    }

    // ---------------------------------------------------------------------------------------
    // introspection

    /**
     * {@return the owner id in the lock word (a kernel tid, or a virtual thread's id from
     *     {@link ThreadIds}), 0 when free or when the owner died and nobody claimed it yet,
     *     0x3fffffff when unrecoverable; always 0 for a NORMAL mutex, which records no owner}
     */
    public int ownerId() {
        return tracked ? (int) INT.getVolatile(seg, LOCK) & OWNER_MASK : 0;
    }

    /** {@return whether the calling thread owns it; always false for a NORMAL mutex (no owner recorded)} */
    public boolean isHeldByCurrentThread() {
        return tracked && ((int) INT.getVolatile(seg, LOCK) & OWNER_MASK) == self().tid;
    }

    /** {@return the calling thread's holds: 0 if it does not own it, else 1 + the recursion count} */
    public int holdCount() {
        return isHeldByCurrentThread() ? (int) INT.getVolatile(seg, COUNT) + 1 : 0;
    }

    /** {@return {@code _m_waiters}: threads sleeping, or about to, in a lock} */
    public int waiterCount() {
        return (int) INT.getVolatile(seg, WAITERS);
    }

    /** {@return the state of the lock word} */
    public State state() {
        final int w = (int) INT.getVolatile(seg, LOCK);
        if (w == 0) {
            return State.FREE;
        }
        if (!tracked) {
            return State.LOCKED;
        }
        if ((w & OWNER_MASK) == OWNER_MASK) {
            return State.UNRECOVERABLE;
        }
        return (w & OWNER_DIED) != 0 ? State.OWNER_DIED : State.LOCKED;
    }

    /** {@return the attributes (for an attached mutex, decoded from {@code _m_type})} */
    public MutexAttr attr() {
        return attr;
    }

    /**
     * {@return {@code _m_type}, as {@link MutexAttr#bits()}: kind | {@link MutexLayout#ROBUST} |
     *     {@link MutexLayout#PSHARED} (the kind alone is {@code attr().type()})}
     */
    public int bits() {
        return type;
    }

    /** {@return whether the mutex is process-shared} */
    public boolean isPshared() {
        return (type & MutexLayout.PSHARED) != 0;
    }

    /** {@return the block the mutex lives in} */
    public Block block() {
        return block;
    }

    /**
     * {@return the offset in the block of the word its lock sleepers wait on (and a condvar
     *     requeues its waiters onto): {@link MutexLayout#SEQ} for a process-private mutex on a
     *     backend without an atomic set-bit-and-wait, else {@link MutexLayout#LOCK}}
     */
    public long sleepOffset() {
        return seqSleep ? SEQ : LOCK;
    }

    /**
     * The spin a requeued condvar waiter's relock makes (musl's relock would spin, woken with
     * {@code _m_waiters} still 0): while the word is busy, whatever the waiter count.
     */
    void spinWhileHeld() {
        Backoff.whileNonzero(seg, LOCK, -1, 0);
    }

    /** {@return the backend its lock word sleeps on} */
    public Futex futex() {
        return futex;
    }

    /** {@return musl's {@code priv}: whether futex calls on {@code _m_lock} carry the private flag} */
    boolean priv() {
        return priv;
    }

    @Override
    public String toString() {
        final int w = (int) INT.getVolatile(seg, LOCK);
        return "Mutex[" + attr + ", " + state() + ", lock=0x" + Integer.toHexString(w)
            + ", waiters=" + waiterCount() + ", " + futex.name() + "]";
    }
}
