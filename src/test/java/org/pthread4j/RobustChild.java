package org.pthread4j;

import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Memory;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The second JVM of {@link MutexKillTest}: maps the file, attaches the mutexes at the given
 * offsets (initialized by the parent), locks them all, prints {@code locked <tid>}, then waits
 * on standard input until it is killed.
 */
public final class RobustChild {
    private RobustChild() {
    }

    public static void main(final String[] args) throws Exception {
        final Memory mem = Memory.map(Path.of(args[0]));
        final StringBuilder results = new StringBuilder();
        for (int i = 1; i < args.length; i++) {
            final Mutex m = Mutex.attach(mem.block(Long.parseLong(args[i]), MutexLayout.SIZE, MutexLayout.ALIGNMENT));
            results.append(m.lock());
        }
        System.out.println("results " + results);
        System.out.println("locked " + ThreadIds.current());
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            // hold the locks until killed
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}
