package org.pthread4j.cli.workload;

import org.pthread4j.cli.bench.Measure;

import java.util.List;

/**
 * Each thread's share of what all threads did together, normalised so that an equal split is
 * 1.0: a thread's share is its count times the number of threads over the total. The least
 * share is at most 1.0 and the most at least 1.0; a thread that never got the lock has 0, and
 * one that got it every time has the thread count. With nothing counted at all, every share is
 * taken as 1.0 (nobody was favoured).
 */
final class Shares {
    /** The unit of a share. */
    static final String UNIT = "x an equal share";

    private Shares() {
    }

    /**
     * The measures of a stress whose threads are counted one by one: throughput, then the least
     * and the most any thread got (a throughput bought by starving a thread shows beside it).
     *
     * @param name the throughput's measure name, e.g. {@code "lock/unlock stress"}
     * @param unit the throughput's unit
     * @return the three measures, in the order {@link Stress.Result#kiloOpsAndShares()} returns them
     */
    static List<Measure> withShares(final String name, final String unit) {
        return List.of(Measure.rate(name, unit),
            new Measure(name + ": least thread's share", UNIT, true),
            new Measure(name + ": most thread's share", UNIT, false));
    }

    /**
     * @param counts each thread's count, at least one thread, none negative
     * @return the least thread's share of an equal split
     */
    static double min(final long[] counts) {
        return share(counts, true);
    }

    /**
     * @param counts each thread's count, at least one thread, none negative
     * @return the most favoured thread's share of an equal split
     */
    static double max(final long[] counts) {
        return share(counts, false);
    }

    private static double share(final long[] counts, final boolean least) {
        if (counts.length == 0) {
            throw new IllegalArgumentException("no threads");
        }
        long total = 0;
        long pick = counts[0];
        for (final long c : counts) {
            if (c < 0) {
                throw new IllegalArgumentException("negative count: " + c);
            }
            total += c;
            pick = least ? Math.min(pick, c) : Math.max(pick, c);
        }
        if (total == 0) {
            return 1.0;
        }
        return (double) pick * counts.length / total;
    }
}
