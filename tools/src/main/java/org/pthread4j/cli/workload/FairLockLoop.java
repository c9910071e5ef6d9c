package org.pthread4j.cli.workload;

import java.util.concurrent.locks.Lock;

/**
 * {@link JucLockLoop} that publishes each thread's count as it goes ({@link Stress#publish}), for
 * the fair stress's shares over the middle of a run ({@link Stress#windowed}). Each lock runs it
 * through its own {@link Isolated} copy.
 */
final class FairLockLoop implements Stress.Body {
    private final Lock lock;
    private final long[] live;

    FairLockLoop(final Lock lock, final long[] live) {
        this.lock = lock;
        this.live = live;
    }

    @Override
    public long run(final int index, final Stress.Stop stop) {
        long n = 0;
        while (!stop.stopped()) {
            lock.lock();
            lock.unlock();
            Stress.publish(live, index, ++n);
        }
        return n;
    }
}
