package org.pthread4j.cli.workload;

import org.pthread4j.futex.Errno;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code bench hash}: seed 001's futex hash stress, after {@code perf bench futex hash}. T
 * threads each hammer their own F futex words, in two ways:
 * <ul>
 * <li><b>wake, no waiter</b>: a wake on each word in turn (perf's own operation, a wait that is
 *     turned away, costs nothing here: both Java backends read the word before they go near
 *     the table);</li>
 * <li><b>wait/wake pairs</b>: T/2 pairs of threads hand control back and forth, each handoff on
 *     the next of their F words (a waiter sleeps, its partner changes the word and wakes it).</li>
 * </ul>
 * A hash table only costs when its buckets hold waiters, so R resident sleepers wait on other
 * words of the same table throughout (a busy process). Compared: the parking backend with 16
 * to 65536 buckets; the kernel with private words (the process's private hash, at its default
 * size and, where {@code PR_FUTEX_HASH} exists, at sizes set with {@code prctl}) and with shared
 * words (the kernel's global hash). Reference: {@code LockSupport} (unpark of a running thread;
 * park/unpark handoffs). The figure is operations per second of all threads together.
 */
public final class HashWorkload implements Workload {
    /** Words per thread: perf bench futex hash's default. */
    static final int WORDS = 1024;

    /** Creates the workload. */
    public HashWorkload() {
    }

    @Override
    public String name() {
        return "hash";
    }

    @Override
    public String description() {
        return "seed 001 futex hash stress: T threads x " + WORDS + " words (wake with no waiter, wait/wake pairs) "
            + "among resident sleepers; parking buckets 16..65536, kernel private hash sizes (prctl), shared words";
    }

    /** One table to measure. */
    private record Variant(String backend, boolean kernel, int slots, boolean priv, java.util.function.Supplier<Futex> futex) {
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final int sleepers = settings.pick(32, 256);
        final List<Variant> variants = new ArrayList<>();
        for (final int b : settings.full() ? List.of(16, 64, 256, 1024, 4096, 16384, 65536) : List.of(16, 1024, 65536)) {
            variants.add(new Variant("parking, " + b + " buckets", false, 0, true, () -> ParkingFutex.create(b, false)));
        }
        String hashSkip = FutexHash.unsupportedReason();
        final int defaultSlots = hashSkip == null ? FutexHash.slots() : 0;
        variants.add(new Variant("linux private, default hash" + (hashSkip == null ? " (" + defaultSlots + " slots)" : ""),
            true, 0, true, Futexes::linux));
        for (final int s : settings.full() ? List.of(16, 128, 1024, 8192, 65536) : List.of(16, 1024)) {
            if (s == defaultSlots) {
                continue;
            }
            variants.add(new Variant("linux private, prctl " + s + " slots", true, s, true, Futexes::linux));
        }
        variants.add(new Variant("linux shared (global hash)", true, 0, false, Futexes::linux));

        final List<Group> groups = new ArrayList<>();
        final List<Integer> threads = settings.threadsOr(List.of(1, 2), List.of(1, 2, 4, 8));
        for (final int t : threads) {
            final List<Case> cases = new ArrayList<>();
            cases.add(Case.of("unpark, not parked", "LockSupport", () -> Fixture.of(b -> unparkStress(t, b))));
            for (final Variant v : variants) {
                cases.add(make("wake, no waiter", v, hashSkip, () -> new Table(v, sleepers, defaultSlots, t, false)));
            }
            groups.add(new Group("wake, no waiter", List.of(Measure.rate(
                "wake, no waiter (" + sleepers + " resident sleepers)", "ops/s")), t, cases, false));
        }
        for (final int t : threads) {
            if (t < 2) {
                continue;
            }
            final int even = t & ~1;
            final List<Case> cases = new ArrayList<>();
            cases.add(Case.of("park/unpark pairs", "LockSupport", () -> Fixture.of(b -> parkPairs(even, b))));
            for (final Variant v : variants) {
                cases.add(make("wait/wake pairs", v, hashSkip, () -> new Table(v, sleepers, defaultSlots, even, true)));
            }
            groups.add(new Group("wait/wake pairs", List.of(Measure.rate(
                "wait/wake pairs (" + sleepers + " resident sleepers)", "ops/s")), even, cases, false));
        }
        return groups;
    }

