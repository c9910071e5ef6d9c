package org.pthread4j.cli.workload;

import org.junit.jupiter.api.Test;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.ipc.SyncFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code bench ring} end to end with tiny runs: every idle strategy's consumer JVM receives every
 * message and reports its latencies, its CPU use is read, and neither the consumer JVM nor the
 * sync file outlives the case. No figure is compared with another.
 */
class RingWorkloadTest {
    private static final Duration LIVENESS = Duration.ofSeconds(120);

    private static List<Path> ringFiles() throws IOException {
        final String prefix = "pthread4j-bench-ring-" + ProcessHandle.current().pid() + "-";
        try (Stream<Path> s = Files.list(SyncFile.DEFAULT_DIRECTORY)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    @Test
    void theGroupHasTheLatenciesAtTwoRatesAndTheIdleCpuWithBusySpinAsTheReference() {
        final List<Group> groups = new RingWorkload().plan(new Settings(false, 3, null, 1_000_000L, 1_000_000L, Path.of(".")));
        assertEquals(1, groups.size());
        final Group g = groups.get(0);
        assertFalse(g.interleaved(), "a busy-spinning consumer must not run beside another case");
        assertEquals(List.of("message latency p50 at 1,000 msg/s", "message latency p99 at 1,000 msg/s",
            "message latency p99.9 at 1,000 msg/s", "message latency p50 at 100,000 msg/s",
            "message latency p99 at 100,000 msg/s", "message latency p99.9 at 100,000 msg/s", "consumer CPU at 1,000 msg/s",
            "consumer CPU while idle"),
            g.measures().stream().map(m -> m.name()).toList());
        assertEquals("OneToOneRingBuffer, busy-spin consumer", g.reference().impl());
        assertEquals(5, g.cases().size());
    }

    @Test
    void everyStrategyDeliversEveryMessageAndLeavesNoConsumerAndNoFileBehind() throws Exception {
        assumeTrue(BenchBackends.kernel(), BenchBackends.NO_KERNEL);
        final RingWorkload.Phases tiny = new RingWorkload.Phases(20, 500, 20, 2_000);
        for (final String s : RingConsumer.STRATEGIES) {
            final RingWorkload.RingPair pair = assertTimeoutPreemptively(LIVENESS, () -> new RingWorkload.RingPair(s, tiny));
            final ProcessHandle consumer = pair.consumer();
            try {
                final double[] f = assertTimeoutPreemptively(LIVENESS, () -> {
                    pair.warmUp(1_000_000L);
                    return pair.trial(1_000_000L);
                });
                assertEquals(8, f.length, s);
                for (int i = 0; i < 6; i++) {
                    assertTrue(f[i] > 0 && Double.isFinite(f[i]), s + ": latency " + f[i]);
                }
                for (int i = 6; i < 8; i++) {
                    assertTrue(f[i] >= 0 && f[i] <= 100.0 * Runtime.getRuntime().availableProcessors() + 1, s + ": CPU " + f[i]);
                }
            } finally {
                pair.close();
            }
            assertTrue(consumer.onExit().get().isAlive() == false, s);
            assertEquals(List.of(), ringFiles(), s);
        }
    }
}
