package org.pthread4j.juc;

import org.pthread4j.Cond;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.futex.Timespec;

import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A {@link Condition} that is a musl {@code pthread_cond_t} ({@link Cond}), made by
 * {@link PthreadLock#newCondition()} or by the write lock of a {@link PthreadReadWriteLock}.
 *
 * <h2>Overview</h2>
 *
 * <p>A wait is one {@link Cond#timedAwait(Mutex, Timespec, boolean)}: it queues the thread,
 * unlocks the mutex, sleeps, and locks the mutex again, with every race of that sequence closed
 * by the condvar (musl's {@code pthread_cond_timedwait.c}). Around it this class does only the
 * bookkeeping {@link Condition} asks for:
 * <ul>
 * <li><b>Hold counts.</b> A {@link PthreadLock} held N times is released completely while the
 *     thread waits and held N times again when it returns, as with {@code ReentrantLock}: the
 *     thread drops N-1 holds before the wait (the condvar's unlock drops the last) and takes
 *     them again after it, without contention since it owns the mutex by then.</li>
 * <li><b>The write lock of a read-write lock</b>, which is not a mutex: its conditions wait with
 *     a private mutex of their own, in the manner of C++'s {@code condition_variable_any}. A
 *     waiter takes that mutex, releases the write lock, and waits on the condvar with the mutex;
 *     a signaller, which holds the write lock, signals while holding the mutex too. A signal
 *     sent after the waiter released the write lock therefore finds the waiter queued, and no
 *     wakeup is lost. The waiter takes the write lock again after it left the condvar and
 *     released the mutex, so the two locks are never taken in opposite orders.</li>
 * <li><b>Interrupts</b> follow {@code AbstractQueuedSynchronizer}: an interrupt before any
 *     signal picked the thread ends the wait with {@link InterruptedException} (the status
 *     cleared), after the lock was taken again; an interrupt that raced with a signal lets the
 *     wait return normally with the interrupt status set, so the signal is not lost.</li>
 * <li><b>Deadlines</b> are absolute on the condvar's clock (CLOCK_MONOTONIC for conditions made
 *     by {@code newCondition()}). {@link #awaitUntil(Date)} converts its wall-clock deadline to
 *     that clock when the wait starts: a step of the wall clock during the wait does not move
 *     it.</li>
 * </ul>
 *
 * <p>Spurious wakeups happen, as {@link Condition} allows: wait in a loop on the predicate. A
 * timed wait whose time ran out at the moment a signal picked it may report the timeout
 * ({@code false}, or a remaining time of zero or less) although it consumed the signal, which
 * the {@link Condition} contract ("the waiting time detectably elapsed") and POSIX allow; a
 * loop that checks its predicate before giving up sees the signalled state.
 *
 * <p>Monitoring: a wait is recorded as a JFR event, {@code org.pthread4j.ConditionWait}
 * (threshold 20 ms, as the JDK's {@code jdk.JavaMonitorWait}): the lock's name, the condvar's
 * address, the backend, whether it timed out.
 *
 * <p>Memory consistency: as with any lock, actions of a thread before it signals while holding
 * the lock happen-before the signalled thread's return from the wait, which takes the lock
 * again.
 */
public final class PthreadCondition implements Condition {
    private final Cond cond;
    private final Mutex mutex;
    private final Owner owner;

    PthreadCondition(final Cond cond, final Mutex mutex, final Owner owner) {
        this.cond = cond;
        this.mutex = mutex;
        this.owner = owner;
    }

    /** What a condition needs from the lock it belongs to. */
    abstract static class Owner {
        /** {@return whether the current thread holds the lock} */
        abstract boolean isHeldByCurrentThread();

        /**
         * Releases the lock except for one hold of the condition's mutex, which the condvar's
         * wait releases.
         *
         * @return what {@link #reacquire} needs to restore the holds
         */
        abstract int release();

        /**
         * Restores the holds after the condvar's wait returned with result {@code r} (the
         * condition's mutex held once again, unless {@code r} is ENOTRECOVERABLE).
         *
         * @param saved what {@link #release()} returned
         * @param r     the wait's result
         */
        abstract void reacquire(int saved, int r);

        /** Signals, by default with nothing else held. */
        void signal(final Cond cond, final boolean all) {
            if (all) {
                cond.broadcast();
            } else {
                cond.signal();
            }
        }

        /** {@return the lock, for messages} */
        abstract String describe();

        /** {@return the lock object, for the JFR event's name} */
        abstract Object lock();
    }

    /** {@return the condvar under this condition} */
    public Cond cond() {
        return cond;
    }

    /** {@return the mutex the condvar waits with} */
    Mutex mutex() {
        return mutex;
    }

    /** {@return the lock this condition belongs to} */
    Owner owner() {
        return owner;
    }

    /**
     * Waits until signalled or interrupted, releasing the lock (all holds) meanwhile.
     *
     * @throws InterruptedException         when interrupted on entry or while waiting and not
     *                                      signalled; the lock is held again and the interrupt
     *                                      status cleared
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     */
    @Override
    public void await() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        interrupted(waitUntil(null, true));
    }

    /**
     * Waits until signalled, ignoring interrupts; the interrupt status, if set on entry or
     * while waiting, is still set on return.
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     */
    @Override
    public void awaitUninterruptibly() {
        waitUntil(null, false);
    }

    /**
     * Waits until signalled, interrupted, or {@code nanosTimeout} passed.
     *
     * @param nanosTimeout the longest time to wait
     * @return the time left of {@code nanosTimeout} when this returns (with the lock held
     *     again); zero or less when the time ran out
     * @throws InterruptedException         as {@link #await()}
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     */
    @Override
    public long awaitNanos(final long nanosTimeout) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        final int clock = cond.clock();
        final long nanos = Math.max(nanosTimeout, 0L);
        final long start = Timespec.nowNanos(clock);
        final long deadline = start > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : start + nanos;
        final int r = waitUntil(Timespec.ofNanos(deadline), true);
        interrupted(r);
        long remaining = deadline - Timespec.nowNanos(clock);
        if (r == Errno.ETIMEDOUT && remaining > 0) {
            remaining = 0; // the wall clock stepped back after the deadline passed
        }
        return remaining <= nanosTimeout ? remaining : Long.MIN_VALUE;
    }

    /**
     * Waits until signalled, interrupted, or {@code time} passed.
     *
     * @param time the longest time to wait
     * @param unit its unit
     * @return false when the time ran out, true otherwise
     * @throws InterruptedException         as {@link #await()}
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     */
    @Override
    public boolean await(final long time, final TimeUnit unit) throws InterruptedException {
        final long nanos = Math.max(unit.toNanos(time), 0L);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        final int clock = cond.clock();
        final long start = Timespec.nowNanos(clock);
        final long deadline = start > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : start + nanos;
        final int r = waitUntil(Timespec.ofNanos(deadline), true);
        interrupted(r);
        return r != Errno.ETIMEDOUT;
    }

    /**
     * Waits until signalled, interrupted, or the wall-clock {@code deadline} passed (converted to
     * the condition's clock when the wait starts).
     *
     * @param deadline the wall-clock time to wait until
     * @return false when the deadline passed, true otherwise
     * @throws InterruptedException         as {@link #await()}
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     * @throws NullPointerException         when {@code deadline} is null
     */
    @Override
    public boolean awaitUntil(final Date deadline) throws InterruptedException {
        final long millis = deadline.getTime();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        final int clock = cond.clock();
        // A deadline in the past becomes "now": the futex layer is then given no extreme values.
        final long at;
        if (clock == Timespec.CLOCK_REALTIME) {
            at = saturatedMillisToNanos(Math.max(millis, System.currentTimeMillis()), 0);
        } else {
            final long left = millis - System.currentTimeMillis();
            // on overflow the difference has the sign of millis
            final boolean overflow = millis < 0 && left > 0;
            at = saturatedMillisToNanos(overflow ? 0 : Math.max(left, 0), Timespec.nowNanos(clock));
        }
        final int r = waitUntil(Timespec.ofNanos(at), true);
        interrupted(r);
        return r != Errno.ETIMEDOUT;
    }

    /** {@return {@code base + millis * 1e6}, saturated} */
    private static long saturatedMillisToNanos(final long millis, final long base) {
        final long max = (Long.MAX_VALUE - Math.max(base, 0)) / 1_000_000L;
        final long min = (Long.MIN_VALUE - Math.min(base, 0)) / 1_000_000L;
        if (millis >= max) {
            return Long.MAX_VALUE;
        }
        if (millis <= min) {
            return Long.MIN_VALUE;
        }
        return base + millis * 1_000_000L;
    }

    /**
     * Wakes the longest-waiting thread, if any ({@link Cond#signal()}).
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     */
    @Override
    public void signal() {
        checkHeld();
        owner.signal(cond, false);
    }

    /**
     * Wakes every waiting thread ({@link Cond#broadcast()}: one is woken, the others are moved
     * onto the mutex one at a time as it is released, so they do not stampede).
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     */
    @Override
    public void signalAll() {
        checkHeld();
        owner.signal(cond, true);
    }

    private void checkHeld() {
        if (!owner.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("the current thread does not hold " + owner.describe());
        }
    }

    /** The condvar wait between releasing and restoring the holds; 0, ETIMEDOUT or EINTR. */
    private int waitUntil(final Timespec at, final boolean interruptible) {
        checkHeld();
        final int saved = owner.release();
        final ConditionWaitEvent event = ConditionWaitEvent.start();
        final int r = cond.timedAwait(mutex, at, interruptible);
        event.done(owner.lock(), cond, r);
        owner.reacquire(saved, r);
        if (r != 0 && r != Errno.ETIMEDOUT && r != Errno.EINTR) {
            throw new IllegalStateException("unexpected result " + Errno.name(r) + " from " + cond);
        }
        return r;
    }

    private static void interrupted(final int r) throws InterruptedException {
        if (r == Errno.EINTR) {
            Thread.interrupted();
            throw new InterruptedException();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "[" + cond + " of "
            + owner.describe() + "]";
    }
}
