package org.pthread4j.ipc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a process or thread named by its id still runs, read from {@code /proc/<id>/stat}
 * without signalling it. A zombie (state {@code Z} or {@code X}: dead, not yet reaped) counts
 * as dead. A thread id works as well as a process id: {@code /proc/<tid>} exists for every
 * thread, though {@code ls /proc} does not list it.
 *
 * <p>The start stamp (the low 32 bits of field 22, {@code starttime}, in clock ticks since
 * boot) tells a process from a later one that was given the same pid: a sync file records the
 * stamp beside every claim, so a claim whose process died is recognized even after its pid was
 * reused. Ids are those of this process's pid namespace: every process sharing a file must be
 * in the same one.
 */
public final class Liveness {
    /** What {@code /proc} says about an id. */
    public enum Status {
        /** Running (or sleeping, stopped, traced: anything but dead). */
        ALIVE,
        /** No such id, or a zombie. */
        DEAD,
        /** {@code /proc} could not be read (not Linux, or hidden): assume alive. */
        UNKNOWN
    }

    private static final Path PROC = Path.of("/proc");
    private static final int SELF_PID = (int) ProcessHandle.current().pid();
    private static final int SELF_STAMP = readStamp(SELF_PID);

    private Liveness() {
    }

    /** {@return this process's id} */
    public static int selfPid() {
        return SELF_PID;
    }

    /** {@return this process's start stamp, 0 when {@code /proc} cannot be read} */
    public static int selfStamp() {
        return SELF_STAMP;
    }

    /**
     * {@return whether a thread of this process has this id ({@code /proc/self/task/<tid>} exists)}
     *
     * @param tid a kernel thread id
     */
    public static boolean isThreadOfThisProcess(final int tid) {
        return tid > 0 && Files.isDirectory(PROC.resolve("self").resolve("task").resolve(Integer.toString(tid)));
    }

    /** {@return the calling thread's kernel id, or 0 when it has none (a virtual thread)} */
    static int currentTid() {
        final int id = org.pthread4j.internal.ThreadIds.current();
        return org.pthread4j.internal.ThreadIds.isKernelTid(id) ? id : 0;
    }

    /**
     * {@return whether it runs}
     *
     * @param id a process or thread id
     */
    public static Status status(final int id) {
        if (id <= 0) {
            return Status.DEAD;
        }
        final String stat = readStat(id);
        if (stat == null) {
            return Files.isDirectory(PROC.resolve("self")) ? Status.DEAD : Status.UNKNOWN;
        }
        final char state = stateOf(stat);
        return state == 'Z' || state == 'X' || state == 'x' ? Status.DEAD : Status.ALIVE;
    }

    /**
     * Whether the process that left a claim with this pid and stamp still runs: its pid is alive
     * and, when both stamps are known, has the same start stamp.
     *
     * @param pid   the claimer's pid
     * @param stamp the claimer's start stamp as recorded, 0 if it was unknown
     * @return false only when the claimer is certainly gone
     */
    public static boolean claimerAlive(final int pid, final int stamp) {
        final Status s = status(pid);
        if (s == Status.DEAD) {
            return false;
        }
        if (s == Status.UNKNOWN || stamp == 0) {
            return true;
        }
        final int now = readStamp(pid);
        return now == 0 || now == stamp;
    }

    /**
     * {@return its start stamp, 0 when it cannot be read}
     *
     * @param pid a process id
     */
    public static int readStamp(final int pid) {
        final String stat = readStat(pid);
        if (stat == null) {
            return 0;
        }
        // Fields after the command name (which may hold spaces and parentheses): state is
        // field 3, starttime field 22.
        final int close = stat.lastIndexOf(')');
        if (close < 0) {
            return 0;
        }
        final String[] f = stat.substring(close + 2).trim().split(" ");
        if (f.length < 20) {
            return 0;
        }
        try {
            final long ticks = Long.parseLong(f[19]);
            final int stamp = (int) ticks;
            return stamp == 0 ? 1 : stamp;
        } catch (final NumberFormatException e) {
            return 0;
        }
    }

    private static char stateOf(final String stat) {
        final int close = stat.lastIndexOf(')');
        return close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
    }

    private static String readStat(final int id) {
        try {
            return Files.readString(PROC.resolve(Integer.toString(id)).resolve("stat"), StandardCharsets.ISO_8859_1);
        } catch (final IOException | RuntimeException e) {
            return null;
        }
    }
}
