package org.pthread4j.testing;

import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.internal.Syscall;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits until a thread is asleep in a futex wait, without sleeping in the test: a parked
 * thread (parking backend) reports {@code WAITING}/{@code TIMED_WAITING}; a thread inside the
 * kernel's futex wait shows the futex syscall number in {@code /proc/self/task/TID/syscall}.
 */
public final class Sleepers {
    private Sleepers() {
    }

    /**
     * @param thread the Java thread
     * @param tid    its kernel tid (from {@code ThreadIds.current()} inside it), or 0 if unknown
     * @param address the futex word's address, or 0 for any futex
     * @return whether it is asleep in a park or a futex syscall right now
     */
    public static boolean isAsleep(final Thread thread, final int tid, final long address) {
        final Thread.State state = thread.getState();
        if ((state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
            && LockSupport.getBlocker(thread) instanceof ParkingFutex) {
            return true;
        }
        if (tid <= 0 || tid >= (1 << 29)) {
            return false;
        }
        return inFutexWait("/proc/self/task/" + tid + "/syscall", address);
    }

    /**
     * @param syscallFile a {@code /proc/.../syscall} file
     * @param address     the futex word's address, or 0 for any
     * @return whether that thread is inside a futex call on that address (the JVM's own
     *     locks also sleep in futex calls, hence the address)
     */
    public static boolean inFutexWait(final String syscallFile, final long address) {
        try {
            final String[] f = Files.readString(Path.of(syscallFile)).trim().split(" ");
            if (f.length < 2 || Long.parseLong(f[0]) != Syscall.SYS_FUTEX) {
                return false;
            }
            return address == 0 || Long.parseUnsignedLong(f[1].substring(2), 16) == address;
        } catch (final IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Polls until the thread is asleep.
     *
     * @param thread  the thread
     * @param tid     its kernel tid, or 0
     * @param address the word it waits on, or 0 for any
     * @param timeout a generous liveness bound
     * @throws AssertionError when it is not asleep in time
     */
    public static void awaitAsleep(final Thread thread, final int tid, final long address, final Duration timeout) {
        final long end = System.nanoTime() + timeout.toNanos();
        while (!isAsleep(thread, tid, address)) {
            if (System.nanoTime() > end) {
                throw new AssertionError(thread + " (tid " + tid + ") did not fall asleep within " + timeout
                    + "; state " + thread.getState());
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
