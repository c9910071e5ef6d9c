package org.pthread4j.cli.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * How a bench run is done.
 *
 * @param full          whether to run long and with more thread counts (else quick mode)
 * @param runs          measured repetitions per case (at least 3)
 * @param threads       thread counts for workloads that sweep them, or {@code null} for each
 *                      workload's own default
 * @param trialNanos    target length of one repetition
 * @param warmUpNanos   warm-up time per case before its repetitions
 * @param cCache        where the C baselines are compiled to and kept (see
 *                      {@code CPrograms.defaultCache()})
 */
public record Settings(boolean full, int runs, List<Integer> threads, long trialNanos, long warmUpNanos, Path cCache) {
    /** Fewest repetitions a figure may rest on. */
    public static final int MIN_RUNS = 3;

    /** Checks the fields. */
    public Settings {
        if (runs < MIN_RUNS) {
            throw new IllegalArgumentException("runs must be at least " + MIN_RUNS + ": " + runs);
        }
        threads = threads == null ? null : List.copyOf(threads);
        Objects.requireNonNull(cCache, "cCache");
    }

    /**
     * The default settings of a mode.
     *
     * @param full    full mode (else quick)
     * @param runs    repetitions, or 0 for the mode's default (5 quick, 10 full)
     * @param threads thread counts, or {@code null}
     * @param cCache  where the C baselines are compiled to
     * @return the settings
     */
    public static Settings of(final boolean full, final int runs, final List<Integer> threads, final Path cCache) {
        return new Settings(full, runs > 0 ? runs : (full ? 10 : 5), threads,
            full ? 500_000_000L : 100_000_000L, full ? 1_000_000_000L : 200_000_000L, cCache);
    }

    /**
     * @param quick the workload's thread counts in quick mode
     * @param full  its thread counts in full mode
     * @return the thread counts given on the command line, else the mode's default
     */
    public List<Integer> threadsOr(final List<Integer> quick, final List<Integer> full) {
        if (threads != null) {
            return threads;
        }
        return this.full ? full : quick;
    }

    /**
     * @param quick a size in quick mode
     * @param full  the size in full mode
     * @return the size for this mode
     */
    public int pick(final int quick, final int full) {
        return this.full ? full : quick;
    }
}
