package org.pthread4j.ipc;

import org.pthread4j.Barrier;
import org.pthread4j.Cond;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.RwLock;
import org.pthread4j.Sem;
import org.pthread4j.memory.Block;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A child JVM for the two-JVM primitive tests. Argument: the file. Prints {@code ready}, then
 * runs commands from standard input, answering one line each ({@code done ...} or
 * {@code error ...}):
 * <ul>
 *   <li>{@code count N}: N times lock robust mutex "m", add 1 to raw "counter", unlock</li>
 *   <li>{@code pong N}: N rounds on "m", cond "c", raw "turn": wait for turn 1, set 0, signal</li>
 *   <li>{@code rwread N}: N read locks of rwlock "rw", each checking raw "pair" words equal</li>
 *   <li>{@code rwwrite N}: N write locks of "rw", each adding 1 to both "pair" words</li>
 *   <li>{@code sempong N}: N times wait sem "ping", post sem "pong"</li>
 *   <li>{@code barrier N}: N cycles of barrier "b" (count 2), checking raw "cycle"</li>
 *   <li>{@code once}: run once control "o" with a routine that adds 1 to raw "runs" after a
 *       pause; answers {@code done <result>}</li>
 *   <li>{@code hold}: lock robust mutex "r", print {@code locked TID}, sleep until killed</li>
 *   <li>{@code churn}: lock "r", set raw "inside" to 1, spin a while, set it 0, unlock, repeat until
 *       killed; prints {@code churning} first</li>
 *   <li>{@code exit}</li>
 * </ul>
 */
public final class PrimitivesChild {
    /** The robust, process-shared errorcheck mutex the tests share. */
    public static final MutexAttr ROBUST = MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).pshared(true).build();

    private PrimitivesChild() {
    }

    /** @param args the file */
    public static void main(final String[] args) throws Exception {
        try (SyncFile f = SyncFile.open(Path.of(args[0]))) {
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            System.out.println("ready");
            System.out.flush();
            String line;
            while ((line = in.readLine()) != null) {
                final String[] w = line.trim().split(" ");
                final long n = w.length > 1 ? Long.parseLong(w[1]) : 0;
                final String answer = switch (w[0]) {
                    case "count" -> count(f, n);
                    case "pong" -> pong(f, n);
                    case "rwread" -> rw(f, n, false);
                    case "rwwrite" -> rw(f, n, true);
                    case "sempong" -> sempong(f, n);
                    case "barrier" -> barrier(f, n);
                    case "once" -> once(f);
                    case "hold" -> hold(f);
                    case "churn" -> churn(f);
                    case "exit" -> null;
                    default -> "error unknown command " + line;
                };
                if (answer == null) {
                    return;
                }
                System.out.println(answer);
                System.out.flush();
            }
        }
    }

    static String count(final SyncFile f, final long n) {
        final Mutex m = f.mutex("m", ROBUST);
        final Block counter = f.slot("counter", SlotType.RAW, 8);
        for (long i = 0; i < n; i++) {
            final int r = m.lock();
            if (r != 0) {
                return "error lock " + Errno.name(r);
            }
            counter.set(0, counter.get(0) + 1);
            final int u = m.unlock();
            if (u != 0) {
                return "error unlock " + Errno.name(u);
            }
        }
        return "done";
    }

    static String pong(final SyncFile f, final long n) {
        final Mutex m = f.mutex("m", ROBUST);
        final Cond c = f.cond("c");
        final Block turn = f.slot("turn", SlotType.RAW, 8);
        for (long i = 0; i < n; i++) {
            check(m.lock(), "lock");
            while (turn.get(0) != 1) {
                check(c.await(m), "wait");
            }
            turn.set(0, 0);
            check(c.signal(), "signal");
            check(m.unlock(), "unlock");
        }
        return "done";
    }

    static String rw(final SyncFile f, final long n, final boolean write) {
        final RwLock rw = f.rwlock("rw");
        final Block pair = f.slot("pair", SlotType.RAW, 8);
        long torn = 0;
        for (long i = 0; i < n; i++) {
            if (write) {
                check(rw.wrLock(), "wrlock");
                pair.set(0, pair.get(0) + 1);
                Thread.onSpinWait();
                pair.set(4, pair.get(4) + 1);
            } else {
                check(rw.rdLock(), "rdlock");
                if (pair.get(0) != pair.get(4)) {
                    torn++;
                }
            }
            check(rw.unlock(), "unlock");
        }
        return "done torn " + torn;
    }

    static String sempong(final SyncFile f, final long n) {
        final Sem ping = f.sem("ping", 0);
        final Sem pong = f.sem("pong", 0);
        for (long i = 0; i < n; i++) {
            check(ping.await(), "sem wait");
            check(pong.post(), "sem post");
        }
        return "done";
    }

    static String barrier(final SyncFile f, final long n) {
        final Barrier b = f.barrier("b", 2);
        final Block cycle = f.slot("cycle", SlotType.RAW, 8);
        int serial = 0;
        for (long i = 0; i < n; i++) {
            cycle.getAndAdd(0, 1);
            final int r = b.await();
            if (r == Barrier.SERIAL_THREAD) {
                serial++;
            } else if (r != 0) {
                return "error barrier " + Errno.name(r);
            }
            if (cycle.get(0) != 2 * (i + 1)) {
                return "error cycle " + i + " passed with " + cycle.get(0) + " arrivals";
            }
            check(b.await(), "second barrier");
        }
        return "done serial " + serial;
    }

    static String once(final SyncFile f) {
        final Block runs = f.slot("runs", SlotType.RAW, 8);
        final int r = f.once("o").run(() -> {
            runs.getAndAdd(0, 1);
            final long until = System.nanoTime() + 50_000_000L;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        });
        return "done " + Errno.name(r) + " runs " + runs.get(0);
    }

    static String hold(final SyncFile f) {
        final Mutex r = f.mutex("r", ROBUST);
        final int e = r.lock();
        if (e != 0 && e != Errno.EOWNERDEAD) {
            return "error lock " + Errno.name(e);
        }
        System.out.println("locked " + org.pthread4j.internal.Syscall.gettid());
        System.out.flush();
        for (;;) {
            java.util.concurrent.locks.LockSupport.park();
        }
    }

    static String churn(final SyncFile f) {
        final Mutex r = f.mutex("r", ROBUST);
        final Block inside = f.slot("inside", SlotType.RAW, 8);
        System.out.println("churning");
        System.out.flush();
        for (;;) {
            final int e = r.lock();
            if (e == Errno.EOWNERDEAD) {
                r.consistent();
            } else if (e != 0) {
                return "error lock " + Errno.name(e);
            }
            inside.set(0, 1);
            final long until = System.nanoTime() + 5_000_000;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            inside.set(0, 0);
            r.unlock();
        }
    }

    private static void check(final int r, final String what) {
        if (r != 0 && r != Barrier.SERIAL_THREAD) {
            throw new IllegalStateException(what + " returned " + Errno.name(r));
        }
    }
}
