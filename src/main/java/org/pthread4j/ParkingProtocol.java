package org.pthread4j;

import org.pthread4j.futex.Errno;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Timespec;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

/**
 * The parking protocol, for private lock words on the parking backend (see {@link Protocol}).
 * Nothing but this JVM can see such a word, so the protocol may depart from musl's where the
 * JVM's own futex table allows it; each departure below is kept because the lock benchmarks
 * need it ({@code docs/measurements.md}).
 *
 * <h2>Implementation overview</h2>
 *
 * <ul>
 * <li><b>The bit rule.</b> An unlock wakes only when the word it released had bit 31
 *     ({@link #waiters()} is 0): an unlock costs one atomic even while sleepers are counted, also
 *     in the tens of microseconds between a wake and the woken thread's first run. The bit is
 *     kept true by a chain: a thread that lost a turn (it slept, so it may have taken a wake)
 *     records bit 31 with its acquiring CAS while others are counted ({@link #mark}), or sleeps
 *     again, or, leaving without the lock, wakes another sleeper ({@link #passWake}). A thread
 *     leaves owing a wake only when it lost a turn and its last sleep did not put bit 31 into
 *     the word: a poll (below), or no sleep at all (an interrupt or a bad deadline seen before
 *     it queued). A set-bit sleep that ends in ETIMEDOUT or EINTR took no wake (the parking
 *     table reports a wake that raced the timeout as 0) and left the bit for the next unlock,
 *     so the thread leaves without waking anyone: a wake then would only make a sleeper poll a
 *     lock that is still held.</li>
 * <li><b>Set-bit-and-wait, joining.</b> A first sleep sets bit 31 into whatever busy value the
 *     word holds and queues the thread in one step under the parking table's bucket lock
 *     ({@link Futex#setBitWait}), so it is not turned away because the running threads keep
 *     changing the word, and an unlock that sees the bit always finds it queued. A thread that
 *     has lost no turn in this call also joins the sleepers already queued on the word whatever
 *     the word holds, as a newcomer to a {@code java.util.concurrent} lock parks behind its
 *     queue: by the chain above one of them will be woken after another.</li>
 * <li><b>A spin that does not steal from a holder that relocks.</b> Before its sleeping loop a
 *     thread looks at the word for up to {@link Tuning#spinNanos()} while nobody is counted and
 *     the word keeps it out, less often as it goes. A locker or a writer looks at a word seen
 *     free {@link #LOOKS} more times, {@link #SETTLE} pauses apart, before the spin ends on it,
 *     and the {@link #RELOCKS}th time the word was taken again meanwhile ends the spin: the
 *     caller lost its turn. Taking the word in the gap between a running holder's unlock and its
 *     next lock would steal it from a thread that wants it back at once, which then spins and
 *     steals it back: two CPUs passing the lock's line on every round. A reader (who shares the
 *     lock) and a condvar waiter relocking (who meets a signaler about to release: a handoff)
 *     take the first free word, as musl's spin does.</li>
 * <li><b>A thread that lost its turn sleeps without the bit, for a while.</b> A thread that
 *     finds the lock held again after a sleep, or whose spin saw the holder take it back, does
 *     not set bit 31, which would make the running holder's next unlock, a few nanoseconds
 *     later, wake it to lose again. It sleeps on the word counted but without the bit, for at
 *     most {@link Tuning#pollNanos()} (untimed locks; a timed one sets the bit). It is queued on
 *     the word like any sleeper, so any unlock that finds bit 31 wakes it (a thread that acquires
 *     after a lost turn records the bit, since this one is counted; a newcomer sets it); only a
 *     holder that took the lock without losing a turn and releases it for good leaves it to its
 *     timeout. It keeps the chain's duty: it acquires recording the bit, or sleeps again, or
 *     passes a wake on; it never joins.</li>
 * <li><b>The readers' chain</b> (rwlocks). A writer's unlock wakes one sleeper, not all
 *     ({@link #wakeCount}); a reader that gets in after a lost turn while others are counted
 *     passes a wake on ({@link #passWake}), so the readers asleep behind the writer come in one
 *     after another, as {@code ReentrantReadWriteLock}'s readers propagate their wake, and the
 *     writers among the sleepers are not woken as a herd only to sleep again. A writer the chain
 *     wakes finds readers in and sleeps again.</li>
 * </ul>
 */
