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
import org.pthread4j.SleepProtocol;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.FutexTrace;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.futex.Timespec;
import org.pthread4j.internal.Syscall;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * {@code ./pthread4j demo trace [--futex BACKEND | --musl] [mutex|cond|rwlock|sem ...]} (parsed by
 * {@link DemoCommand}): runs a small scenario per primitive with {@link FutexTrace} on and prints,
 * step by step, what each thread did, the words afterwards, and every futex operation the step
 * issued, in the order they happened. A reader sees the fast paths make no futex call, the
 * waiters bit turn an unlock into a wake, and a condvar broadcast requeue a waiter onto the mutex
 * without waking it.
 *
 * <p>Each scenario is deterministic: a thread is told to block only after the previous one is
 * seen asleep inside the futex layer (parked in the parking backend, or inside the futex
 * syscall on the word's address). Each step is one action of the demo, so nothing the demo
 * waits for between steps is inside a step's times. The trace records a wake or requeue when it
 * is issued and a wait when it starts sleeping and when it returns, with sequence numbers and
 * times taken together ({@link FutexTrace#enable(int, boolean)}), so the lines of a step are in
 * the order the operations happened and their times, in microseconds since the step's first
 * operation, never go back. Before a wake or requeue of the primitive's own word, the words as
 * the waking thread saw them after its release are printed: the state between a release and
 * its wake.
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
        return run(names, futex, false, out, err);
    }

    /**
     * Runs scenarios.
     *
     * @param names the scenarios, from {@link #SCENARIOS}, in the order to run them
     * @param backend the backend of the scenarios' primitives
     * @param musl  whether the run was asked for as musl's exact protocol (the kernel backend): the
     *              titles say so
     * @param out   where the timelines go
     * @param err   where errors go
     * @return 0 done, 1 a scenario failed
     */
    public static int run(final List<String> names, final Futex backend, final boolean musl, final PrintWriter out,
                          final PrintWriter err) {
        final boolean wasEnabled = FutexTrace.isEnabled();
        try {
            for (final String name : names) {
                final Timeline t = new Timeline(out, backend, musl);
                final Futex futex = t.futex;
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
            t.watch(lock, () -> new int[] {b.get(MutexLayout.LOCK), b.get(MutexLayout.WAITERS)},
                v -> "_m_lock = " + mutexWord(v[0]) + ", _m_waiters = " + v[1]);
            final Runnable words = t::words;
            t.title("mutex", "a NORMAL process-private mutex (musl pthread_mutex_lock.c, pthread_mutex_unlock.c)",
                m.sleepProtocol());

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
            t.note("T2's wait is listed when it starts sleeping; it is listed again when it returns.");
            t.step("T1: unlock()  -- the old value is 0x80000010: bit 31 says someone may sleep,\n"
                + "      so the unlock wakes one");
            t.expect(0, t1.call(m::unlock), "unlock");
            t.expect(0, t.get(t2lock, "T2's lock"), "T2's lock");
            words.run();
            t.events();
            t.note("Between T1's release and its wake the word was 0 with T2 still counted. T2 woke, counted\n"
                + "      itself out and, nobody else being counted, took the lock with a plain CAS 0 -> 16: the bit is gone.");
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
            t.watch(lock, () -> new int[] {mb.get(MutexLayout.LOCK), mb.get(MutexLayout.WAITERS)},
                v -> "_m_lock = " + mutexWord(v[0]) + ", _m_waiters = " + v[1]);
            final boolean[] flag = new boolean[1];
            t.title("cond", "a private condvar and a NORMAL mutex (musl pthread_cond_timedwait.c, "
                + "pthread_cond_broadcast.c)", c.sleepProtocol());

            final List<Future<Integer>> waits = new ArrayList<>();
            final Actor[] ws = {w1, w2, w3};
            for (final Actor w : ws) {
                t.step(w.name + ": lock(m); while (!flag) wait(c, m); unlock(m)\n"
                    + "      -- " + w.name + " links its node at the head of c's list, unlocks m, and sleeps on its OWN\n"
                    + "         node's barrier word (a three-state lock that starts held: 2, 'held with sleepers')");
                final long before = cb.getLong(CondLayout.HEAD);
                waits.add(w.start(() -> {
                    int r = m.lock();
                    while (r == 0 && !flag[0]) {
                        r = c.await(m);
                    }
                    return r == 0 ? m.unlock() : r;
                }));
                t.await(() -> cb.getLong(CondLayout.HEAD) != before, w.name + " to join the list");
                final long node = cb.getLong(CondLayout.HEAD);
                t.name(node + CondLayout.NODE_BARRIER, w.name + ".barrier");
                t.awaitAsleep(w, node + CondLayout.NODE_BARRIER, () -> true);
                t.events();
            }
            t.note("Each waiter took m and c._c_lock uncontended; only its sleep on its own barrier is a futex call.");

            t.step("S: lock(m); flag = true; broadcast(c)\n"
                + "      -- under c._c_lock, S walks the list from the oldest waiter, turns W1, W2, W3 from WAITING\n"
                + "         to SIGNALED and detaches them, then releases only W1's barrier: ONE futex wake.\n"
                + "         W1 wakes, takes its barrier, and tries to relock m, which S holds: it sleeps on m._m_lock");
            t.expect(0, sig.call(() -> {
                final int r = m.lock();
                flag[0] = true;
                return r == 0 ? c.broadcast() : r;
            }), "lock and broadcast");
            t.awaitAsleep(w1, lock, () -> mb.get(MutexLayout.WAITERS) == 1);
            t.words();
            t.events();
            t.note("W2 and W3 are still asleep on their barriers: signaled, but not woken.");
            t.step("S: unlock(m)  -- the old value has bit 31: wake one (W1)\n"
                + "  W1: owns m; as the group's first member it raises _m_waiters (so that the mutex keeps waking\n"
                + "      while the group drains), sets bit 31 of m, zeroes W2's barrier and REQUEUES W2 from its\n"
                + "      barrier onto m._m_lock (wake 0, move 1); W1 returns from wait, then unlock(m) wakes W2\n"
                + "  W2: wakes from the MUTEX word (it was requeued there), does the same for W3\n"
                + "  W3: relocks m while the raise still counts, then, as the group's last member, lowers _m_waiters;\n"
                + "      MUSL protocol: its unlock wakes nobody; PARKING protocol: it relocked as a thread the mutex\n"
                + "      woke while the group was counted, so it recorded bit 31, and its unlock wakes once and finds nobody");
            t.expect(0, sig.call(m::unlock), "unlock");
            for (int i = 0; i < ws.length; i++) {
                t.expect(0, t.get(waits.get(i), ws[i].name + "'s wait and unlock"), ws[i].name + "'s wait and unlock");
            }
            t.words();
            t.events();
            t.note("One broadcast to three waiters: a wake by the broadcaster, then one requeue and one wake per\n"
                + "      handoff; no call woke more than one thread, so the mutex never saw a stampede. W2 and W3 went\n"
                + "      to sleep on their barriers and were woken from m._m_lock, where a requeue had moved them.");
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
            t.watch(lock, () -> new int[] {b.get(RwLockLayout.LOCK), b.get(RwLockLayout.WAITERS)},
                v -> "_rw_lock = " + rwWord(v[0]) + ", _rw_waiters = " + v[1]);
            final Runnable words = t::words;
            t.title("rwlock", "a private read-write lock (musl pthread_rwlock_*.c)", rw.sleepProtocol());

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
            t.step("R3: rdLock()  -- a writer holds the lock: R3 sleeps (readers sleep only behind a writer),\n"
                + "      counted in _rw_waiters");
            final Future<Integer> r3lock = r3.start(rw::rdLock);
            t.awaitAsleep(r3, lock, () -> b.get(RwLockLayout.WAITERS) == 1);
            words.run();
            t.events();
            t.step("R4: rdLock()  -- the same: R4 sleeps behind the writer too");
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
            t.step("R3: unlock()  -- not the last reader: no wake");
            t.expect(0, r3.call(rw::unlock), "unlock");
            words.run();
            t.events();
            t.step("R4: unlock()  -- the last reader. MUSL protocol: _rw_waiters is 0 and the bit is gone: no wake.\n"
                + "      PARKING protocol: R3 recorded bit 31 when it got in (R4 was still counted), so the last\n"
                + "      reader's unlock wakes once more and finds nobody: the bit rule's price");
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
            t.watch(val, () -> new int[] {b.get(SemLayout.VALUE), b.get(SemLayout.WAITERS)},
                v -> "__val[0] = " + semWord(v[0]) + ", __val[1] (waiters) = " + v[1]);
            final Runnable words = t::words;
            t.title("sem", "a private semaphore with value 1 (musl sem_wait.c, sem_timedwait.c, sem_post.c)", null);

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

            t.step("A: await()  -- A sleeps again; __val[1] = 1");
            fa = a.start(s::await);
            t.awaitAsleep(a, val, () -> b.get(SemLayout.WAITERS) == 1);
            words.run();
            t.events();
            t.step("B: await()  -- B sleeps too; __val[1] = 2");
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

    /** The parking backend's own operations: a kernel has no such call. */
    static final Set<String> PARKING_ONLY = Set.of("set_wait", "set_bit_wait", "set_bit_wait_join", "swap");

    /**
     * The scenario's backend, seen through a wrapper that, just before a thread wakes or requeues
     * onto the watched word, reads the primitive's words: the state between that thread's release
     * and its wake. Everything else is the backend's own.
     */
    static final class Watched implements Futex {
        final Futex backend;
        private final Timeline timeline;

        Watched(final Futex backend, final Timeline timeline) {
            this.backend = backend;
            this.timeline = timeline;
        }

        @Override
        public int timedWait(final MemorySegment seg, final long off, final int val, final boolean priv, final int clock,
                             final Timespec deadline, final boolean interruptible) {
            return backend.timedWait(seg, off, val, priv, clock, deadline, interruptible);
        }

        @Override
        public int wake(final MemorySegment seg, final long off, final int n, final boolean priv) {
            timeline.beforeWake(seg.address() + off);
            return backend.wake(seg, off, n, priv);
        }

        @Override
        public int requeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                           final MemorySegment seg2, final long off2, final boolean priv) {
            timeline.beforeWake(seg2.address() + off2);
            return backend.requeue(seg, off, nWake, nRequeue, seg2, off2, priv);
        }

        @Override
        public int cmpRequeue(final MemorySegment seg, final long off, final int nWake, final int nRequeue,
                              final MemorySegment seg2, final long off2, final int val, final boolean priv) {
            timeline.beforeWake(seg2.address() + off2);
            return backend.cmpRequeue(seg, off, nWake, nRequeue, seg2, off2, val, priv);
        }

        @Override
        public int setWait(final MemorySegment seg, final long off, final int val, final int val2, final boolean priv,
                           final int clock, final Timespec deadline, final boolean interruptible) {
            return backend.setWait(seg, off, val, val2, priv, clock, deadline, interruptible);
        }

        @Override
        public int setBitWait(final MemorySegment seg, final long off, final int bit, final int busy, final boolean join,
                              final boolean priv, final int clock, final Timespec deadline, final boolean interruptible) {
            return backend.setBitWait(seg, off, bit, busy, join, priv, clock, deadline, interruptible);
        }

        @Override
        public boolean atomicSetBitWait() {
            return backend.atomicSetBitWait();
        }

        @Override
        public int swap(final MemorySegment seg, final long off, final int val, final MemorySegment wakeSeg,
                        final long wakeOff, final boolean priv) {
            return backend.swap(seg, off, val, wakeSeg, wakeOff, priv);
        }

        @Override
        public boolean supportsShared() {
            return backend.supportsShared();
        }

        @Override
        public String name() {
            return backend.name();
        }
    }

    /** The words as a thread saw them just before it woke or requeued onto the watched word. */
    private record Seen(String thread, int[] words) {
    }

    /** Prints a scenario: titles, word states and the futex operations recorded since the last look. */
    static final class Timeline {
        private final PrintWriter out;
        private final Futex backend;
        private final boolean musl;
        /** What the scenario's primitives sleep on: the backend behind {@link Watched}. */
        final Futex futex;
        private final Map<Long, String> names = new LinkedHashMap<>();
        private long nextSeq;
        private int steps;
        private long watchedWord;
        private Supplier<int[]> wordsNow = () -> new int[0];
        private Function<int[], String> wordsText = v -> "";
        private final ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        /** The threads asleep on each word, oldest first, as the trace tells (requeues move them). */
        private final Map<Long, List<String>> sleepers = new LinkedHashMap<>();
        /** Who requeued each sleeping thread, if anyone. */
        private final Map<String, String> requeuedBy = new LinkedHashMap<>();

        Timeline(final PrintWriter out, final Futex backend, final boolean musl) {
            this.out = out;
            this.backend = backend;
            this.musl = musl;
            this.futex = new Watched(backend, this);
            FutexTrace.enable(1024, true);
        }

        void name(final long address, final String name) {
            names.put(address, name);
        }

        /**
         * The primitive's words: read by a waking thread just before it wakes or requeues onto
         * {@code word} (raw values only, formatted when printed), and printed after each step.
         */
        void watch(final long word, final Supplier<int[]> now, final Function<int[], String> text) {
            this.watchedWord = word;
            this.wordsNow = now;
            this.wordsText = text;
        }

        void beforeWake(final long target) {
            if (target == watchedWord) {
                seen.add(new Seen(Thread.currentThread().getName(), wordsNow.get()));
            }
        }

        void title(final String scenario, final String what, final SleepProtocol protocol) {
            final String proto = protocol == null ? "musl's steps (no other protocol exists for it)"
                : protocol == SleepProtocol.MUSL ? "MUSL sleep protocol" + (musl ? " (--musl: musl's steps and futex calls on the kernel's futexes)" : "")
                : "PARKING sleep protocol (this port's departures from musl: docs/08-departures.md)";
            out.println("== " + scenario + ": " + what + ", " + proto + ", futex backend " + backend.name());
            out.println("   (futex calls in the order they happened: a wake or requeue when it is issued, a wait when it");
            out.println("   starts sleeping and when it returns; times in microseconds since the step's first call)");
        }

        void step(final String what) {
            out.println();
            out.println(String.format("%2d. ", ++steps) + what);
        }

        void words() {
            out.println("    words:  " + wordsText.apply(wordsNow.get()));
        }

        void note(final String text) {
            out.println("    note:   " + text);
        }

        /** Prints the operations recorded since the last call, in order, or that there were none. */
        void events() {
            final List<FutexTrace.Event> fresh = new ArrayList<>();
            for (final FutexTrace.Event e : FutexTrace.snapshot()) {
                if (e.seq() == nextSeq) { // only a gap-free run: an operation still in flight is printed next time
                    fresh.add(e);
                    nextSeq++;
                }
            }
            if (fresh.isEmpty()) {
                out.println("    futex:  none");
                seen.clear();
                return;
            }
            final long origin = fresh.getFirst().nanos();
            out.println("    futex:");
            for (final FutexTrace.Event e : fresh) {
                if (!e.sleeping() && wakes(e) && target(e) == watchedWord) {
                    final Seen w = takeSeen(e.thread());
                    if (w != null) {
                        out.println(String.format("%17s%-3s (words before this %s: %s)", "", w.thread(),
                            e.op().equals("wake") ? "wake" : "requeue", wordsText.apply(w.words())));
                    }
                }
                out.println("      " + format(e, origin));
            }
            seen.clear();
            out.flush();
        }

        private static boolean wakes(final FutexTrace.Event e) {
            return e.op().equals("wake") || e.op().endsWith("requeue");
        }

        private static long target(final FutexTrace.Event e) {
            return e.op().equals("wake") ? e.address() : e.address2();
        }

        private Seen takeSeen(final String thread) {
            for (final java.util.Iterator<Seen> it = seen.iterator(); it.hasNext();) {
                final Seen w = it.next();
                if (w.thread().equals(thread)) {
                    it.remove();
                    return w;
                }
            }
            return null;
        }

        String word(final long address) {
            final String n = names.get(address);
            return n != null ? n : String.format("%#x", address);
        }

        /** Keeps {@link #sleepers} up to date and says which word a returning wait was woken from. */
        private String track(final FutexTrace.Event e) {
            if (e.sleeping()) {
                sleepers.computeIfAbsent(e.address(), k -> new ArrayList<>()).add(e.thread());
                return null;
            }
            if (e.op().endsWith("requeue") && e.result() > 0) {
                final int nWake = e.op().equals("requeue") ? (int) (e.value() >>> 32) : 0;
                final List<String> from = sleepers.getOrDefault(e.address(), new ArrayList<>());
                final int woken = Math.min(nWake, from.size());
                from.subList(0, woken).clear();
                final int moved = Math.min(e.result() - woken, from.size());
                final List<String> to = sleepers.computeIfAbsent(e.address2(), k -> new ArrayList<>());
                for (final String t : from.subList(0, moved)) {
                    to.add(t);
                    requeuedBy.put(t, e.thread());
                }
                from.subList(0, moved).clear();
                return null;
            }
            if (e.op().equals("wake") || e.op().equals("cmp_requeue")) {
                return null;
            }
            long on = 0;
            for (final Map.Entry<Long, List<String>> q : sleepers.entrySet()) {
                if (q.getValue().remove(e.thread())) {
                    on = q.getKey();
                }
            }
            final String by = requeuedBy.remove(e.thread());
            if (e.result() != 0) {
                return null;
            }
            final long from = e.from() != 0 ? e.from() : on;
            if (from == 0) {
                return null;
            }
            return "woken from " + word(from) + (from != e.address() && by != null ? ", requeued there by " + by : "");
        }

        String format(final FutexTrace.Event e, final long origin) {
            final String time = String.format("%+10.1f us", (e.nanos() - origin) / 1e3);
            final String wokenFrom = track(e);
            final String op = e.op() + (e.priv() ? "" : "(shared)");
            final String args;
            final String result;
            switch (e.op()) {
                case "set_bit_wait", "set_bit_wait_join" -> {
                    args = word(e.address()) + String.format(" bit=0x%08x", (int) e.value());
                    result = e.result() == 0 ? "0 (" + (wokenFrom != null ? wokenFrom : "woken") + ")"
                        : e.result() == Errno.EAGAIN ? "EAGAIN (the word was free: no sleep)" : Errno.name(e.result());
                }
                case "wait", "set_wait", "swap" -> {
                    args = word(e.address()) + String.format(" val=0x%08x", (int) e.value())
                        + (e.address2() != 0 ? " wake " + word(e.address2()) : "");
                    result = e.result() == 0 ? "0 (" + (wokenFrom != null ? wokenFrom : "woken") + ")"
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
            final String tag = PARKING_ONLY.contains(e.op()) ? "  [parking only]" : "";
            return String.format("%s  %-3s %-8s %-42s %s", time, e.thread(), op, args,
                e.sleeping() ? ".. sleeps" : "-> " + result) + tag;
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
            if (backend instanceof ParkingFutex) {
                final Thread.State s = a.thread.getState();
                return (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING)
                    && LockSupport.getBlocker(a.thread) == backend;
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
