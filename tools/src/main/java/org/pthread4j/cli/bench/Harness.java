package org.pthread4j.cli.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs workloads and turns their repetitions into rows.
 *
 * <p>For every group: each case is set up and warmed up, then measured {@link Settings#runs()}
 * times. An interleaved group keeps all its cases set up at once and alternates them run by
 * run (starting each round at a different case), so a slow minute of a busy machine hits
 * every case alike; a sequential group measures one case after the other. Every row's figure
 * is min / median / max over its runs, and its ratio is its median over the median of the
 * group's reference, measured in the same process a moment apart; no figure is ever compared
 * with one from another run.
 *
 * <p>A case that cannot be set up, or fails during a run, becomes a row with a note and no
 * figures; the other cases go on.
 */
public final class Harness {
    /** A step (warm-up or one run) taking longer than this many trial budgets is taken for a hang. */
    private static final long HANG_FACTOR = 100;
    private static final long HANG_FLOOR_NANOS = 120_000_000_000L;

    private final Settings settings;
    private final Progress progress;
    private final PrintWriter err;

    /**
     * @param settings how to run
     * @param progress the progress line
     * @param err      where failures are described as they happen
     */
    public Harness(final Settings settings, final Progress progress, final PrintWriter err) {
        this.settings = settings;
        this.progress = progress;
        this.err = err;
    }

    /**
     * Runs the workloads in order.
     *
     * @param workloads what to run
     * @return every row, in order
     */
    public List<Row> run(final List<Workload> workloads) {
        final List<Row> rows = new ArrayList<>();
        try (Watchdog watchdog = new Watchdog(err)) {
            for (final Workload w : workloads) {
                final List<Group> groups = w.plan(settings);
                final int steps = steps(groups);
                final int[] step = {0};
                for (final Group g : groups) {
                    rows.addAll(runGroup(w.name(), g, steps, step, watchdog));
                }
            }
        } finally {
            progress.clear();
        }
        return rows;
    }

    private int steps(final List<Group> groups) {
        int n = 0;
        for (final Group g : groups) {
            for (final Case c : g.cases()) {
                if (c.skipReason() == null) {
                    n += 1 + settings.runs();
                }
            }
        }
        return n;
    }

    /** A case being measured. */
    private static final class Slot {
        final Case c;
        Fixture fixture;
        double[][] samples; // [measure][run]
        int done;
        String note;

        Slot(final Case c, final int measures, final int runs) {
            this.c = c;
            this.samples = new double[measures][runs];
            this.note = c.skipReason();
        }

        boolean live() {
            return note == null;
        }
    }

    private List<Row> runGroup(final String workload, final Group g, final int steps, final int[] step,
                               final Watchdog watchdog) {
        final int runs = settings.runs();
        final List<Slot> slots = new ArrayList<>();
        for (final Case c : g.cases()) {
            slots.add(new Slot(c, g.measures().size(), runs));
        }
        final String where = g.section() + ", " + g.threads() + (g.threads() == 1 ? " thread" : " threads");
        final long hang = Math.max(HANG_FLOOR_NANOS, HANG_FACTOR * settings.trialNanos());
        try {
            if (g.interleaved()) {
                for (final Slot s : slots) {
                    openAndWarm(workload, s, where, steps, step, watchdog, hang);
                }
                for (int r = 0; r < runs; r++) {
                    for (int k = 0; k < slots.size(); k++) {
                        final Slot s = slots.get((k + r) % slots.size());
                        measure(workload, g, s, r, where, steps, step, watchdog, hang);
                    }
                }
            } else {
                for (final Slot s : slots) {
                    openAndWarm(workload, s, where, steps, step, watchdog, hang);
                    for (int r = 0; r < runs; r++) {
                        measure(workload, g, s, r, where, steps, step, watchdog, hang);
                    }
                    close(s);
                }
            }
        } finally {
            for (final Slot s : slots) {
                close(s);
            }
        }
        return rows(workload, g, slots);
    }

    private void openAndWarm(final String workload, final Slot s, final String where, final int steps,
                             final int[] step, final Watchdog watchdog, final long hang) {
        if (!s.live()) {
            return;
        }
        progress.step(workload, ++step[0], steps, where + ": " + s.c.label() + " warm-up");
        watchdog.arm(workload + ": " + where + ": " + s.c.label() + " (set-up and warm-up)", hang);
        try {
            s.fixture = s.c.open().open();
            s.fixture.warmUp(settings.warmUpNanos());
        } catch (final Exception | Error e) {
            fail(workload, s, where, e);
        } finally {
            watchdog.disarm();
        }
    }

    private void measure(final String workload, final Group g, final Slot s, final int r, final String where,
                         final int steps, final int[] step, final Watchdog watchdog, final long hang) {
        if (!s.live()) {
            return;
        }
        progress.step(workload, ++step[0], steps, where + ": " + s.c.label() + " run " + (r + 1) + "/" + settings.runs());
        watchdog.arm(workload + ": " + where + ": " + s.c.label() + " run " + (r + 1), hang);
        try {
            final double[] f = s.fixture.trial(settings.trialNanos());
            if (f.length != g.measures().size()) {
                throw new IllegalStateException("trial returned " + f.length + " figures for "
                    + g.measures().size() + " measures");
            }
            for (int m = 0; m < f.length; m++) {
                if (Double.isNaN(f[m]) || Double.isInfinite(f[m])) {
                    throw new IllegalStateException("trial returned " + f[m]);
                }
                s.samples[m][r] = f[m];
            }
            s.done++;
        } catch (final Exception | Error e) {
            fail(workload, s, where, e);
            close(s);
        } finally {
            watchdog.disarm();
        }
    }

    private void fail(final String workload, final Slot s, final String where, final Throwable e) {
        final String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        s.note = "failed: " + msg;
        progress.clear();
        err.println("bench " + workload + ": " + where + ": " + s.c.label() + " failed: " + e);
        if (!(e instanceof Exception) || e instanceof RuntimeException) {
            e.printStackTrace(err);
        }
        err.flush();
    }

    private static void close(final Slot s) {
        if (s.fixture != null) {
            final Fixture f = s.fixture;
            s.fixture = null;
            try {
                f.close();
            } catch (final RuntimeException e) {
                if (s.note == null) {
                    s.note = "failed to close: " + e;
                }
            }
        }
    }

    private List<Row> rows(final String workload, final Group g, final List<Slot> slots) {
        final List<Row> rows = new ArrayList<>();
        final Slot ref = slots.get(0);
        for (int m = 0; m < g.measures().size(); m++) {
            final Measure measure = g.measures().get(m);
            final Stats refStats = ref.live() ? Stats.of(ref.samples[m]) : null;
            for (final Slot s : slots) {
                final Stats st = s.live() ? Stats.of(s.samples[m]) : null;
                final double ratio = st == null ? Double.NaN : st.ratioTo(refStats);
                rows.add(new Row(workload, measure.name(), s.c.impl(), s.c.backend(), g.threads(), measure.unit(),
                    measure.higherIsBetter(), st, ratio, ref.c.label(),
                    s.live() ? s.samples[m].clone() : new double[0], s.note));
            }
        }
        return rows;
    }
}
