package org.pthread4j.cli;

import org.pthread4j.cli.bench.Charts;
import org.pthread4j.cli.bench.Environment;
import org.pthread4j.cli.bench.Harness;
import org.pthread4j.cli.bench.Outputs;
import org.pthread4j.cli.bench.Progress;
import org.pthread4j.cli.bench.Report;
import org.pthread4j.cli.bench.Row;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.ChildJvm;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.cli.workload.CPrograms;
import org.pthread4j.cli.workload.Workloads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code ./pthread4j bench [WORKLOAD...]}: runs the workloads (all of them when none is
 * named), prints one table with every figure's ratio to its reference measured in the same
 * run, and optionally writes JSON, CSV and PNG charts.
 */
@Command(name = "bench", sortOptions = false, mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    header = "Runs the benchmarks, side by side with java.util.concurrent and C.",
    description = {
        "Runs the benchmarks and prints one table: every figure is min / median / max over repeated runs "
            + "(after a warm-up), and every row has its ratio to a reference (java.util.concurrent, "
            + "LockSupport or C) measured in the same run.",
        "",
        "Without WORKLOAD every workload runs, in quick mode unless --full is given.",
        "When more than one workload is selected, each runs in a JVM of its own (started with this JVM's "
            + "options), so that no workload's figures carry the JIT profiles another one left in shared "
            + "code; --same-jvm runs them all in this one.",
        "A progress line, with the time left in the workload, is shown on standard error when the JVM has a terminal."},
    footer = {"", "Exit status: 0 done, 1 a case failed, 2 bad command line, 3 a case hung."})
