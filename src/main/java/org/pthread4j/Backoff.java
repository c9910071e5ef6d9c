package org.pthread4j;

/**
 * The bounded spin before a sleep, shared by the mutex, the rwlock and the semaphore (and a
 * requeued condvar waiter's relock): the caller tests its word, and while the word stays busy
 * and nobody sleeps it pauses 1, 2, 4 ... {@link Thread#onSpinWait()}s between tests, the step
 * doubling up to {@link #MAX_STEP}, at most {@link #PAUSES} pauses in all. Then it sleeps.
 *
 * <p>musl spins 100 times with one pause between tests ({@code a_spin} in
 * {@code pthread_mutex_timedlock.c}, {@code pthread_rwlock_timedrdlock.c}, {@code sem_timedwait.c}).
 * A waiter that tests the word every pause keeps pulling the word's cache line from the
 * holder's CPU, and the holder's next lock or unlock waits for it to come back: in seed 000's
 * stress at 2 threads, each {@code lock; unlock} loop then loses the lock after a few rounds.
 * Testing less often as the wait grows (test-and-test-and-set with exponential backoff, as
 * in Anderson's 1990 spin-lock study) leaves the holder running on a line of its own. The
 * bound stays short: with {@code onSpinWait} at about 21 ns on the reference machine, the
 * longest gap between tests is about 1.3 µs and the whole spin about 21 µs, under the 30-40 µs
 * a sleep and a cross-CPU wake cost there.
 *
 * <p>Usage, with {@code busy} the caller's own test:
 * <pre>{@code
 * for (int left = Backoff.PAUSES, step = 1; left > 0 && busy; left -= step, step = Backoff.pause(step)) {
 * }
 * }</pre>
 */
final class Backoff {
    /** Property {@value}: {@link #PAUSES}. */
    static final String PAUSES_PROPERTY = "pthread4j.spin.pauses";
    /** Property {@value}: {@link #MAX_STEP}. */
    static final String MAX_STEP_PROPERTY = "pthread4j.spin.maxStep";

    /** The most {@link Thread#onSpinWait()} calls one spin makes before the caller sleeps (0: no spin). */
    static final int PAUSES = Math.max(0, Integer.getInteger(PAUSES_PROPERTY, 1000));

    /** The most pauses between two tests of the word (1: musl's spin, a test after every pause). */
    static final int MAX_STEP = Math.max(1, Integer.getInteger(MAX_STEP_PROPERTY, 64));

    private Backoff() {
    }

    /**
     * Pauses {@code step} times.
     *
     * @param step the pauses to make, at least 1
     * @return the next step: twice this one, at most {@link #MAX_STEP}
     */
    static int pause(final int step) {
        for (int i = 0; i < step; i++) {
            Thread.onSpinWait();
        }
        return step < MAX_STEP ? Math.min(step << 1, MAX_STEP) : step;
    }
}
