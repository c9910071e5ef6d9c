package org.pthread4j;

/**
 * How the threads of a {@link Mutex}, {@link RwLock} or {@link Cond} sleep and wake, chosen once
 * when the primitive is made (or attached) from where its futex word is served. It does not
 * change what a primitive promises (results, memory effects, no lost wake-up); it changes how
 * often an unlock makes a futex call and how long a thread spins before it sleeps.
 */
public enum SleepProtocol {
    /**
     * musl's, step for step: a spin of 100 pauses while nobody sleeps, then a count in the waiter
     * word, bit 31 set by CAS into the value seen, and a futex wait on exactly that value; an
     * unlock wakes when the waiter count it read before releasing was nonzero or the word it
     * released had bit 31. Every word the kernel serves runs it: process-shared and robust
     * primitives, and private ones on a kernel backend ({@code linux}, {@code linux-noprivate}),
     * so a C process linked with musl can share the word.
     */
    MUSL,
    /**
     * The parking protocol, for private words on the parking backend: a sleeper sets bit 31 and
     * queues itself in one step of the JVM's futex table, may queue behind the sleepers already
     * there, and an unlock wakes by bit 31 alone (the bit rule); the spin before a sleep is
     * bounded by time. A private condvar's waiter also spins briefly on its own word before it
     * sleeps.
     */
    PARKING,
    /**
     * The fair protocol, for a mutex made fair ({@link MutexAttr.Builder#fair}), private or
     * process-shared, on every backend: a ticket lock (the next-ticket and now-serving words of
     * {@link MutexLayout}) that hands the lock to the threads in the order they asked for it; a
     * queued thread spins on the serving word for a while, then sleeps on it. Not musl's: no C
     * program may share a fair mutex.
     */
    FAIR
}
