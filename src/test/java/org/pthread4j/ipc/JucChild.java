package org.pthread4j.ipc;

import org.pthread4j.internal.ThreadIds;
import org.pthread4j.juc.PthreadCondition;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.juc.PthreadReadWriteLock;
import org.pthread4j.memory.Block;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM for {@link SyncFileJucTest}: the j.u.c faces of a sync file in a second process.
 * Argument: the file. Prints {@code ready}, then runs commands from standard input:
 * <ul>
 *   <li>{@code hold}: {@code lock("l").lock()}, prints {@code locked TID}, sleeps until killed</li>
 *   <li>{@code pong N}: N rounds with {@code lock("l")}, {@code condition("c", lock)} and the raw
 *       int "turn": wait while turn is 0, set it 0, signal; prints {@code done}</li>
 *   <li>{@code acquire N}: {@code semaphore("s", 0).acquire(N)}, prints {@code acquired}</li>
 *   <li>{@code write}: holds {@code readWriteLock("rw")}'s write lock, prints {@code writing},
 *       releases it on the next line of input, prints {@code released}</li>
 * </ul>
 */
public final class JucChild {
    private JucChild() {
    }

    /** @param args the file */
    public static void main(final String[] args) throws Exception {
        try (SyncFile f = SyncFile.open(Path.of(args[0]))) {
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            say("ready");
            String line;
            while ((line = in.readLine()) != null) {
                final String[] w = line.trim().split(" ");
                switch (w[0]) {
                    case "hold" -> {
                        f.lock("l").lock();
                        say("locked " + ThreadIds.current());
                        for (;;) {
                            LockSupport.park();
                        }
                    }
                    case "pong" -> {
                        final PthreadLock lock = f.lock("l");
                        final PthreadCondition c = f.condition("c", lock);
                        final Block turn = f.slot("turn", SlotType.RAW, 8);
                        for (int i = 0; i < Integer.parseInt(w[1]); i++) {
                            lock.lock();
                            try {
                                while (turn.get(0) == 0) {
                                    if (!c.await(60, TimeUnit.SECONDS)) {
                                        say("error no signal in round " + i);
                                        return;
                                    }
                                }
                                turn.set(0, 0);
                                c.signal();
                            } finally {
                                lock.unlock();
                            }
                        }
                        say("done");
                    }
                    case "acquire" -> {
                        f.semaphore("s", 0).acquire(Integer.parseInt(w[1]));
                        say("acquired");
                    }
                    case "write" -> {
                        final PthreadReadWriteLock rw = f.readWriteLock("rw");
                        rw.writeLock().lock();
                        say("writing");
                        in.readLine();
                        rw.writeLock().unlock();
                        say("released");
                    }
                    default -> say("error unknown command " + line);
                }
            }
        }
    }

    private static void say(final String s) {
        System.out.println(s);
        System.out.flush();
    }
}
