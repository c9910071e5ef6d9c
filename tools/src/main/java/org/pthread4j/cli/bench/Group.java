package org.pthread4j.cli.bench;

import java.util.List;
import java.util.Objects;

/**
 * A set of cases measured side by side in the same run: the first case is the reference every
 * other row's ratio is computed against (a {@code java.util.concurrent} or {@code LockSupport}
 * figure, or a C program). Cases of one group share a thread count and their measures.
 *
 * @param section     what the group compares, e.g. {@code "swap round trip"}; groups of one
 *                    workload with the same section but different thread counts form a sweep
 * @param measures    the figures every trial returns, in order
 * @param threads     the number of threads each case runs
 * @param cases       the reference first, then the cases compared with it
 * @param interleaved whether the harness opens every case at once and alternates their runs
 *                    (fairer against drift on a busy machine), or measures one case after the
 *                    other (for cases that change process-wide state or start many threads)
 */
public record Group(String section, List<Measure> measures, int threads, List<Case> cases, boolean interleaved) {
    /** Checks the fields. */
    public Group {
        Objects.requireNonNull(section, "section");
        measures = List.copyOf(measures);
        cases = List.copyOf(cases);
        if (measures.isEmpty()) {
            throw new IllegalArgumentException("a group needs at least one measure");
        }
        if (cases.isEmpty()) {
            throw new IllegalArgumentException("a group needs at least its reference case");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be positive: " + threads);
        }
    }

    /**
     * @param section  what the group compares
     * @param measure  its one figure
     * @param threads  threads per case
     * @param cases    the reference first
     * @return an interleaved group with one measure
     */
    public static Group of(final String section, final Measure measure, final int threads, final List<Case> cases) {
        return new Group(section, List.of(measure), threads, cases, true);
    }

    /** @return the reference case */
    public Case reference() {
        return cases.get(0);
    }

    /** @return this group measured one case after the other */
    public Group sequential() {
        return new Group(section, measures, threads, cases, false);
    }
}
