package consumer;

import org.pthread4j.Cond;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.futex.Errno;
import org.pthread4j.ipc.SlotType;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.juc.PthreadLock;
import org.pthread4j.memory.Block;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a user's first program does with the library:
 * <pre>
 *   counter                4 threads add to a counter under a PthreadLock
 *   ping FILE ROUNDS       creates a sync file, then takes turns with "pong" through a
 *   pong FILE ROUNDS       process-shared robust Mutex + Cond in it (two processes)
 * </pre>
 * Prints one line that starts with "ok" on success, exits 1 otherwise.
 */
public final class Main {
    private Main() {
    }

    public static void main(final String[] args) throws Exception {
        final String where = Main.class.getModule().isNamed() ? "module path" : "class path";
        switch (args[0]) {
            case "counter" -> counter(where);
            case "ping" -> turns(where, Path.of(args[1]), Integer.parseInt(args[2]), 0);
            case "pong" -> turns(where, Path.of(args[1]), Integer.parseInt(args[2]), 1);
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static void counter(final String where) throws InterruptedException {
        final PthreadLock lock = new PthreadLock();
        final long[] count = {0};
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 100_000; i++) {
                    lock.lock();
                    try {
                        count[0]++;
                    } finally {
                        lock.unlock();
                    }
                }
            }));
        }
        for (final Thread t : threads) {
            t.join();
        }
        if (count[0] != 400_000) {
            System.out.println("FAIL counter: " + count[0] + " (" + where + ")");
            System.exit(1);
        }
        System.out.println("ok counter 400000 (" + where + ", " + lock + ")");
    }

    /** Player {@code me} waits for turn == me, flips it, signals; ROUNDS times. */
    private static void turns(final String where, final Path path, final int rounds, final int me) throws Exception {
        try (SyncFile file = SyncFile.openOrCreate(path, 8)) {
            final Mutex mutex = file.mutex("m", MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).build());
            final Cond cond = file.cond("c");
            final Block turn = file.slot("turn", SlotType.RAW, 4);
            for (int i = 0; i < rounds; i++) {
                check(mutex.lock(), "lock");
                while (turn.get(0) != me) {
                    check(cond.await(mutex), "await");
                }
                turn.set(0, 1 - me);
                check(cond.broadcast(), "broadcast");
                check(mutex.unlock(), "unlock");
            }
            System.out.println("ok " + (me == 0 ? "ping" : "pong") + " " + rounds + " turns (" + where
                + ", pid " + ProcessHandle.current().pid() + ")");
        }
    }

    private static void check(final int rc, final String what) {
        if (rc != 0) {
            System.out.println("FAIL " + what + ": " + Errno.name(rc));
            System.exit(1);
        }
    }
}
