package org.pthread4j;

/**
 * Every bound on a spin or a sleep of this package's slow paths, in one place. Time bounds are
 * in nanoseconds of {@link System#nanoTime()}; musl's own counts are musl's. There is no system
 * property: a test or a benchmark that needs other values passes a {@code Tuning} to a lock's
 * package-private constructor. The figures behind the defaults are in
 * {@code docs/measurements.md}.
 *
 * @param spinNanos     the parking protocol's spin before a first sleep, and the semaphore's:
 *                      how long a thread looks at a busy word while nobody sleeps on it
 * @param pollNanos     the parking protocol's sleep without bit 31 of a woken thread that found
 *                      the lock held again (see {@link ParkingProtocol})
 * @param condSpinNanos the parking protocol's spin of a condvar waiter on its own word, after it
 *                      released the mutex and before it sleeps (0: it sleeps at once, as in musl)
 * @param fairSpinNanos the fair protocol's spin of a queued thread on the serving word before it
 *                      sleeps (see {@link FairProtocol})
 * @param muslSpinNanos musl's protocol's spin on a word the kernel serves (see
 *                      {@link MuslProtocol}): how long a thread looks at a busy word before it
 *                      sleeps and after each wake, whether or not others sleep; 0 for musl's
 *                      exact steps (100 pauses while nobody sleeps, none after a wake)
 */
record Tuning(long spinNanos, long pollNanos, long condSpinNanos, long fairSpinNanos, long muslSpinNanos) {
    /**
     * musl's spin before a sleep: 100 {@code a_spin()}s ({@code pthread_mutex_timedlock.c},
     * {@code pthread_rwlock_timedrdlock.c}, {@code pthread_rwlock_timedwrlock.c},
     * {@code sem_timedwait.c}, {@code __wait.c}).
     */
    static final int MUSL_SPINS = 100;

    /**
     * The longest run of pauses between two looks at a word in a bounded spin: the spin looks
     * after 1, 2, 4 ... up to this many {@link Thread#onSpinWait()}s, so that a long spin does
     * not keep pulling the word's cache line from the CPU of the thread that holds the lock.
     */
    static final int MAX_STEP = 64;

    /**
     * The longest gap, in nanoseconds, between two looks of {@link MuslProtocol}'s spin at a busy
     * word: a look pulls the word's cache line from the holder's CPU.
     */
    static final long MUSL_LOOK_NANOS = 20_000;

    /**
     * How long {@link MuslProtocol}'s spin runs, in nanoseconds, before it gives its CPU away
     * ({@link Thread#yield()}) once between two looks.
     */
    static final long MUSL_YIELD_NANOS = 20_000;

    /**
     * The values every primitive uses unless a test passes others: a 20 µs spin (about the cost
     * of a sleep and a wake across CPUs), a 50 µs poll, a 10 µs condvar spin, a 200 µs fair spin
     * (a queued thread is served after every thread ahead of it has had its turn, each turn a
     * hand-over across CPUs or a yield: twice the throughput of a 50 µs spin with 8 threads on 2
     * CPUs), and on the kernel's words a look of up to 400 µs before a sleep and after each wake (the lock
     * benchmarks' rows rose with it from 20 µs to 200 µs to 400 µs: {@code docs/measurements.md},
     * 2026-12-03).
     */
    static final Tuning DEFAULT = new Tuning(20_000, 50_000, 10_000, 200_000, 400_000);

    /**
     * {@link #DEFAULT} with musl's protocol exactly as musl's C runs it on the kernel's words: no
     * look of {@link MuslProtocol}'s own and no condvar spin there ({@link #muslSpinNanos()} 0);
     * for a package-private constructor of {@link Mutex}, {@link RwLock} or {@link Cond}.
     */
    static final Tuning MUSL_EXACT = new Tuning(20_000, 50_000, 10_000, 200_000, 0);

    /**
     * The values.
     *
     * @throws IllegalArgumentException for a negative bound, or a poll that is not positive
     */
    Tuning {
        if (spinNanos < 0 || condSpinNanos < 0 || fairSpinNanos < 0 || muslSpinNanos < 0
            || pollNanos <= 0 || pollNanos > 1_000_000_000L) {
            throw new IllegalArgumentException("spinNanos " + spinNanos + ", condSpinNanos " + condSpinNanos
                + ", fairSpinNanos " + fairSpinNanos + ", muslSpinNanos " + muslSpinNanos
                + " must be >= 0 and pollNanos " + pollNanos + " in (0, 1 s]");
        }
    }
}
