package org.pthread4j.cli;

import org.pthread4j.Cond;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.futex.Timespec;
import org.pthread4j.internal.Syscall;
import org.pthread4j.ipc.SlotType;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.ipc.SyncFileFormatException;
import org.pthread4j.cli.bench.ChildJvm;
import org.pthread4j.cli.fs.Problems;
import org.pthread4j.ipc.SyncFileInspector;
import org.pthread4j.memory.Block;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./pthread4j demo ipc [--seconds S] [--file PATH]} (parsed by {@link DemoCommand}): two
 * JVM processes share a sync file and ping-pong through a process-shared robust mutex and a
 * condvar in it, printing round trips per second; then the second process locks the mutex and
 * is killed with SIGKILL while holding it, and the first recovers through EOWNERDEAD.
 *
 * <p>The file is created when its path does not exist, and then removed at the end; an existing
 * sync file is used and left in place; any other existing file is refused before anything is
 * written, and left exactly as it was.
 */
public final class DemoIpcCommand {
    /** Default length of the ping-pong, in seconds. */
    static final double DEFAULT_SECONDS = 3;
    /** Longest ping-pong, in seconds. */
    static final double MAX_SECONDS = 3600;

    private static final MutexAttr ROBUST = MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).pshared(true).build();
    /** Offsets in the raw slot "turn": whose turn it is, and the stop flag. */
    private static final int TURN = 0;
    private static final int STOP = 4;

    private DemoIpcCommand() {
    }

    /**
     * Runs the demo.
     *
     * @param file    the sync file, or {@code null} for a new one in {@code /dev/shm}
     * @param seconds how long the ping-pong runs
     * @param out     where the demo narrates
     * @param err     where errors go
     * @return 0 when the demo ran to the end, 1 when something failed
     */
    public static int run(final Path file, final double seconds, final PrintWriter out, final PrintWriter err) {
        final Path path = file != null ? file.toAbsolutePath()
            : SyncFile.shmPath("pthread4j-demo-" + ProcessHandle.current().pid());
        final SyncFile f;
        boolean created = false;
        try {
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(path)) {
                throw new IOException(path + ": exists and is not a regular file");
            }
            SyncFile opened;
            try {
                opened = SyncFile.create(path, 8);
                created = true;
            } catch (final FileAlreadyExistsException e) {
                opened = SyncFile.open(path);
            }
            f = opened;
        } catch (final SyncFileFormatException e) {
            err.println("pthread4j demo ipc: " + path + " exists and is not a pthread4j sync file (" + e.detail()
                + "): it is left as it is; --file takes a new path or an existing sync file");
            return 1;
        } catch (final IOException e) {
            err.println("pthread4j demo ipc: " + (e.getClass() == IOException.class ? e.getMessage()
                : path + ": " + Problems.words(e)) + "; --file takes a new path or an existing sync file");
            return 1;
        }
        try (f) {
            return demo(f, path, seconds, out);
        } catch (final Exception e) {
            out.flush();
            err.println("pthread4j demo ipc: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return 1;
        } finally {
            if (created) {
                try {
                    SyncFile.unlink(path);
                } catch (final IOException ignored) {
                    // best effort: the file is ours and nothing else uses it
                }
            }
            out.flush();
            err.flush();
        }
    }

    private static int demo(final SyncFile f, final Path path, final double seconds, final PrintWriter out)
            throws Exception {
        {
            final Mutex m = f.mutex("m", ROBUST);
            final Cond c = f.cond("c");
            final Block turn = f.slot("turn", SlotType.RAW, 8);
            out.printf("sync file %s: robust process-shared mutex 'm', condvar 'c', word 'turn'%n", path);
            final Process peer = startPeer(path);
            try {
                final BufferedReader peerOut = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
                final PrintWriter peerIn = new PrintWriter(peer.getOutputStream(), true, StandardCharsets.UTF_8);
                expect(peerOut, "ready");
                out.printf("this JVM: pid %d; peer JVM: pid %d%n", ProcessHandle.current().pid(), peer.pid());
                out.printf("ping-pong for %.1f s (each round trip: lock, wait on the condvar until it is my turn, pass"
                    + " the turn, signal, unlock):%n", seconds);
                peerIn.println("pong");
                final long end = System.nanoTime() + (long) (seconds * 1e9);
                long total = 0;
                long windowStart = System.nanoTime();
                long window = 0;
                while (System.nanoTime() < end) {
                    check(m.lock(), "lock");
                    while (turn.get(TURN) != 0) {
                        check(c.await(m), "wait");
                    }
                    turn.set(TURN, 1);
                    check(c.signal(), "signal");
                    check(m.unlock(), "unlock");
                    window++;
                    final long now = System.nanoTime();
                    if (now - windowStart >= 1_000_000_000L) {
                        final double rate = window * 1e9 / (now - windowStart);
                        out.printf(Locale.ROOT, "  %,10.0f round trips/s   (%.1f us per round trip)%n", rate, 1e6 / rate);
                        total += window;
                        window = 0;
                        windowStart = now;
                    }
                }
                final long tail = System.nanoTime() - windowStart;
                if (tail >= 200_000_000L && window > 0) {
                    final double rate = window * 1e9 / tail;
                    out.printf(Locale.ROOT, "  %,10.0f round trips/s   (%.1f us per round trip, last %.1f s)%n", rate,
                        1e6 / rate, tail / 1e9);
                }
                total += window;
                check(m.lock(), "lock");
                turn.set(STOP, 1);
                check(c.broadcast(), "broadcast");
                check(m.unlock(), "unlock");
                expect(peerOut, "stopped");
                out.printf("%,d round trips in all%n%n", total);

                peerIn.println("hold");
                final String holding = expect(peerOut, "holding ");
                out.printf("the peer locked the mutex (owner tid %s); inspect says: %s%n", holding.substring(8),
                    mutexState(path));
                out.printf("killing the peer (pid %d) with SIGKILL while it holds the mutex ...%n", peer.pid());
                peer.destroyForcibly();
                peer.waitFor(30, TimeUnit.SECONDS);
                out.printf("  the kernel walked the dead thread's robust list; inspect: %s%n", mutexState(path));
                final int r = m.timedLock(Timespec.after(Timespec.CLOCK_REALTIME, 10, TimeUnit.SECONDS));
                out.printf("lock returned %s: acquired, but the previous owner died holding it%n", Errno.name(r));
                if (r != Errno.EOWNERDEAD) {
                    out.println("expected EOWNERDEAD");
                    return 1;
                }
                out.printf("  inspect: %s%n", mutexState(path));
                check(m.consistent(), "consistent");
                check(m.unlock(), "unlock");
                out.println("consistent() and unlock(): the mutex is in order again");
                final int again = m.tryLock();
                out.printf("trylock returned %s; inspect: %s%n", Errno.name(again), mutexState(path));
                check(again, "trylock");
                check(m.unlock(), "unlock");
                return 0;
            } finally {
                peer.destroyForcibly();
                peer.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static String mutexState(final Path path) throws IOException {
        for (final SyncFileInspector.SlotReport s : SyncFileInspector.inspect(path).slots()) {
            if (s.info().name().equals("m")) {
                return s.summary();
            }
        }
        return "?";
    }

    private static Process startPeer(final Path path) throws IOException {
        return new ProcessBuilder(ChildJvm.command(Main.class.getName(), List.of("demo", "ipc", "--peer", path.toString())))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static String expect(final BufferedReader in, final String prefix) throws IOException {
        final String line = in.readLine();
        if (line == null || !line.startsWith(prefix)) {
            throw new IOException("the peer said '" + line + "', expected '" + prefix + "'");
        }
        return line;
    }

    private static void check(final int r, final String what) {
        if (r != 0) {
            throw new IllegalStateException(what + " returned " + Errno.name(r));
        }
    }

    /**
     * The peer: opens the file, answers the turn until told to stop, then holds the mutex until killed.
     *
     * @param path the sync file
     * @return its exit status
     */
    static int peer(final Path path) {
        try (SyncFile f = SyncFile.open(path)) {
            final Mutex m = f.mutex("m", ROBUST);
            final Cond c = f.cond("c");
            final Block turn = f.slot("turn", SlotType.RAW, 8);
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            System.out.println("ready");
            System.out.flush();
            String cmd;
            while ((cmd = in.readLine()) != null) {
                if (cmd.equals("pong")) {
                    for (;;) {
                        check(m.lock(), "lock");
                        while (turn.get(TURN) != 1 && turn.get(STOP) == 0) {
                            check(c.await(m), "wait");
                        }
                        if (turn.get(STOP) != 0) {
                            check(m.unlock(), "unlock");
                            break;
                        }
                        turn.set(TURN, 0);
                        check(c.signal(), "signal");
                        check(m.unlock(), "unlock");
                    }
                    System.out.println("stopped");
                    System.out.flush();
                } else if (cmd.equals("hold")) {
                    check(m.lock(), "lock");
                    System.out.println("holding " + Syscall.gettid());
                    System.out.flush();
                    for (;;) {
                        java.util.concurrent.locks.LockSupport.park();
                    }
                }
            }
            return 0;
        } catch (final Exception e) {
            System.err.println("pthread4j demo ipc peer: " + e);
            return 1;
        }
    }
}
