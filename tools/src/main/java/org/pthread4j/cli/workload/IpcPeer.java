package org.pthread4j.cli.workload;

import org.pthread4j.Cond;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.ipc.SlotType;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.memory.Block;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * The other side of {@code bench ipc}'s ping-pongs, and the second JVM's entry point.
 *
 * <p>The sync file holds a mutex {@value #MUTEX}, a condvar {@value #COND} and a raw slot
 * {@value #TURN_SLOT} with the turn word at {@value #TURN} and a stop word at {@value #STOP}
 * (the layout {@code demo ipc} and {@code src/test/c/syncfile_interop.c} use). The ping side
 * waits on the condvar while the turn is not 0, sets it to 1 and signals; the pong side waits
 * while it is not 1, sets it to 0 and signals. Both hold the mutex while they look at the turn.
 *
 * <p>As a program ({@code IpcPeer FILE}) it opens the file, prints {@code ready}, plays pong
 * until the stop word is set, prints {@code stopped N} with the number of turns it handed back,
 * and exits. It halts as soon as its standard input reaches end of file, so it never outlives
 * the bench that started it: the bench holds the other end of the pipe, and the kernel closes
 * it when the bench ends in any way, {@code kill -9} included.
 */
public final class IpcPeer {
    /** The mutex's slot name. */
    static final String MUTEX = "m";
    /** The condvar's slot name. */
    static final String COND = "c";
    /** The raw slot of the turn and stop words. */
    static final String TURN_SLOT = "turn";
    /** Size of the raw slot. */
    static final int TURN_SLOT_SIZE = 8;
    /** Offset of the turn word in its slot: 0 for the ping side, 1 for the pong side. */
    static final int TURN = 0;
    /** Offset of the stop word in the turn slot: non-zero tells the pong side to leave. */
    static final int STOP = 4;
    /** Exit status when the bench's end of standard input closed. */
    static final int ORPHANED = 3;

    private IpcPeer() {
    }

    /**
     * The second JVM: plays pong on a sync file until told to stop.
     *
     * @param args the sync file's path
     */
    public static void main(final String[] args) {
        Thread.ofPlatform().daemon().name("ipc-peer-stdin").start(IpcPeer::haltAtEndOfInput);
        if (args.length != 1) {
            System.err.println("usage: IpcPeer FILE");
            System.exit(2);
        }
        try (SyncFile f = SyncFile.open(Path.of(args[0]))) {
            final Mutex m = f.mutex(MUTEX);
            final Cond c = f.cond(COND);
            final Block turn = f.slot(TURN_SLOT, SlotType.RAW, TURN_SLOT_SIZE);
            System.out.println("ready");
            System.out.flush();
            final long turns = pong(m, c, turn);
            System.out.println("stopped " + turns);
            System.out.flush();
        } catch (final Exception | Error e) {
            System.out.println("error " + e);
            System.out.flush();
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private static void haltAtEndOfInput() {
        final InputStream in = System.in;
        final byte[] buf = new byte[256];
        try {
            while (in.read(buf) >= 0) {
                // commands are not needed: only the end of input matters
            }
        } catch (final IOException ignored) {
            // the pipe is gone: same as its end
        }
        Runtime.getRuntime().halt(ORPHANED);
    }

    /**
     * Plays pong until the stop word is set: waits while the turn is not 1, sets it to 0,
     * signals. A turn that is 1 is handed back even when the stop word is set, so the count
     * matches the ping side's.
     *
     * @param m    the mutex
     * @param c    the condvar
     * @param turn the turn slot
     * @return how many turns it handed back
     */
    static long pong(final Mutex m, final Cond c, final Block turn) {
        long turns = 0;
        for (;;) {
            check(m.lock(), "lock");
            boolean ok = false;
            try {
                while (turn.get(TURN) != 1 && turn.get(STOP) == 0) {
                    check(c.await(m), "wait");
                }
                if (turn.get(TURN) != 1) {
                    ok = true;
                    return turns;
                }
                turn.set(TURN, 0);
                turns++;
                check(c.signal(), "signal");
                ok = true;
            } finally {
                final int r = m.unlock();
                if (ok) {
                    check(r, "unlock");
                }
            }
        }
    }

    /**
     * Sets the stop word and wakes the pong side.
     *
     * @param m    the mutex
     * @param c    the condvar
     * @param turn the turn slot
     */
    static void stop(final Mutex m, final Cond c, final Block turn) {
        check(m.lock(), "lock");
        turn.set(STOP, 1);
        final int r = c.broadcast();
        check(m.unlock(), "unlock");
        check(r, "broadcast");
    }

    /**
     * @param r    a result code
     * @param what the call that returned it
     * @throws IllegalStateException when it is not 0
     */
    static void check(final int r, final String what) {
        if (r != 0) {
            throw new IllegalStateException(what + " returned " + Errno.name(r));
        }
    }
}
