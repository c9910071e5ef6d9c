package org.pthread4j.cli.workload;

import org.junit.jupiter.api.Test;
import org.pthread4j.cli.bench.Harness;
import org.pthread4j.cli.bench.Progress;
import org.pthread4j.cli.bench.Row;
import org.pthread4j.cli.bench.Settings;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bench juc} runs end to end with 10 ms trials: every case yields figures (or says it needs
 * the kernel), and each group's reference is the JDK class. No figure is compared with another.
 */
class JucWorkloadSmokeTest {
    private static final Settings TINY = new Settings(false, 3, List.of(2), 10_000_000L, 10_000_000L,
        CPrograms.defaultCache());

    @Test
    void everyAdapterRunsBesideItsJdkCounterpart() {
        final StringWriter err = new StringWriter();
        final List<Row> rows = new Harness(TINY, new Progress(System.err, false), new PrintWriter(err))
            .run(List.of(new JucWorkload()));
        final Set<String> labels = new HashSet<>();
        for (final Row r : rows) {
            labels.add(r.section() + ": " + r.label());
            if (r.measured()) {
                for (final double s : r.samples()) {
                    assertTrue(s >= 0, r.label() + ": figure " + s);
                }
            } else {
                assertEquals(BenchBackends.NO_KERNEL, r.note(), r.label() + " did not run: " + err);
            }
        }
        for (final String l : List.of(
            "lock/unlock stress: ReentrantLock (j.u.c)", "lock/unlock stress: PthreadLock (parking)",
            "lock/unlock stress: least thread's share: PthreadLock (parking)",
            "lock/unlock stress: most thread's share: ReentrantLock (j.u.c)",
            "lock/unlock stress: PthreadLock (linux)", "lock/unlock stress: Mutex RECURSIVE, no adapter (parking)",
            "condvar ping-pong: ReentrantLock + Condition (j.u.c)",
            "condvar ping-pong: PthreadLock + PthreadCondition (parking)",
            "condvar ping-pong: PthreadLock + PthreadCondition (linux)",
            "condvar ping-pong: Mutex + Cond, no adapter (parking)",
            "read-mostly rwlock mix: ReentrantReadWriteLock (j.u.c)",
            "read-mostly rwlock mix: PthreadReadWriteLock (parking)",
            "read-mostly rwlock mix: PthreadReadWriteLock (linux)",
            "read-mostly rwlock mix: RwLock, no adapter (parking)")) {
            assertTrue(labels.contains(l), l + " in " + labels);
        }
        for (final Row r : rows) {
            assertTrue(r.reference().endsWith("(j.u.c)"), r.label() + " is compared with " + r.reference());
        }
    }
}
