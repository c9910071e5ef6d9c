package org.pthread4j.cli.workload;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.pthread4j.cli.bench.Harness;
import org.pthread4j.cli.bench.Progress;
import org.pthread4j.cli.bench.Row;
import org.pthread4j.cli.bench.Settings;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bench latency}'s pieces: the share of an equal split, the figures of a trial, the
 * handoff phase, and a short run that yields every row with every figure. Nothing is timed.
 */
class LatencyWorkloadTest {
    private static final Settings TINY = new Settings(false, 3, List.of(2), 10_000_000L, 10_000_000L,
        CPrograms.defaultCache());

    @Test
    void sharesAreCountsOverAnEqualSplit() {
        assertEquals(1.0, Shares.min(new long[] {5, 5, 5, 5}));
        assertEquals(1.0, Shares.max(new long[] {5, 5, 5, 5}));
        assertEquals(0.0, Shares.min(new long[] {0, 10}));
        assertEquals(2.0, Shares.max(new long[] {0, 10}));
        assertEquals(0.5, Shares.min(new long[] {10, 30, 20}), 1e-12);
        assertEquals(1.5, Shares.max(new long[] {10, 30, 20}), 1e-12);
        assertEquals(1.0, Shares.min(new long[] {7}));
        assertEquals(1.0, Shares.max(new long[] {0, 0}), "nothing counted favours nobody");
        assertThrows(IllegalArgumentException.class, () -> Shares.min(new long[0]));
        assertThrows(IllegalArgumentException.class, () -> Shares.max(new long[] {3, -1}));
    }

    @Test
    void aStressResultGivesThroughputAndTheSharesInTheOrderOfItsMeasures() {
        final Stress.Result r = new Stress.Result(new long[] {1_000, 3_000}, 2_000_000_000L);
        assertArrayEquals(new double[] {2.0, 0.5, 1.5}, r.kiloOpsAndShares(), 1e-12);
        assertEquals(List.of("lock/unlock stress", "lock/unlock stress: least thread's share",
            "lock/unlock stress: most thread's share"),
            Shares.withShares("lock/unlock stress", "Kiter/s").stream().map(m -> m.name()).toList());
    }

    @Test
    void aTrialsFiguresComeFromItsHistogramsAndCounts() {
        final Histogram waits = new Histogram(LatencyWorkload.HIGHEST_NANOS, 3);
        for (int v = 1; v <= 1000; v++) {
            waits.recordValue(v);
        }
        waits.recordValue(1_000_000);
        final Histogram handoffs = new Histogram(LatencyWorkload.HIGHEST_NANOS, 3);
        handoffs.recordValue(5_000);
        handoffs.recordValue(7_000);
        handoffs.recordValue(90_000);
        final double[] f = LatencyWorkload.figures(waits, handoffs, new long[] {100, 300}, 1_000_000L);
        assertEquals(LatencyWorkload.measures().size(), f.length);
        assertEquals(501, f[0], 1);
        assertEquals(991, f[1], 1);
        assertEquals(1000, f[2], 1);
        assertEquals(1_000_000, f[3], 1_000);
        assertEquals(7_000, f[4], 10);
        assertEquals(90_000, f[5], 100);
        assertEquals(90_000, f[6], 100);
        assertEquals(0.5, f[7], 1e-12);
        assertEquals(1.5, f[8], 1e-12);
        assertEquals(400, f[9], 1e-9, "400 acquisitions in 1 ms are 400 Kacq/s");
    }

    @Test
    void theHandoffPhaseTimesEveryRoundAfterTheWaiterSlept() throws Exception {
        final Sections sections = new LockSections(new ReentrantLock());
        final Histogram h = LatencyWorkload.handoffs(sections, 1_000_000L);
        assertTrue(h.getTotalCount() >= LatencyWorkload.MIN_ROUNDS, "rounds: " + h.getTotalCount());
        final Histogram m = LatencyWorkload.handoffs(new MonitorSections(new Object()), 1_000_000L);
        assertTrue(m.getTotalCount() >= LatencyWorkload.MIN_ROUNDS, "rounds: " + m.getTotalCount());
    }

    @Test
    void aShortRunYieldsEveryRowWithEveryFigure() {
        final StringWriter err = new StringWriter();
        final List<Row> rows = new Harness(TINY, new Progress(System.err, false), new PrintWriter(err))
            .run(List.of(new LatencyWorkload()));
        final Map<String, Set<String>> bySection = new HashMap<>();
        for (final Row r : rows) {
            bySection.computeIfAbsent(r.section(), k -> new TreeSet<>()).add(r.label());
            assertEquals("ReentrantLock (j.u.c)", r.reference());
            if (r.measured()) {
                for (final double s : r.samples()) {
                    assertTrue(s >= 0, r.label() + " " + r.section() + ": figure " + s);
                }
            } else {
                assertTrue(r.note().equals(BenchBackends.NO_KERNEL) || r.note().contains("not found"),
                    r.label() + " " + r.section() + " did not run: " + r.note() + "\n" + err);
            }
        }
        final Set<String> want = Set.of("ReentrantLock (j.u.c)", "ReentrantLock(true) (j.u.c)",
            "synchronized (JVM monitor)", "Mutex (parking)", "Mutex (linux)", "Mutex (linux-noprivate)",
            "Mutex (" + BenchBackends.PSHARED + ")", "PthreadLock (parking)", "PthreadLock (linux)",
            "pthread_mutex (C (glibc))", "pthread_mutex (C (musl))");
        assertEquals(LatencyWorkload.measures().size(), bySection.size(), bySection.keySet().toString());
        for (final Set<String> labels : bySection.values()) {
            assertEquals(new TreeSet<>(want), labels);
        }
        for (final Row r : rows) {
            if (r.measured() && r.section().contains("share")) {
                for (final double s : r.samples()) {
                    assertTrue(s <= 2.0, r.label() + " " + r.section() + ": a share of 2 threads above 2: " + s);
                }
            }
        }
    }
}
