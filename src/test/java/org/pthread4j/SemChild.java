package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.pthread4j.memory.Memory;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The second JVM of the cross-process semaphore tests: ping-pongs with the parent through two
 * semaphores, waiting on the first and posting the second, {@code rounds} times.
 *
 * <ul>
 * <li>{@code named A B ROUNDS}: two named semaphores the parent created;</li>
 * <li>{@code file PATH ROUNDS}: two unnamed process-shared semaphores at offsets 0 and 32 of a
 *     file the parent initialized.</li>
 * </ul>
 * Prints {@code ready}, then {@code done}, or {@code error ...} and exits 1.
 */
public final class SemChild {
    private SemChild() {
    }

    public static void main(final String[] args) throws Exception {
        final Sem ping;
        final Sem pong;
        final int rounds;
        Memory memory = null;
        if (args[0].equals("named")) {
            ping = Sem.open(args[1], 0);
            pong = Sem.open(args[2], 0);
            rounds = Integer.parseInt(args[3]);
        } else {
            memory = Memory.map(Path.of(args[1]), 2 * SemLayout.SIZE);
            ping = Sem.attach(memory.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT));
            pong = Sem.attach(memory.block(SemLayout.SIZE, SemLayout.SIZE, SemLayout.ALIGNMENT));
            rounds = Integer.parseInt(args[2]);
        }
        if (!ping.isPshared() || !pong.isPshared()) {
            fail("semaphores are not process-shared");
        }
        System.out.println("ready");
        for (int i = 0; i < rounds; i++) {
            final int r = ping.timedAwait(Timespec.after(Timespec.CLOCK_REALTIME, 60, TimeUnit.SECONDS));
            if (r != 0) {
                fail("wait " + Errno.name(r) + " in round " + i);
            }
            final int p = pong.post();
            if (p != 0) {
                fail("post " + Errno.name(p));
            }
        }
        if (memory != null) {
            memory.close();
        } else {
            ping.close();
            pong.close();
        }
        System.out.println("done");
        System.exit(0);
    }

    private static void fail(final String why) {
        System.out.println("error " + why);
        System.exit(1);
    }
}
