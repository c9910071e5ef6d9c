package org.pthread4j.cli.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * Tells whether threads have gone to sleep, so a benchmark measures wakeups of sleeping
 * threads and not of threads still on their way to sleep. A thread parked in Java reports
 * {@link Thread.State#WAITING}; a thread inside the kernel's {@code FUTEX_WAIT} reports
 * {@code RUNNABLE} to Java, and one blocked on a monitor {@code BLOCKED} while it may still spin,
 * so for those two its kernel state ({@code S} in {@code /proc/self/task/TID/stat}) is read
 * instead.
 */
final class Sleepers {
    private Sleepers() {
    }

    /**
     * @param thread the thread
     * @param tid    its kernel thread id, or 0 when unknown
     * @return whether it sleeps now
     */
    static boolean asleep(final Thread thread, final int tid) {
        final Thread.State s = thread.getState();
        if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
            return true;
        }
        if (s != Thread.State.RUNNABLE && s != Thread.State.BLOCKED) {
            return false;
        }
        if (tid <= 0) {
            return s == Thread.State.BLOCKED; // without /proc, the best one can know
        }
        try {
            final String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
            final int close = stat.lastIndexOf(')');
            return close > 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'S';
        } catch (final IOException e) {
            return false;
        }
    }

    /**
     * Waits until every thread sleeps.
     *
     * @param threads the threads
     * @param tids    their kernel ids (0 where unknown)
     * @param timeoutNanos how long to wait at most
     * @throws IllegalStateException when they do not all sleep in time
     */
    static void awaitAll(final Thread[] threads, final int[] tids, final long timeoutNanos) {
        final long end = System.nanoTime() + timeoutNanos;
        int from = 0;
        while (from < threads.length) {
            if (asleep(threads[from], tids[from])) {
                from++;
                continue;
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException(threads[from].getName() + " did not go to sleep within "
                    + timeoutNanos / 1_000_000 + " ms (state " + threads[from].getState() + ")");
            }
            LockSupport.parkNanos(100_000);
        }
    }
}
