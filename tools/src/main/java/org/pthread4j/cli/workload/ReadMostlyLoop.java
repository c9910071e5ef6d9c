package org.pthread4j.cli.workload;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * The read-mostly mix on a {@link ReadWriteLock}: one operation in {@code writeEvery} writes a
 * pair under the write lock, the others read it under the read lock and check that they never
 * see half a write. Each lock runs it through its own {@link Isolated} copy.
 */
final class ReadMostlyLoop implements Stress.Body {
    private final Lock read;
    private final Lock write;
    private final long[] pair;
    private final int writeEvery;

    ReadMostlyLoop(final ReadWriteLock rw, final long[] pair, final int writeEvery) {
        this.read = rw.readLock();
        this.write = rw.writeLock();
        this.pair = pair;
        this.writeEvery = writeEvery;
    }

    @Override
    public long run(final int index, final Stress.Stop stop) {
        long n = 0;
        long seen = 0;
        int k = index;
        while (!stop.stopped()) {
            if (++k == writeEvery) {
                k = 0;
                write.lock();
                try {
                    pair[0]++;
                    pair[1]++;
                } finally {
                    write.unlock();
                }
            } else {
                read.lock();
                try {
                    if (pair[0] != pair[1]) {
                        throw new IllegalStateException("a reader saw half a write");
                    }
                    seen += pair[0];
                } finally {
                    read.unlock();
                }
            }
            n++;
        }
        return seen == -1 ? 0 : n;
    }
}
