package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Two players alternate through one process-shared mutex and condvar in a file: each waits
 * until the turn word names it, passes the turn, bumps the round counter and wakes the other.
 * The layout of the file: mutex at {@link #MUTEX}, condvar at {@link #COND}, turn at
 * {@link #TURN}, round counter at {@link #COUNT}. As a main class it is the second JVM's
 * player: {@code CondPingPong <file> <player> <rounds> <signal|broadcast>}; it prints
 * {@code ready}, plays, and prints {@code done <rounds>} or {@code error ...}.
 */
public final class CondPingPong {
    /** Offset of the mutex. */
    static final long MUTEX = 0;
    /** Offset of the condvar. */
    static final long COND = 64;
    /** Offset of the turn word (0 or 1). */
    static final long TURN = 128;
    /** Offset of the count of turns taken by both players. */
    static final long COUNT = 132;
    /** File size. */
    static final long SIZE = 4096;

    private CondPingPong() {
    }

    /**
     * Plays {@code rounds} turns.
     *
     * @return null, or what went wrong
     */
    static String play(final Mutex m, final Cond c, final Block words, final int me, final int rounds,
                       final boolean signal) {
        for (int i = 0; i < rounds; i++) {
            int r = m.lock();
            if (r != 0) {
                return "lock: " + Errno.name(r);
            }
            while (words.get(TURN) != me) {
                r = c.timedAwait(m, Timespec.after(Timespec.CLOCK_REALTIME, 60, TimeUnit.SECONDS));
                if (r != 0) {
                    return "round " + i + ": timedwait " + Errno.name(r) + " (turn " + words.get(TURN) + ")";
                }
            }
            words.set(TURN, 1 - me);
            words.set(COUNT, words.get(COUNT) + 1);
            r = signal ? c.signal() : c.broadcast();
            if (r != 0) {
                return "wake: " + Errno.name(r);
            }
            r = m.unlock();
            if (r != 0) {
                return "unlock: " + Errno.name(r);
            }
        }
        return null;
    }

    /** The second JVM's player. */
    public static void main(final String[] args) throws Exception {
        try (Memory mem = Memory.map(Path.of(args[0]), SIZE)) {
            final int me = Integer.parseInt(args[1]);
            final int rounds = Integer.parseInt(args[2]);
            final boolean signal = "signal".equals(args[3]);
            final Mutex m = Mutex.attach(mem.block(MUTEX, MutexLayout.SIZE, 8));
            final Cond c = Cond.attach(mem.block(COND, CondLayout.SIZE, 8));
            final Block words = mem.block(0, SIZE, 8);
            System.out.println("ready");
            System.out.flush();
            final String error = play(m, c, words, me, rounds, signal);
            System.out.println(error == null ? "done " + rounds : "error " + error);
            System.out.flush();
        }
    }
}