    private static Case make(final String impl, final Variant v, final String hashSkip, final Case.Opener open) {
        if (v.kernel() && !BenchBackends.kernel()) {
            return Case.skipped(impl, v.backend(), BenchBackends.NO_KERNEL);
        }
        if (v.slots() > 0 && hashSkip != null) {
            return Case.skipped(impl, v.backend(), hashSkip);
        }
        return Case.of(impl, v.backend(), open);
    }

    private static double unparkStress(final int threads, final long budget) throws Exception {
        return Stress.opsPerSecond(threads, budget, (i, stop) -> {
            final Thread self = Thread.currentThread();
            long n = 0;
            while (!stop.stopped()) {
                for (int k = 0; k < 64; k++) {
                    LockSupport.unpark(self);
                }
                n += 64;
            }
            return n;
        });
    }

    private static double parkPairs(final int threads, final long budget) throws Exception {
        final int pairs = threads / 2;
        final AtomicIntegerArray[] words = new AtomicIntegerArray[pairs];
        for (int p = 0; p < pairs; p++) {
            words[p] = new AtomicIntegerArray(2 * WORDS);
        }
        final Thread[] ts = new Thread[threads];
        final Stress.Stop[] stopRef = new Stress.Stop[1];
        return Stress.run(threads, budget, (i, stop) -> {
            stopRef[0] = stop;
            ts[i] = Thread.currentThread();
            final AtomicIntegerArray w = words[i / 2];
            final boolean a = (i & 1) == 0;
            while (ts[i ^ 1] == null) {
                Thread.onSpinWait();
            }
            final Thread partner = ts[i ^ 1];
            long n = 0;
            int k = 0;
            while (!stop.stopped()) {
                final int mine = a ? k : WORDS + k;
                final int theirs = a ? WORDS + k : k;
                if (a) {
                    w.set(theirs, 1);
                    LockSupport.unpark(partner);
                }
                while (w.get(mine) == 0) {
                    LockSupport.park();
                }
                w.set(mine, 0);
                if (!a) {
                    w.set(theirs, 1);
                    LockSupport.unpark(partner);
                }
                n++;
                k = k + 1 == WORDS ? 0 : k + 1;
            }
            return n;
        }, () -> {
            for (int p = 0; p < pairs; p++) {
                for (int k = 0; k < 2 * WORDS; k++) {
                    words[p].set(k, 1);
                }
            }
            for (final Thread t : ts) {
                if (t != null) {
                    LockSupport.unpark(t);
                }
            }
        });
    }

    /** A futex table under test: its resident sleepers, and the stress run on it. */
    private static final class Table implements Fixture {
        private final Variant v;
        private final Futex futex;
        private final int threads;
        private final boolean pairs;
        private final int restoreSlots;
        private final Memory sleeperMemory;
        private final MemorySegment sleeperSeg;
        private final Thread[] sleepers;
        private volatile Throwable failure;

        Table(final Variant v, final int sleeperCount, final int defaultSlots, final int threads, final boolean pairs) {
            this.v = v;
            this.futex = v.futex().get();
            this.threads = threads;
            this.pairs = pairs;
            this.restoreSlots = defaultSlots;
            if (v.kernel() && v.priv() && defaultSlots > 0) {
                FutexHash.setSlots(v.slots() > 0 ? v.slots() : defaultSlots);
            }
            // Each sleeper on its own word, 64 bytes apart so they land in different buckets.
            this.sleeperMemory = Memory.allocate(64L * sleeperCount);
            this.sleeperSeg = sleeperMemory.segment();
            this.sleepers = new Thread[sleeperCount];
            final int[] tids = new int[sleeperCount];
            for (int i = 0; i < sleeperCount; i++) {
                final long off = 64L * i;
                final int index = i;
                sleepers[i] = Thread.ofPlatform().daemon().name("bench-hash-sleeper-" + i).start(() -> {
                    tids[index] = ThreadIds.currentIsKernelTid() ? ThreadIds.current() : 0;
                    try {
                        while ((int) Block.INT.getVolatile(sleeperSeg, off) == 0) {
                            check(futex.wait(sleeperSeg, off, 0, v.priv()));
                        }
                    } catch (final Throwable t) {
                        failure = t;
                    }
                });
            }
            Sleepers.awaitAll(sleepers, tids, 30_000_000_000L);
        }