public final class BenchCommand implements Callable<Integer> {
    /** Largest thread count --threads accepts. */
    static final int MAX_THREADS = 4096;

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "WORKLOAD", arity = "0..*",
        description = "Workloads to run (default: all). See the list below.")
    private List<String> workloads = new ArrayList<>();

    @Option(names = "--full", order = 1, description = "Run longer (500 ms per run, 10 runs), with more thread counts "
        + "and sizes (e.g. 1000 broadcast waiters instead of 100). Default: quick mode (100 ms per run, 5 runs), "
        + "the whole suite in under 3 minutes on 2 cores.")
    private boolean full;

    private int runs;

    @Option(names = "--runs", order = 2, paramLabel = "N",
        description = "Measured runs per figure, at least 3 (default: 5, or 10 with --full).")
    void setRuns(final int n) {
        if (n < Settings.MIN_RUNS) {
            throw new ParameterException(spec.commandLine(),
                "--runs must be at least " + Settings.MIN_RUNS + " (min/median/max need three runs): " + n);
        }
        this.runs = n;
    }

    private List<Integer> threads;

    @Option(names = "--threads", order = 3, paramLabel = "LIST", split = ",",
        description = "Comma-separated thread counts for the workloads that sweep them (lock, latency, rwlock, "
            + "the sem pool, hash), "
            + "e.g. 1,2,4,8 (default: each workload's own, more with --full).")
    void setThreads(final List<Integer> list) {
        for (final int t : list) {
            if (t < 1 || t > MAX_THREADS) {
                throw new ParameterException(spec.commandLine(),
                    "--threads values must be between 1 and " + MAX_THREADS + ": " + t);
            }
        }
        this.threads = List.copyOf(list);
    }

    @Option(names = "--json", order = 4, paramLabel = "FILE",
        description = "Also write the results as a JSON object: the environment (version, commit, JDK, kernel, CPU, "
            + "cores, JVM flags, futex backends) and the rows (workload, impl, backend, threads, unit, min, median, "
            + "max, runs, ratio, reference, measure, note, samples). FILE must be new or an earlier bench JSON; it is "
            + "checked before anything runs.")
    private Path json;

    @Option(names = "--csv", order = 5, paramLabel = "FILE", description = "Also write the rows as CSV, same fields but "
        + "samples, after '#' lines with the environment. FILE must be new or an earlier bench CSV.")
    private Path csv;

    @Option(names = "--chart", order = 6, paramLabel = "DIR",
        description = "Also write PNG charts into DIR: throughput or time against threads for thread sweeps, "
            + "bars with min-max whiskers for the rest. A chart replaces only a chart of an earlier bench.")
    private Path chart;

    @Option(names = "--list", order = 7, description = "List the workloads and exit.")
    private boolean list;

    @Option(names = "--same-jvm", order = 8, description = "Run every selected workload in this JVM instead of one "
        + "child JVM per workload.")
    private boolean sameJvm;

    /** Child mode: this workload's place among those of the run, "K/N", for the progress line. */
    @Option(names = "--position", hidden = true, paramLabel = "K/N")
    private String position;

    /** Child mode: run the one selected workload and write its rows to this file, print no table. */
    @Option(names = "--rows-to", hidden = true, paramLabel = "FILE")
    private Path rowsTo;

    /** Whether the outputs were written: files created for them are removed when not. */
    private boolean outputsWritten;

    /** Creates the command; picocli instantiates it. */
    public BenchCommand() {
    }

    /** @return the workload list, one per line: name and description */
    static String workloadList() {
        final StringBuilder sb = new StringBuilder();
        for (final Workload w : Workloads.all()) {
            final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-10s", w.name()));
            for (final String word : w.description().split(" ")) {
                if (line.length() + 1 + word.length() > 79) {
                    sb.append(line.toString().stripTrailing()).append('\n');
                    line.setLength(0);
                    line.append(" ".repeat(12));
                }
                line.append(' ').append(word);
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    @Override
    public Integer call() throws IOException {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (list) {
            out.println(workloadList());
            out.flush();
            return 0;
        }
        final List<Workload> selected = select();
        final Settings settings = Settings.of(full, runs, threads, CPrograms.defaultCache());
        if (rowsTo != null) {
            final List<Row> rows = new Harness(settings, Progress.forTerminal(position), err).run(selected);
            ChildJvm.writeRows(rowsTo, rows);
            return failed(rows) ? 1 : 0;
        }
        final List<Path> created = new ArrayList<>();
        try {
            prepareOutputs(selected, created);
        } catch (final IOException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        try {
            return runAndWrite(selected, settings, out, err);
        } finally {
            if (!outputsWritten) {
                for (final Path p : created) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /**
     * Checks every output before anything runs, so a bad path costs no workload: new files are
     * created now (and removed again if the run ends without writing them); an existing file or
     * chart that is not an earlier output of the bench is refused and left alone.
     */
    private void prepareOutputs(final List<Workload> selected, final List<Path> created) throws IOException {
        if (json != null && Outputs.prepare("--json", json, Outputs.JSON_SIGNATURE)) {
            created.add(json);
        }
        if (csv != null && Outputs.prepare("--csv", csv, Outputs.CSV_SIGNATURE)) {
            created.add(csv);
        }
        if (chart != null) {
            final List<String> names = new ArrayList<>();
            for (final Workload w : selected) {
                names.add(w.name());
            }
            Charts.prepare(chart, names);
        }
    }

    private int runAndWrite(final List<Workload> selected, final Settings settings, final PrintWriter out,
                            final PrintWriter err) throws IOException {
        final Environment env = Environment.current();
        out.printf(Locale.ROOT, "pthread4j bench %s (commit %s), %s mode: %d runs per figure, %d ms each after a %d ms "
                + "warm-up%n  JDK %s%n  %s, %d CPUs (%s)%n",
            env.version(), env.commit(), full ? "full" : "quick", settings.runs(), settings.trialNanos() / 1_000_000,
            settings.warmUpNanos() / 1_000_000, env.jdk(), env.kernel(), env.cores(), env.cpu());
        out.flush();
        final long t0 = System.nanoTime();
        final List<Row> rows;
        if (selected.size() > 1 && !sameJvm) {
            rows = new ArrayList<>();
            for (int i = 0; i < selected.size(); i++) {
                final Workload w = selected.get(i);
                final List<String> options = childOptions();
                options.addAll(List.of("--position", (i + 1) + "/" + selected.size()));
                final ChildJvm.Result r = ChildJvm.run(w.name(), options);
                rows.addAll(r.rows());
                if (r.exitCode() == ChildJvm.HUNG) {
                    Report.print(out, rows, descriptions(selected));
                    out.flush();
                    return ChildJvm.HUNG;
                }
                if (r.rows().isEmpty()) {
                    err.println("bench: workload " + w.name() + " produced no rows (its JVM exited with status "
                        + r.exitCode() + ")");
                    err.flush();
                    return 1;
                }
            }
        } else {
            rows = new Harness(settings, Progress.forTerminal(null), err).run(selected);
        }
        Report.print(out, rows, descriptions(selected));
        out.println();
        out.printf(Locale.ROOT, "%d rows in %.0f s.%n", rows.size(), (System.nanoTime() - t0) / 1e9);
        if (json != null) {
            Outputs.write(json, Outputs.json(rows, env));
            out.println("wrote " + json);
        }
        if (csv != null) {
            Outputs.write(csv, Outputs.csv(rows, env));
            out.println("wrote " + csv);
        }
        if (chart != null) {
            final List<Path> files = Charts.write(chart, rows);
            out.println("wrote " + files.size() + " charts into " + chart);
        }
        outputsWritten = true;
        out.flush();
        return failed(rows) ? 1 : 0;
    }

    private static boolean failed(final List<Row> rows) {
        for (final Row r : rows) {
            if (r.note() != null && r.note().startsWith("failed")) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, String> descriptions(final List<Workload> selected) {
        final Map<String, String> d = new LinkedHashMap<>();
        for (final Workload w : selected) {
            d.put(w.name(), w.description());
        }
        return d;
    }

    /** @return the options a child JVM repeats: mode, runs and thread counts */
    private List<String> childOptions() {
        final List<String> o = new ArrayList<>();
        if (full) {
            o.add("--full");
        }
        if (runs > 0) {
            o.add("--runs");
            o.add(Integer.toString(runs));
        }
        if (threads != null) {
            o.add("--threads");
            o.add(String.join(",", threads.stream().map(String::valueOf).toList()));
        }
        return o;
    }

    private List<Workload> select() {
        if (workloads.isEmpty()) {
            return Workloads.all();
        }
        final List<Workload> selected = new ArrayList<>();
        for (final String name : workloads) {
            final Workload w = Workloads.byName(name);
            if (w == null) {
                throw new ParameterException(spec.commandLine(), "unknown workload '" + name + "' (known: "
                    + String.join(", ", Workloads.names()) + ")");
            }
            if (!selected.contains(w)) {
                selected.add(w);
            }
        }
        return selected;
    }
}
