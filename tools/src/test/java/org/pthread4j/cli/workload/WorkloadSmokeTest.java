package org.pthread4j.cli.workload;

import org.junit.jupiter.api.Test;
import org.pthread4j.Mutex;
import org.pthread4j.cli.bench.Harness;
import org.pthread4j.cli.bench.Progress;
import org.pthread4j.cli.bench.Row;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.memory.Memory;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The primitives' workloads run end to end with 10 ms trials: every case either yields figures or
 * says why it cannot run here (no kernel futexes, no compiler); none fails. No figure is compared
 * with another (a trial this short on a busy machine may even count nothing).
 */
class WorkloadSmokeTest {
    private static final Settings TINY = new Settings(false, 3, List.of(2), 10_000_000L, 10_000_000L,
        CPrograms.defaultCache());

    @Test
    void aCProgramsFiguresAreTheNumbersOnItsLastLine() throws IOException {
        assertArrayEquals(new double[] {12.5, 0.998}, CPrograms.figures("p", " 12.5  0.998 "));
        assertArrayEquals(new double[] {42}, CPrograms.figures("p", "42"));
        final IOException e = assertThrows(IOException.class, () -> CPrograms.figures("p", "count=3"));
        assertTrue(e.getMessage().contains("p printed no figures: count=3"), e.getMessage());
    }

    @Test
    void aSharedPlaceMapsMemoryAndMakesProcessSharedPrimitives() throws IOException {
        final BenchBackends.Place shared = BenchBackends.Place.named(BenchBackends.PSHARED);
        final BenchBackends.Place parking = BenchBackends.Place.named("parking");
        assertTrue(shared.shared());
        assertFalse(parking.shared());
        assertEquals("parking", parking.futex().name());
        if (BenchBackends.kernel()) {
            try (Memory m = shared.memory(128)) {
                assertTrue(m.isMapped());
                final Mutex mutex = shared.mutex(m, 0);
                assertTrue(mutex.attr().pshared());
                assertEquals(0, mutex.lock());
                assertEquals(0, mutex.unlock());
                assertTrue(shared.cond(m, 64).isPshared());
            }
        }
        try (Memory m = parking.memory(128)) {
            assertFalse(m.isMapped());
            final Mutex mutex = parking.mutex(m, 0);
            assertFalse(mutex.attr().pshared());
            assertEquals(0, mutex.lock());
            assertEquals(0, mutex.unlock());
        }
    }

    private static List<Row> run(final Workload w) {
        final StringWriter err = new StringWriter();
        final List<Row> rows = new Harness(TINY, new Progress(System.err, false), new PrintWriter(err)).run(List.of(w));
        double sum = 0;
        for (final Row r : rows) {
            if (r.measured()) {
                for (final double s : r.samples()) {
                    assertTrue(s >= 0, r.label() + " " + r.section() + ": figure " + s);
                    sum += s;
                }
            } else {
                assertTrue(r.note().equals(BenchBackends.NO_KERNEL) || r.note().contains("not found"),
                    r.label() + " " + r.section() + " did not run: " + r.note() + "\n" + err);
            }
        }
        assertTrue(sum > 0, "nothing was counted: " + rows);
        return rows;
    }

    private static Set<String> labels(final List<Row> rows, final String section) {
        final Set<String> labels = new HashSet<>();
        for (final Row r : rows) {
            if (r.section().equals(section)) {
                labels.add(r.label());
            }
        }
        return labels;
    }

    @Test
    void theLockStressRunsMutexOnEveryBackendAndSharedBesideTheJvmLocks() {
        final List<Row> rows = run(new LockWorkload());
        final Set<String> labels = labels(rows, "lock/unlock stress");
        for (final String l : List.of("ReentrantLock (j.u.c)", "synchronized (JVM monitor)", "Mutex (parking)",
            "Mutex (linux)", "Mutex (linux-noprivate)", "Mutex (" + BenchBackends.PSHARED + ")",
            "seed-000 lock, set-wait (parking)", "pthread_mutex (C (glibc))", "pthread_mutex (C (musl))")) {
            assertTrue(labels.contains(l), l + " in " + labels);
        }
        assertTrue(rows.get(0).isReference() && rows.get(0).impl().equals("ReentrantLock"));
        for (final String section : List.of("lock/unlock stress: least thread's share",
            "lock/unlock stress: most thread's share")) {
            assertEquals(labels, labels(rows, section), section);
        }
    }

    @Test
    void theCondvarBenchmarksRunEveryCondAndTheReference() {
        final List<Row> rows = run(new CondWorkload());
        for (final String section : List.of("condvar ping-pong",
            "seed-002 ping-pong code as written (one thread loops, one waits)",
            "cvb2 broadcast, 5 waiters: time", "cvb2 broadcast, 5 waiters: wakes")) {
            final Set<String> labels = labels(rows, section);
            for (final String l : List.of("ReentrantLock+Condition (j.u.c)", "Cond (parking)", "Cond (linux)",
                "Cond (linux-noprivate)", "Cond (" + BenchBackends.PSHARED + ")", "pthread_cond (C (glibc))",
                "pthread_cond, pshared (C (glibc))", "pthread_cond (C (musl))", "pthread_cond, pshared (C (musl))")) {
                assertTrue(labels.contains(l), section + ": " + l + " in " + labels);
            }
        }
        for (final Row r : rows) {
            assertEquals("ReentrantLock+Condition (j.u.c)", r.reference());
        }
    }

    @Test
    void theRwlockMixesAndTheSemaphoreBenchmarksRun() {
        final List<Row> rw = run(new RwLockWorkload());
        assertEquals(Set.of("ReentrantReadWriteLock (j.u.c)", "StampedLock, read lock (j.u.c)",
            "StampedLock, optimistic read (j.u.c)", "RwLock (parking)", "RwLock (linux)"),
            labels(rw, "rwlock 95% reads / 5% writes"));
        assertEquals(10, rw.size());
        final List<Row> sem = run(new SemWorkload());
        assertEquals(Set.of("Semaphore (j.u.c)", "Sem (parking)", "Sem (linux)", "Sem (" + BenchBackends.PSHARED + ")"),
            labels(sem, "semaphore handoff"));
        assertEquals(8, sem.size());
    }
}
