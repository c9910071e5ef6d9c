package org.pthread4j.cli;

import org.pthread4j.Cond;
import org.pthread4j.CondAttr;
import org.pthread4j.CondLayout;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.MutexLayout;
import org.pthread4j.RwLock;
import org.pthread4j.RwLockAttr;
import org.pthread4j.RwLockLayout;
import org.pthread4j.Sem;
import org.pthread4j.SemLayout;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.FutexTrace;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.internal.Syscall;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * {@code ./pthread4j demo trace [--futex BACKEND] [mutex|cond|rwlock|sem ...]} (parsed by
 * {@link DemoCommand}): runs a small
 * scenario per primitive with {@link FutexTrace} on and prints, step by step, what each thread
 * did, the words afterwards, and every futex operation the step issued. A reader sees the fast
 * paths make no futex call, the waiters bit turn an unlock into a wake, and a condvar broadcast
 * requeue a waiter onto the mutex without waking it.
 *
 * <p>Each scenario is deterministic: a thread is told to block only after the previous one is
 * seen asleep inside the futex layer (parked in the parking backend, or inside the futex
 * syscall on the word's address). A wait is recorded when it returns, so it appears in the step
 * that woke it. Times are relative to the scenario's first futex operation.
 *
 * <p>The chapters in {@code docs/} explain every step; this command shows them happening.
 */
public final class DemoTraceCommand {
    /** The scenarios, in the order they run when none is named. */
    public static final List<String> SCENARIOS = List.of("mutex", "cond", "rwlock", "sem");
    /** How long a step may take before the scenario is declared stuck: generous, machines are shared. */
    static final long STEP_TIMEOUT_SECONDS = 60;

    private DemoTraceCommand() {
    }

    /**
     * Runs scenarios.
     *
     * @param names the scenarios, from {@link #SCENARIOS}, in the order to run them
     * @param futex the backend of the scenarios' primitives
     * @param out   where the timelines go
     * @param err   where errors go
     * @return 0 done, 1 a scenario failed
     */
    public static int run(final List<String> names, final Futex futex, final PrintWriter out, final PrintWriter err) {
        final boolean wasEnabled = FutexTrace.isEnabled();
        try {
            for (final String name : names) {
                final Timeline t = new Timeline(out, futex);
                switch (name) {
                    case "mutex" -> mutex(t, futex);
                    case "cond" -> cond(t, futex);
                    case "rwlock" -> rwlock(t, futex);
                    default -> sem(t, futex);
                }
                out.println();
            }
            return 0;
        } catch (final ScenarioException e) {
            out.flush();
            err.println("pthread4j demo trace: " + e.getMessage());
            return 1;
        } finally {
            if (!wasEnabled) {
                FutexTrace.disable();
            }
            out.flush();
            err.flush();
        }
    }

    // -------------------------------------------------------------------------------------------
    // The scenarios

    /** An uncontended lock and unlock, then two threads contending for a NORMAL mutex. */
    static void mutex(final Timeline t, final Futex futex) {
        try (Memory mem = Memory.allocate(64); Actor t1 = new Actor("T1"); Actor t2 = new Actor("T2")) {
            final Block b = mem.block(0, MutexLayout.SIZE, MutexLayout.ALIGNMENT);
            final Mutex m = new Mutex(b, MutexAttr.builder().futex(futex).build());
            final long lock = b.address(MutexLayout.LOCK);
            t.name(lock, "m._m_lock");
            final Runnable words = () -> t.words("_m_lock = " + mutexWord(b.get(MutexLayout.LOCK))
                + ", _m_waiters = " + b.get(MutexLayout.WAITERS));
            t.title("mutex", "a NORMAL process-private mutex (musl pthread_mutex_lock.c, pthread_mutex_unlock.c), "
                + m.sleepProtocol() + " sleep protocol");

            t.step("T1: lock()  -- uncontended: one CAS of _m_lock from 0 to EBUSY (16)");
            t.expect(0, t1.call(m::lock), "lock");
            words.run();
            t.events();
            t.step("T1: unlock()  -- release _m_lock to 0; the old value has no waiters bit: no wake");
            t.expect(0, t1.call(m::unlock), "unlock");
            words.run();
            t.events();
            t.note("The fast path made no futex call: a lock and unlock nobody contends cost two atomic instructions.");

            t.step("T1: lock()  -- uncontended again");
            t.expect(0, t1.call(m::lock), "lock");
            t.events();
            t.step("T2: lock()  -- the CAS fails; T2 spins (only while nobody sleeps), counts itself in\n"
                + "      _m_waiters, sets bit 31 of _m_lock and sleeps (MUSL protocol: a CAS of the bit into the value it\n"
                + "      saw, then a wait on exactly that value; PARKING protocol: both in one set_bit_wait_join under the\n"
                + "      parking table's bucket lock, joining any sleepers already queued)");
            final Future<Integer> t2lock = t2.start(m::lock);
            t.awaitAsleep(t2, lock, () -> b.get(MutexLayout.WAITERS) == 1);
            words.run();
            t.events();
            t.note("T2 is asleep: its wait is in progress, and a wait is recorded when it returns.");
            t.step("T1: unlock()  -- the old value is 0x80000010: bit 31 says someone may sleep,\n"
                + "      so the unlock wakes one");
            t.expect(0, t1.call(m::unlock), "unlock");
            t.expect(0, t.get(t2lock, "T2's lock"), "T2's lock");
            words.run();
            t.events();
            t.note("T2 woke, counted itself out and, nobody else being counted, took the lock with a plain CAS\n"
                + "      0 -> 16: the bit is gone.");
            t.step("T2: unlock()  -- no bit in the old value and _m_waiters is 0: no wake");
            t.expect(0, t2.call(m::unlock), "unlock");
            words.run();
            t.events();
        }
    }

    /** A broadcast under the mutex to three waiters: one wake, then requeues onto the mutex. */
    static void cond(final Timeline t, final Futex futex) {
        try (Memory mem = Memory.allocate(256); Actor sig = new Actor("S");
             Actor w1 = new Actor("W1"); Actor w2 = new Actor("W2"); Actor w3 = new Actor("W3")) {
            final Block mb = mem.block(0, MutexLayout.SIZE, MutexLayout.ALIGNMENT);
            final Block cb = mem.block(64, CondLayout.SIZE, CondLayout.ALIGNMENT);
            final Mutex m = new Mutex(mb, MutexAttr.builder().futex(futex).build());
            final Cond c = new Cond(cb, CondAttr.builder().futex(futex).build());
            final long lock = mb.address(MutexLayout.LOCK);
            t.name(lock, "m._m_lock");
            t.name(cb.address(CondLayout.LOCK), "c._c_lock");
            final boolean[] flag = new boolean[1];
            final Runnable words = () -> t.words("_m_lock = " + mutexWord(mb.get(MutexLayout.LOCK))
                + ", _m_waiters = " + mb.get(MutexLayout.WAITERS));
            t.title("cond", "a private condvar and a NORMAL mutex (musl pthread_cond_timedwait.c, "
                + "pthread_cond_broadcast.c), " + c.sleepProtocol() + " sleep protocol");

            t.step("W1, W2, W3, one after the other: lock(m); while (!flag) wait(c, m)\n"
                + "      -- each links its node at the head of c's list, unlocks m, and sleeps on its OWN\n"
                + "         node's barrier word (a three-state lock that starts at 2, 'held with sleepers')");
            final List<Future<Integer>> waits = new ArrayList<>();
            final Actor[] ws = {w1, w2, w3};
            for (final Actor w : ws) {
                final long before = cb.getLong(CondLayout.HEAD);
                waits.add(w.start(() -> {
                    int r = m.lock();
                    while (r == 0 && !flag[0]) {
                        r = c.await(m);
                    }
                    return r;
                }));
                t.await(() -> cb.getLong(CondLayout.HEAD) != before, w.name + " to join the list");
                final long node = cb.getLong(CondLayout.HEAD);
                t.name(node + CondLayout.NODE_BARRIER, w.name + ".barrier");
                t.awaitAsleep(w, node + CondLayout.NODE_BARRIER, () -> true);
            }
            t.events();
            t.note("Nothing so far: each waiter took m and c._c_lock uncontended, and its sleep is in progress.");

            t.step("S: lock(m); flag = true; broadcast(c)\n"
                + "      -- under c._c_lock, S walks the list from the oldest waiter, turns W1, W2, W3 from WAITING\n"
                + "         to SIGNALED and detaches them, then releases only W1's barrier: ONE futex wake");
            t.expect(0, sig.call(() -> {
                final int r = m.lock();
                flag[0] = true;
                return r == 0 ? c.broadcast() : r;
            }), "lock and broadcast");
            t.events();
            t.step("W1 wakes, takes its barrier, and tries to relock m, which S holds: it sleeps on m._m_lock");
            t.awaitAsleep(w1, lock, () -> mb.get(MutexLayout.WAITERS) == 1);
            words.run();
            t.events();
            t.note("W2 and W3 are still asleep on their barriers: signaled, but not woken.");
            t.step("S: unlock(m)  -- the old value has bit 31: wake one (W1)\n"
                + "  W1: owns m; as the group's first member it raises _m_waiters (so that the mutex keeps waking\n"
                + "      while the group drains), sets bit 31 of m, zeroes W2's barrier and REQUEUES W2 from its\n"
                + "      barrier onto m._m_lock (wake 0, move 1); W1 returns from wait, then unlock(m) wakes W2\n"
                + "  W2: wakes from the mutex word, does the same for W3\n"
                + "  W3: the group's last member lowers _m_waiters; MUSL protocol: its unlock wakes nobody;\n"
                + "      PARKING protocol: it relocked as a thread the mutex woke while the group was counted, so it\n"
                + "      recorded bit 31, and its unlock wakes once and finds nobody");
            t.expect(0, sig.call(m::unlock), "unlock");
            for (int i = 0; i < ws.length; i++) {
                t.expect(0, t.get(waits.get(i), ws[i].name + "'s wait"), ws[i].name + "'s wait");
                t.expect(0, ws[i].call(m::unlock), ws[i].name + "'s unlock");
            }
            words.run();
            t.events();
            t.note("One broadcast to three waiters: a wake by the broadcaster, then one requeue and one wake per\n"
                + "      handoff; no call woke more than one thread, so the mutex never saw a stampede. A requeued\n"
                + "      waiter's wait is recorded on the barrier word it went to sleep on.");
        }
    }

    /** Two readers, a writer that waits for them, two readers that wait for the writer. */
    static void rwlock(final Timeline t, final Futex futex) {
        try (Memory mem = Memory.allocate(64); Actor r1 = new Actor("R1"); Actor r2 = new Actor("R2");
             Actor w = new Actor("W"); Actor r3 = new Actor("R3"); Actor r4 = new Actor("R4")) {
            final Block b = mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
            final RwLock rw = new RwLock(b, RwLockAttr.privateOn(futex));
            final long lock = b.address(RwLockLayout.LOCK);
            t.name(lock, "rw._rw_lock");
            final Runnable words = () -> t.words("_rw_lock = " + rwWord(b.get(RwLockLayout.LOCK))
                + ", _rw_waiters = " + b.get(RwLockLayout.WAITERS));
            t.title("rwlock", "a private read-write lock (musl pthread_rwlock_*.c), " + rw.sleepProtocol()
                + " sleep protocol");

            t.step("R1: rdLock(); R2: rdLock()  -- each a CAS of the count, +1");
            t.expect(0, r1.call(rw::rdLock), "rdlock");
            t.expect(0, r2.call(rw::rdLock), "rdlock");
            words.run();
            t.events();
            t.step("W: wrLock()  -- the CAS 0 -> 0x7fffffff fails; W spins, counts itself in _rw_waiters,\n"
                + "      sets bit 31 and sleeps while the lock stays busy");
            final Future<Integer> wlock = w.start(rw::wrLock);
            t.awaitAsleep(w, lock, () -> b.get(RwLockLayout.WAITERS) == 1);
            words.run();
            t.events();
            t.step("R1: unlock()  -- not the last reader: the count drops, the bit stays, no wake");
            t.expect(0, r1.call(rw::unlock), "unlock");
            words.run();
            t.events();
            t.step("R2: unlock()  -- the last reader: the word becomes 0, and since _rw_waiters was 1, it wakes\n"
                + "      cnt = 1 thread (only writers can sleep behind readers)");
            t.expect(0, r2.call(rw::unlock), "unlock");
            t.expect(0, t.get(wlock, "W's wrlock"), "wrlock");
            words.run();
            t.events();
            t.step("R3: rdLock(); R4: rdLock()  -- a writer holds the lock: both sleep (readers sleep only behind\n"
                + "      a writer), counted in _rw_waiters");
            final Future<Integer> r3lock = r3.start(rw::rdLock);
            t.awaitAsleep(r3, lock, () -> b.get(RwLockLayout.WAITERS) == 1);
            final Future<Integer> r4lock = r4.start(rw::rdLock);
            t.awaitAsleep(r4, lock, () -> b.get(RwLockLayout.WAITERS) == 2);
            words.run();
            t.events();
            t.step("W: unlock()  -- MUSL protocol: a writer's unlock wakes cnt = 0x7fffffff, ALL sleepers: R3 and R4\n"
                + "      both get in. PARKING protocol: it wakes one, R3, which gets in while another thread is counted and\n"
                + "      passes a wake on (the readers' chain): R4 gets in too");
            t.expect(0, w.call(rw::unlock), "unlock");
            t.expect(0, t.get(r3lock, "R3's rdlock"), "rdlock");
            t.expect(0, t.get(r4lock, "R4's rdlock"), "rdlock");
            words.run();
            t.events();
            t.step("R3: unlock(); R4: unlock()  -- MUSL protocol: _rw_waiters is 0 and the bit is gone: no wake.\n"
                + "      PARKING protocol: R3 recorded bit 31 when it got in (R4 was still counted), so the last\n"
                + "      reader's unlock wakes once more and finds nobody: the bit rule's price");
            t.expect(0, r3.call(rw::unlock), "unlock");
            t.expect(0, r4.call(rw::unlock), "unlock");
            words.run();
            t.events();
        }
    }

    /** A wait that takes a permit, a post/wait handoff, and musl's wake rule with two sleepers. */
    static void sem(final Timeline t, final Futex futex) {
        try (Memory mem = Memory.allocate(64); Actor p = new Actor("P"); Actor a = new Actor("A");
             Actor bb = new Actor("B")) {
            final Block b = mem.block(0, SemLayout.SIZE, SemLayout.ALIGNMENT);
            final Sem s = new Sem(b, false, 1, futex);
            final long val = b.address(SemLayout.VALUE);
            t.name(val, "s.__val[0]");
            final Runnable words = () -> t.words("__val[0] = " + semWord(b.get(SemLayout.VALUE))
                + ", __val[1] (waiters) = " + b.get(SemLayout.WAITERS));
            t.title("sem", "a private semaphore with value 1 (musl sem_wait.c, sem_timedwait.c, sem_post.c)");

            t.step("A: await()  -- a permit is there: one CAS takes it");
            t.expect(0, a.call(s::await), "await");
            words.run();
            t.events();
            t.step("A: await()  -- none left: A spins, counts itself in __val[1], CAS 0 -> 0x80000000 (the sticky\n"
                + "      'sleepers may exist' bit) and sleeps while the word is 0x80000000");
            Future<Integer> fa = a.start(s::await);
            t.awaitAsleep(a, val, () -> b.get(SemLayout.WAITERS) == 1);
            words.run();
            t.events();
            t.step("P: post()  -- P read __val[1] = 1 BEFORE its CAS: at most one waiter seen, so it clears the bit\n"
                + "      and wakes ALL (n = -1): any waiter it did not count wakes and sets the bit again");
            t.expect(0, p.call(s::post), "post");
            t.expect(0, t.get(fa, "A's await"), "await");
            words.run();
            t.events();

            t.step("A: await(); B: await()  -- both sleep; __val[1] = 2");
            fa = a.start(s::await);
            t.awaitAsleep(a, val, () -> b.get(SemLayout.WAITERS) == 1);
            final Future<Integer> fb = bb.start(s::await);
            t.awaitAsleep(bb, val, () -> b.get(SemLayout.WAITERS) == 2);
            words.run();
            t.events();
            t.step("P: post()  -- two waiters seen: the bit stays (0x80000001) and ONE is woken");
            t.expect(0, p.call(s::post), "post");
            final Future<Integer> first = t.firstDone(fa, fb);
            t.expect(0, t.get(first, "a waiter's await"), "await");
            final Future<Integer> second = first == fa ? fb : fa;
            t.await(() -> b.get(SemLayout.WAITERS) == 1, "the woken waiter to count itself out");
            words.run();
            t.events();
            t.step("P: post()  -- one waiter seen: clear the bit, wake all");
            t.expect(0, p.call(s::post), "post");
            t.expect(0, t.get(second, "the other waiter's await"), "await");
            words.run();
            t.events();
        }
    }

    // -------------------------------------------------------------------------------------------
    // Word decoders

    static String mutexWord(final int w) {
        final String hex = String.format("0x%08x", w);
        if (w == 0) {
            return hex + " (free)";
        }
        final String held = (w & MutexLayout.OWNER_MASK) == Errno.EBUSY ? "locked" : "held";
        return hex + " (" + held + ((w & MutexLayout.WAITERS_BIT) != 0 ? ", waiters bit set" : "") + ")";
    }

    static String rwWord(final int w) {
        final int cnt = w & RwLockLayout.COUNT_MASK;
        final String what = cnt == 0 ? "free" : cnt == RwLockLayout.WRITE_LOCKED ? "write-locked"
            : cnt + (cnt == 1 ? " reader" : " readers");
        return String.format("0x%08x", w) + " (" + what + (w < 0 ? ", waiters bit set" : "") + ")";
    }

    static String semWord(final int w) {
        return String.format("0x%08x", w) + " (value " + (w & SemLayout.SEM_VALUE_MAX)
            + (w < 0 ? ", waiters bit set" : "") + ")";
    }

    // -------------------------------------------------------------------------------------------
    // Machinery

    /** A scenario could not proceed (a thread did not fall asleep, a result was wrong). */
    static final class ScenarioException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ScenarioException(final String message, final Throwable cause) {
            super(message, cause);
        }
    }

    /** A named platform thread that runs what it is given, in order. */
    static final class Actor implements AutoCloseable {
        final String name;
        private final ExecutorService executor;
        final Thread thread;
        final int tid;

        Actor(final String name) {
            this.name = name;
            this.executor = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name(name).daemon().unstarted(r));
            try {
                final Object[] who = executor.submit(() -> new Object[] {Thread.currentThread(), ThreadIds.current()})
                    .get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                this.thread = (Thread) who[0];
                this.tid = (Integer) who[1];
            } catch (final InterruptedException | ExecutionException | TimeoutException e) {
                executor.shutdownNow();
                throw new ScenarioException("thread " + name + " did not start", e);
            }
        }

        Future<Integer> start(final IntSupplier op) {
            return executor.submit(op::getAsInt);
        }

        int call(final IntSupplier op) {
            return Timeline.get(start(op), name);
        }

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }

    /** Prints a scenario: titles, word states and the futex operations recorded since the last look. */
    static final class Timeline {
        private final PrintWriter out;
        private final Futex futex;
        private final Map<Long, String> names = new LinkedHashMap<>();
        private long nextSeq;
        private long origin = Long.MIN_VALUE;
        private int steps;

        Timeline(final PrintWriter out, final Futex futex) {
            this.out = out;
            this.futex = futex;
            FutexTrace.enable(1024);
        }

        void name(final long address, final String name) {
            names.put(address, name);
        }

        void title(final String scenario, final String what) {
            out.println("== " + scenario + ": " + what + ", futex backend " + futex.name());
            out.println("   (each futex call is listed when it returns, with its time since the scenario's first call:");
            out.println("   a woken wait may be listed just before the wake that woke it)");
        }

        void step(final String what) {
            out.println();
            out.println(String.format("%2d. ", ++steps) + what);
        }

        void words(final String state) {
            out.println("    words:  " + state);
        }

        void note(final String text) {
            out.println("    note:   " + text);
        }

        /** Prints the operations recorded since the last call, or that there were none. */
        void events() {
            final List<FutexTrace.Event> all = FutexTrace.snapshot();
            final List<FutexTrace.Event> fresh = new ArrayList<>();
            for (final FutexTrace.Event e : all) {
                if (e.seq() >= nextSeq) {
                    fresh.add(e);
                }
            }
            if (!all.isEmpty()) {
                nextSeq = all.getLast().seq() + 1;
            }
            if (fresh.isEmpty()) {
                out.println("    futex:  none");
                return;
            }
            if (origin == Long.MIN_VALUE) {
                origin = fresh.getFirst().nanos();
            }
            out.println("    futex:");
            for (final FutexTrace.Event e : fresh) {
                out.println("      " + format(e));
            }
            out.flush();
        }

        String word(final long address) {
            final String n = names.get(address);
            return n != null ? n : String.format("%#x", address);
        }

        String format(final FutexTrace.Event e) {
            final String time = String.format("%+10.1f us", (e.nanos() - origin) / 1e3);
            final String op = e.op() + (e.priv() ? "" : "(shared)");
            final String args;
            final String result;
            switch (e.op()) {
                case "set_bit_wait", "set_bit_wait_join" -> {
                    args = word(e.address()) + String.format(" bit=0x%08x", (int) e.value());
                    result = e.result() == 0 ? "0 (woken)"
                        : e.result() == Errno.EAGAIN ? "EAGAIN (the word was free: no sleep)" : Errno.name(e.result());
                }
                case "wait", "set_wait" -> {
                    args = word(e.address()) + String.format(" val=0x%08x", (int) e.value());
                    result = e.result() == 0 ? "0 (woken)"
                        : e.result() == Errno.EAGAIN ? "EAGAIN (the word had changed: no sleep)" : Errno.name(e.result());
                }
                case "wake" -> {
                    args = word(e.address()) + " n=" + (e.value() < 0 || e.value() == Integer.MAX_VALUE
                        ? e.value() + " (all)" : Long.toString(e.value()));
                    result = e.result() < 0 ? Errno.name(e.result()) : e.result() + " woken";
                }
                case "requeue" -> {
                    final int nWake = (int) (e.value() >>> 32);
                    final int nRequeue = (int) e.value();
                    args = word(e.address()) + " -> " + word(e.address2()) + " wake " + nWake + ", move " + nRequeue;
                    result = e.result() < 0 ? Errno.name(e.result())
                        : nWake == 0 ? e.result() + " moved, none woken" : e.result() + " woken or moved";
                }
                default -> {
                    args = word(e.address()) + (e.address2() != 0 ? " -> " + word(e.address2()) : "")
                        + " val=" + e.value();
                    result = Integer.toString(e.result());
                }
            }
            return String.format("%s  %-3s %-8s %-42s -> %s", time, e.thread(), op, args, result);
        }

        /** Polls until {@code condition} holds. */
        void await(final BooleanSupplier condition, final String what) {
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_TIMEOUT_SECONDS);
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() > end) {
                    throw new ScenarioException("timed out waiting for " + what, null);
                }
                Thread.onSpinWait();
                Thread.yield();
            }
        }

        /** Polls until the actor sleeps in the futex layer on {@code address} and {@code also} holds. */
        void awaitAsleep(final Actor a, final long address, final BooleanSupplier also) {
            await(() -> also.getAsBoolean() && asleep(a, address), a.name + " to fall asleep on " + word(address));
        }

        private boolean asleep(final Actor a, final long address) {
            if (futex instanceof ParkingFutex) {
                final Thread.State s = a.thread.getState();
                return (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING)
                    && LockSupport.getBlocker(a.thread) == futex;
            }
            try {
                final String[] f = Files.readString(Path.of("/proc/self/task/" + a.tid + "/syscall")).trim().split(" ");
                return f.length > 1 && Long.parseLong(f[0]) == Syscall.SYS_FUTEX
                    && Long.parseUnsignedLong(f[1].substring(2), 16) == address;
            } catch (final IOException | RuntimeException e) {
                return false;
            }
        }

        @SafeVarargs
        final Future<Integer> firstDone(final Future<Integer>... futures) {
            final Future<Integer>[] done = new Future[1];
            await(() -> {
                for (final Future<Integer> f : futures) {
                    if (f.isDone()) {
                        done[0] = f;
                        return true;
                    }
                }
                return false;
            }, "a woken waiter to return");
            return done[0];
        }

        void expect(final int expected, final int actual, final String what) {
            if (actual != expected) {
                throw new ScenarioException(what + " returned " + Errno.name(actual) + ", expected "
                    + Errno.name(expected), null);
            }
        }

        static int get(final Future<Integer> f, final String what) {
            try {
                return f.get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (final TimeoutException e) {
                throw new ScenarioException(what + " did not return within " + STEP_TIMEOUT_SECONDS + " s", e);
            } catch (final ExecutionException e) {
                throw new ScenarioException(what + " failed: " + e.getCause(), e.getCause());
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ScenarioException("interrupted waiting for " + what, e);
            }
        }
    }
}
