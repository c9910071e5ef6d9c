package org.pthread4j.cli.workload;

import org.HdrHistogram.Histogram;

/**
 * The contention phase of {@code bench latency}: a thread times every acquisition into its own
 * histogram, then runs {@link Sections#OUTSIDE} steps on a word of its own before it locks
 * again. Each lock runs it through its own {@link Isolated} copy.
 */
final class LatencyLoop implements Stress.Body {
    private final Sections sections;
    private final Histogram[] histograms;
    private final long[] sinks;

    LatencyLoop(final Sections sections, final Histogram[] histograms, final long[] sinks) {
        this.sections = sections;
        this.histograms = histograms;
        this.sinks = sinks;
    }

    @Override
    public long run(final int index, final Stress.Stop stop) {
        final Histogram h = histograms[index];
        final long highest = h.getHighestTrackableValue();
        long local = index + 1;
        long n = 0;
        while (!stop.stopped()) {
            h.recordValue(Math.min(sections.timedSection(), highest));
            local = Sections.steps(local, Sections.OUTSIDE);
            n++;
        }
        sinks[index] = local;
        return n;
    }
}
