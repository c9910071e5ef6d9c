package org.pthread4j;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a thread is really asleep in a futex wait, not merely counted as a waiter: a parked
 * thread (parking backend) is {@code WAITING}/{@code TIMED_WAITING}; a thread inside the
 * kernel's {@code FUTEX_WAIT} is {@code RUNNABLE} to Java but sleeps in {@code futex_*} by
 * {@code /proc/self/task/TID/wchan}.
 */
final class Asleep {
    private Asleep() {
    }

    /**
     * @param thread the thread
     * @param tid    its kernel thread id ({@link org.pthread4j.futex.ThreadIds#current()} read in it)
     * @return whether it sleeps in a futex wait or a park now
     */
    static boolean inFutex(final Thread thread, final int tid) {
        final Thread.State st = thread.getState();
        if (st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING) {
            return true;
        }
        try {
            final String wchan = Files.readString(Path.of("/proc/self/task/" + tid + "/wchan"));
            return wchan.contains("futex");
        } catch (final IOException e) {
            return false;
        }
    }
}