final class ParkingProtocol extends Protocol {
    /** The spin ends at this many relocks: the word seen free, then taken again. */
    static final int RELOCKS = 2;
    /** The looks at a word seen free that must all find it free before the spin ends on it. */
    static final int LOOKS = 2;
    /** The pauses before each of those looks. */
    static final int SETTLE = 4;

    private final Tuning tuning;

    ParkingProtocol(final Futex futex, final MemorySegment seg, final long word, final long waiters,
                    final Tuning tuning) {
        super(futex, true, seg, word, waiters);
        this.tuning = tuning;
    }

    @Override
    SleepProtocol kind() {
        return SleepProtocol.PARKING;
    }

    @Override
    boolean spin(final int busy, final boolean yields) {
        final long start = System.nanoTime();
        int relocks = 0;
        for (int step = 1; counted() == 0 && System.nanoTime() - start < tuning.spinNanos(); step = pause(step)) {
            if (!keepsOut(busy)) {
                if (!yields || staysFree(busy)) {
                    return false;
                }
                if (++relocks == RELOCKS) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether the word, bit 31 aside, is at least {@code busy}: it keeps the caller out. */
    private boolean keepsOut(final int busy) {
        return Integer.compareUnsigned(get() & Integer.MAX_VALUE, busy) >= 0;
    }

    /** Whether a word seen free is still free at {@link #LOOKS} more looks, {@link #SETTLE} pauses apart. */
    private boolean staysFree(final int busy) {
        for (int i = 0; i < LOOKS; i++) {
            pause(SETTLE);
            if (keepsOut(busy)) {
                return false;
            }
        }
        return true;
    }

    /** Pauses {@code step} times; {@return the next step, twice this one, at most {@link Tuning#MAX_STEP}} */
    private static int pause(final int step) {
        for (int i = 0; i < step; i++) {
            Thread.onSpinWait();
        }
        return Math.min(step << 1, Tuning.MAX_STEP);
    }

    private int get() {
        return (int) Block.INT.getVolatile(seg, word);
    }

    /** The bit rule: an acquisition after a lost turn records bit 31 while others are counted. */
    @Override
    int mark(final int turns) {
        return turns > 0 && counted() != 0 ? WAITERS_BIT : 0;
    }

    @Override
    int sleep(final int seen, final int busy, final int turns, final int clock, final Timespec at,
              final boolean interruptible) {
        final boolean poll = turns > 0 && at == null;
        if (interruptible && Thread.currentThread().isInterrupted()) {
            // Leaves before queueing: a wake taken on an earlier turn was not passed on by a sleep with the bit.
            leave(turns > 0);
            return Errno.EINTR;
        }
        count(1);
        final int r;
        if (poll) {
            final Timespec until = Timespec.ofNanos(Timespec.nowNanos(Timespec.CLOCK_MONOTONIC) + tuning.pollNanos());
            final int e = futex.timedWait(seg, word, seen, true, Timespec.CLOCK_MONOTONIC, until, interruptible);
            r = e == Errno.ETIMEDOUT ? 0 : e;
        } else {
            r = futex.setBitWait(seg, word, WAITERS_BIT, busy, turns == 0, true, clock, at, interruptible);
        }
        count(-1);
        if (r != 0 && r != Errno.EAGAIN) {
            // Owed only by a thread that lost a turn and did not leave a set-bit sleep: that sleep put bit 31
            // into the word, and its ETIMEDOUT or EINTR says it took no wake (the parking table reports a wake
            // that raced the timeout or the interrupt as 0). A poll sleeps without the bit; EINVAL never queued.
            leave(turns > 0 && (poll || r == Errno.EINVAL));
        }
        return r;
    }

    /** A thread leaving without the lock: passes a wake on when {@code owed}, else leaves the sleepers be. */
    private void leave(final boolean owed) {
        if (owed) {
            passWake();
        }
    }

    /**
     * The bit rule: a thread leaving without the lock may have taken the wake that carried the
     * bit; a reader that got in passes the wake that let it in to the next sleeper.
     */
    @Override
    void passWake() {
        if (counted() != 0) {
            wake(1);
        }
    }

    /** One: the readers asleep behind a writer come in one after another (the readers' chain). */
    @Override
    int wakeCount(final int cnt) {
        return 1;
    }

    /** The bit rule: an unlock wakes by bit 31 alone. */
    @Override
    int waiters() {
        return 0;
    }
}
