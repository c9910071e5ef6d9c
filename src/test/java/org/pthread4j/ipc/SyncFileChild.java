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
 *   <li>{@code race N THREADS}: with THREADS threads, each getting or creating slots
 *       {@code s0..s<N-1>} in order, answers {@code slot <name> <offset>} once per name and
 *       thread, then {@code raced}</li>
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
                    final List<Thread> threads = new ArrayList<>();
                    for (int t = 0; t < Integer.parseInt(w[2]); t++) {
                        threads.add(Thread.ofPlatform().start(() -> {
                            for (int k = 0; k < n; k++) {
                                final SlotType type = SlotType.values()[k % SlotType.values().length];
                                final int size = type == SlotType.RAW ? 8 + 8 * (k % 5) : type.size();
                                final Block b = f.slot("s" + k, type, size);
                                say("slot s" + k + " " + b.offsetInMemory());
                            }
                        }));
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

    private static void say(final String s) {
        synchronized (System.out) {
            System.out.println(s);
            System.out.flush();
        }
    }
}