        private static void check(final int r) {
            if (r != 0 && r != Errno.EAGAIN) {
                throw new IllegalStateException("wait returned " + Errno.name(r));
            }
        }

        @Override
        public double[] trial(final long budget) throws Exception {
            if (failure != null) {
                throw new IllegalStateException("a resident sleeper failed: " + failure, failure);
            }
            return new double[] {pairs ? pairs(budget) : wakes(budget)};
        }

        private double wakes(final long budget) throws Exception {
            final Memory[] mem = new Memory[threads];
            try {
                for (int i = 0; i < threads; i++) {
                    mem[i] = Memory.allocate(4L * WORDS);
                }
                final boolean priv = v.priv();
                return Stress.opsPerSecond(threads, budget, (i, stop) -> {
                    final MemorySegment seg = mem[i].segment();
                    long n = 0;
                    while (!stop.stopped()) {
                        for (int k = 0; k < WORDS; k++) {
                            final int r = futex.wake(seg, 4L * k, 1, priv);
                            if (r != 0) {
                                throw new IllegalStateException("wake with no waiter returned "
                                    + (r < 0 ? Errno.name(-r) : r));
                            }
                        }
                        n += WORDS;
                    }
                    return n;
                });
            } finally {
                for (final Memory m : mem) {
                    if (m != null) {
                        m.close();
                    }
                }
            }
        }

        private double pairs(final long budget) throws Exception {
            final int pairCount = threads / 2;
            final Memory[] mem = new Memory[pairCount];
            try {
                for (int p = 0; p < pairCount; p++) {
                    mem[p] = Memory.allocate(8L * WORDS);
                }
                final boolean priv = v.priv();
                return Stress.run(threads, budget, (i, stop) -> {
                    final MemorySegment seg = mem[i / 2].segment();
                    final boolean a = (i & 1) == 0;
                    long n = 0;
                    int k = 0;
                    while (!stop.stopped()) {
                        final long mine = 4L * (a ? k : WORDS + k);
                        final long theirs = 4L * (a ? WORDS + k : k);
                        if (a) {
                            signal(seg, theirs, priv);
                        }
                        while ((int) Block.INT.getVolatile(seg, mine) == 0) {
                            check(futex.wait(seg, mine, 0, priv));
                        }
                        Block.INT.setVolatile(seg, mine, 0);
                        if (!a) {
                            signal(seg, theirs, priv);
                        }
                        n++;
                        k = k + 1 == WORDS ? 0 : k + 1;
                    }
                    return n;
                }, () -> {
                    for (final Memory m : mem) {
                        for (int k = 0; k < 2 * WORDS; k++) {
                            signal(m.segment(), 4L * k, priv);
                        }
                    }
                });
            } finally {
                for (final Memory m : mem) {
                    if (m != null) {
                        m.close();
                    }
                }
            }
        }

        private void signal(final MemorySegment seg, final long off, final boolean priv) {
            Block.INT.setVolatile(seg, off, 1);
            final int r = futex.wake(seg, off, 1, priv);
            if (r < 0) {
                throw new IllegalStateException("wake returned " + Errno.name(-r));
            }
        }

        @Override
        public void close() {
            for (int i = 0; i < sleepers.length; i++) {
                Block.INT.setVolatile(sleeperSeg, 64L * i, 1);
                futex.wake(sleeperSeg, 64L * i, 1, v.priv());
            }
            for (final Thread t : sleepers) {
                Threads.join(t, 10_000);
            }
            sleeperMemory.close();
            if (v.kernel() && v.priv() && restoreSlots > 0 && v.slots() > 0) {
                FutexHash.setSlots(restoreSlots);
            }
        }
    }
}
