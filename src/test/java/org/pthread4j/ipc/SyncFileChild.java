package org.pthread4j.ipc;

import org.pthread4j.memory.Block;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM for the cross-process sync file tests. Argument: the file. Commands on standard
 * input, one a line; answers on standard output:
 * <ul>
 *   <li>{@code open CAPACITY}: open the file, creating it if missing; answers
 *       {@code opened <creatorPid> <createdMillis>}</li>
 *   <li>{@code race N THREADS [gate]}: with THREADS threads, each getting or creating slots
 *       {@code s0..s<N-1>} in order, answers {@code slot <name> <offset>} once per name and
 *       thread, then {@code raced}; with {@code gate}, the threads answer {@code armed} and wait
 *       until the first word of raw slot "gate" is not 0, each creation spends 100 µs in its
 *       initializer and each thread pauses 200 µs after each slot, so that racers overlap and
 *       take turns</li>
 *   <li>{@code get NAME}: get or create a raw 64-byte slot, answers {@code slot <name> <offset>}</li>
 *   <li>{@code hang NAME}: start creating a raw slot and never finish: answers {@code claimed}
 *       from inside the initializer, then parks forever</li>
 *   <li>{@code exit}</li>
 * </ul>
 */
public final class SyncFileChild {
    private SyncFileChild() {
    }

    /** @param args the file */
    public static void main(final String[] args) throws Exception {
        final Path path = Path.of(args[0]);
        SyncFile file = null;
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("ready");
        String line;
        while ((line = in.readLine()) != null) {
            final String[] w = line.trim().split(" ");
            switch (w[0]) {
                case "open" -> {
                    file = SyncFile.openOrCreate(path, Integer.parseInt(w[1]));
                    say("opened " + file.header().creatorPid() + " " + file.header().createdMillis());
                }
                case "race" -> {
                    final SyncFile f = file;
                    final int n = Integer.parseInt(w[1]);
                    final boolean gated = w.length > 3 && w[3].equals("gate");
                    final Block gate = gated ? f.slot("gate", SlotType.RAW, 8) : null;
                    final List<Thread> threads = new ArrayList<>();
                    for (int t = 0; t < Integer.parseInt(w[2]); t++) {
                        threads.add(Thread.ofPlatform().start(() -> {
                            while (gated && gate.get(0) == 0) {
                                Thread.onSpinWait();
                            }
                            for (int k = 0; k < n; k++) {
                                final SlotType type = SlotType.values()[k % SlotType.values().length];
                                final int size = type == SlotType.RAW ? 8 + 8 * (k % 5) : type.size();
                                final Block b = f.slot("s" + k, type, size, blk -> spin(gated ? 100_000 : 0));
                                say("slot s" + k + " " + b.offsetInMemory());
                                if (gated) {
                                    LockSupport.parkNanos(200_000);
                                }
                            }
                        }));
                    }
                    if (gated) {
                        say("armed");
                    }
                    for (final Thread t : threads) {
                        t.join();
                    }
                    say("raced");
                }
                case "get" -> say("slot " + w[1] + " " + file.slot(w[1], SlotType.RAW, 64).offsetInMemory());
                case "hang" -> file.slot(w[1], SlotType.RAW, 64, b -> {
                    say("claimed");
                    for (;;) {
                        LockSupport.park();
                    }
                });
                case "exit" -> {
                    if (file != null) {
                        file.close();
                    }
                    return;
                }
                default -> say("unknown command " + line);
            }
        }
    }

    /** Busy for that long: a creation that takes time, so that racers meet it (no sleep, no yield). */
    private static void spin(final long nanos) {
        final long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    private static void say(final String s) {
        synchronized (System.out) {
            System.out.println(s);
            System.out.flush();
        }
    }
}
