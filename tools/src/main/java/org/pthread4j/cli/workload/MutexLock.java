package org.pthread4j.cli.workload;

import org.pthread4j.Mutex;
import org.pthread4j.memory.Memory;

import java.io.IOException;

/** The library's {@link Mutex} (NORMAL) as the lock stress sees it, in a {@link BenchBackends.Place}. */
final class MutexLock implements StressLock {
    private final Memory memory;
    private final Mutex mutex;

    MutexLock(final BenchBackends.Place place) throws IOException {
        this.memory = place.memory(64);
        this.mutex = place.mutex(memory, 0);
    }

    @Override
    public void lockUnlock() {
        BenchBackends.check(mutex.lock(), "pthread_mutex_lock");
        BenchBackends.check(mutex.unlock(), "pthread_mutex_unlock");
    }

    @Override
    public void close() {
        memory.close();
    }
}
