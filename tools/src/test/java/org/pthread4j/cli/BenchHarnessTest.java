package org.pthread4j.cli;

import org.junit.jupiter.api.Test;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.ChildJvm;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Harness;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Outputs;
import org.pthread4j.cli.bench.Progress;
import org.pthread4j.cli.bench.Report;
import org.pthread4j.cli.bench.Row;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Stats;
import org.pthread4j.cli.bench.Workload;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bench harness's arithmetic, outputs and command line, on a fake workload: no timing is asserted. */
class BenchHarnessTest {
    private static final Settings SETTINGS = new Settings(false, 3, null, 1_000_000L, 1_000_000L, Path.of("."));

    @Test
    void statsAreMinMedianAndMaxOfTheRuns() {
        final Stats odd = Stats.of(new double[] {30, 10, 20});
        assertEquals(10, odd.min());
        assertEquals(20, odd.median());
        assertEquals(30, odd.max());
        assertEquals(3, odd.runs());
        assertEquals(25, Stats.of(new double[] {40, 10, 30, 20}).median(), 1e-9, "mean of the middle two");
        assertEquals(2.5, Stats.of(new double[] {4, 1, 3, 2}).median(), 1e-9);
    }

    @Test
    void ratioIsTheMedianOverTheReferenceMedian() {
        final Stats ref = Stats.of(new double[] {100, 200, 300});
        final Stats row = Stats.of(new double[] {300, 500, 900});
        assertEquals(2.5, row.ratioTo(ref), 1e-9);
        assertEquals(1.0, ref.ratioTo(ref), 1e-9);
        assertTrue(Double.isNaN(row.ratioTo(null)));
        assertTrue(Double.isNaN(row.ratioTo(Stats.of(new double[] {0, 0, 0}))));
    }

    @Test
    void settingsRefuseFewerThanThreeRuns() {
        final IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> new Settings(false, 2, null, 1, 1, Path.of(".")));
        assertTrue(e.getMessage().contains("at least 3"), e.getMessage());
    }

    /** A fixture whose trials return the given figures in turn, counting its measured trials. */
    private static Fixture figures(final AtomicInteger calls, final double... values) {
        return new Fixture() {
            private int next;

            @Override
            public double[] trial(final long budgetNanos) {
                calls.incrementAndGet();
                return new double[] {values[next++ % values.length]};
            }

            @Override
            public void warmUp(final long budgetNanos) {
                // no warm-up, so every call is a measured run
            }

            @Override
            public void close() {
            }
        };
    }

    private static Workload fake(final AtomicInteger refCalls, final AtomicInteger fastCalls, final boolean interleaved) {
        return new Workload() {
            @Override
            public String name() {
                return "fake";
            }

            @Override
            public String description() {
                return "a workload made of fixed figures";
            }

            @Override
            public List<Group> plan(final Settings settings) {
                final List<Case> cases = List.of(
                    Case.of("ref", "j.u.c", () -> figures(refCalls, 100, 300, 200)),
                    Case.of("fast", "parking", () -> figures(fastCalls, 50, 40, 60)),
                    Case.skipped("native", "C (glibc)", "gcc not found"),
                    Case.of("broken", "linux", () -> {
                        throw new IllegalStateException("cannot open, here");
                    }));
                final Group g = Group.of("round trip", Measure.time("round trip", "ns"), 2, cases);
                return List.of(interleaved ? g : g.sequential());
            }
        };
    }

    private static List<Row> run(final Workload w) {
        final StringWriter err = new StringWriter();
        return new Harness(SETTINGS, new Progress(System.err, false), new PrintWriter(err)).run(List.of(w));
    }

    @Test
    void everyCaseRunsTheGivenNumberOfTimesAndGetsItsRatioToTheReference() {
        for (final boolean interleaved : new boolean[] {true, false}) {
            final AtomicInteger refCalls = new AtomicInteger();
            final AtomicInteger fastCalls = new AtomicInteger();
            final List<Row> rows = run(fake(refCalls, fastCalls, interleaved));
            assertEquals(3, refCalls.get());
            assertEquals(3, fastCalls.get());
            assertEquals(4, rows.size());

            final Row ref = rows.get(0);
            assertTrue(ref.isReference());
            assertEquals(100, ref.stats().min());
            assertEquals(200, ref.stats().median());
            assertEquals(300, ref.stats().max());
            assertEquals(1.0, ref.ratio(), 1e-9);
            assertEquals("ref (j.u.c)", ref.reference());

            final Row fast = rows.get(1);
            assertFalse(fast.isReference());
            assertEquals(50, fast.stats().median());
            assertEquals(0.25, fast.ratio(), 1e-9);
            assertEquals(2, fast.threads());
            assertEquals("ref (j.u.c)", fast.reference());

            final Row skipped = rows.get(2);
            assertFalse(skipped.measured());
            assertEquals("gcc not found", skipped.note());
            assertTrue(Double.isNaN(skipped.ratio()));

            final Row broken = rows.get(3);
            assertFalse(broken.measured());
            assertTrue(broken.note().startsWith("failed: cannot open, here"), broken.note());
        }
    }

    @Test
    void jsonHasOneRecordPerRowWithTheFieldsInOrder() {
        final List<Row> rows = run(fake(new AtomicInteger(), new AtomicInteger(), true));
        final List<String> all = Outputs.json(rows, org.pthread4j.cli.bench.Environment.current()).lines().toList();
        assertTrue(all.get(0).startsWith("{\"format\": \"pthread4j-bench\""), all.get(0));
        assertTrue(all.get(1).startsWith(" \"environment\": {"), all.get(1));
        final List<String> lines = all.subList(2, all.size());
        assertEquals(" \"rows\": [", lines.get(0));
        assertEquals(" ]}", lines.get(lines.size() - 1));
        assertEquals(rows.size() + 2, lines.size());
        final Pattern record = Pattern.compile("  \\{\"workload\": \"fake\", \"impl\": \"[^\"]+\", \"backend\": \"[^\"]+\", "
            + "\"threads\": 2, \"unit\": \"ns\", \"min\": (\\d+|null), \"median\": (\\d+|null), \"max\": (\\d+|null), "
            + "\"runs\": [03], \"ratio\": ([0-9.]+|null), \"reference\": \"ref \\(j.u.c\\)\", \"measure\": \"round trip\", "
            + "\"note\": (null|\"[^\"]+\"), \"samples\": \\[[0-9, ]*\\]},?");
        for (int i = 1; i <= rows.size(); i++) {
            assertTrue(record.matcher(lines.get(i)).matches(), lines.get(i));
        }
        assertTrue(lines.get(2).contains("\"median\": 50,") && lines.get(2).contains("\"ratio\": 0.25,"), lines.get(2));
        assertTrue(lines.get(3).contains("\"min\": null") && lines.get(3).contains("\"ratio\": null")
            && lines.get(3).contains("\"runs\": 0"), lines.get(3));
        assertTrue(lines.get(1).contains("\"samples\": [100, 300, 200]"), lines.get(1));
    }

    @Test
    void csvHasTheHeaderAndOneQuotedLinePerRow() {
        final List<Row> rows = run(fake(new AtomicInteger(), new AtomicInteger(), true));
        final List<String> lines = Outputs.csv(rows, org.pthread4j.cli.bench.Environment.current()).lines()
            .filter(l -> !l.startsWith("#")).toList();
        assertEquals("workload,impl,backend,threads,unit,min,median,max,runs,ratio,reference,measure,note", lines.get(0));
        assertEquals(rows.size() + 1, lines.size());
        assertEquals("fake,fast,parking,2,ns,40,50,60,3,0.25,ref (j.u.c),round trip,", lines.get(2));
        assertEquals("fake,native,C (glibc),2,ns,,,,0,,ref (j.u.c),round trip,gcc not found", lines.get(3));
        assertTrue(lines.get(4).endsWith(",\"failed: cannot open, here\""), lines.get(4));
    }

    @Test
    void theTableShowsFiguresRatiosAndWhyACaseDidNotRun() {
        final List<Row> rows = run(fake(new AtomicInteger(), new AtomicInteger(), true));
        final StringWriter out = new StringWriter();
        Report.print(new PrintWriter(out), rows, Map.of("fake", "a workload made of fixed figures"));
        final String table = out.toString();
        assertTrue(table.contains("== fake: a workload made of fixed figures =="), table);
        assertTrue(Pattern.compile("ref\\s+j\\.u\\.c\\s+100\\s+200\\s+300\\s+1\\.00  reference").matcher(table).find(), table);
        assertTrue(Pattern.compile("fast\\s+parking\\s+40\\.0\\s+50\\.0\\s+60\\.0\\s+0\\.25\\n").matcher(table).find(), table);
        assertTrue(table.contains("-- gcc not found"), table);
    }

    private record Result(int code, String out, String err) {
    }

    private static Result main(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void rowsComeBackFromAChildsFileAndForeignOrTruncatedFilesAreRefused(@org.junit.jupiter.api.io.TempDir final Path dir)
        throws Exception {
        final Row row = new Row("lock", "stress", "Mutex", "parking", 4, "Kiter/s", true,
            Stats.of(new double[] {1, 2, 3}), 0.5, "ReentrantLock (j.u.c)", new double[] {1, 2, 3}, null);
        final Path file = dir.resolve("rows");
        ChildJvm.writeRows(file, List.of(row));
        final List<Row> back = ChildJvm.readRows(file);
        assertEquals(1, back.size());
        assertEquals(row.label(), back.getFirst().label());
        assertEquals(row.stats(), back.getFirst().stats());
        assertEquals(4, back.getFirst().threads());
        assertTrue(java.util.Arrays.equals(row.samples(), back.getFirst().samples()));

        final Path other = dir.resolve("other");
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(java.nio.file.Files.newOutputStream(other))) {
            out.writeObject(new java.util.ArrayList<>(List.of(new java.util.HashMap<String, String>())));
        }
        final java.io.IOException foreign = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
            () -> ChildJvm.readRows(other));
        assertTrue(foreign.getMessage().contains("unreadable rows in " + other), foreign.getMessage());

        // A child that died while writing: the file ends in the middle of the rows.
        final Path truncated = dir.resolve("truncated");
        final byte[] whole = java.nio.file.Files.readAllBytes(file);
        java.nio.file.Files.write(truncated, java.util.Arrays.copyOf(whole, whole.length / 2));
        final java.io.IOException cut = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
            () -> ChildJvm.readRows(truncated));
        assertTrue(cut.getMessage().contains("unreadable rows in " + truncated), cut.getMessage());
    }

    @Test
    void aChildJvmReportsItsExitStatus() throws Exception {
        final ChildJvm.Result r = ChildJvm.run("nosuch", List.of());
        assertEquals(2, r.exitCode(), "a bad command line in the child");
        assertEquals(List.of(), r.rows());
    }

    @Test
    void badCommandLinesExitWith2AndSayWhy() {
        assertBad(main("bench", "--runs", "2"), "--runs must be at least 3");
        assertBad(main("bench", "--runs", "x"), "--runs");
        assertBad(main("bench", "--bogus"), "Unknown option: '--bogus'");
        assertBad(main("bench", "--threads", "0"), "--threads values must be between 1 and");
        assertBad(main("bench", "--threads", "1,x"), "--threads");
        assertBad(main("bench", "nosuch"), "unknown workload 'nosuch' (known: futex, lock, latency, cond, rwlock, sem, broadcast");
        assertBad(main("nosuch"), "unknown command 'nosuch'");
        assertEquals(2, main().code(), "no command prints the usage and exits 2");
    }

    private static void assertBad(final Result r, final String message) {
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(message), r.err());
        assertTrue(r.err().contains("--help"), "points to --help: " + r.err());
    }

    @Test
    void helpDocumentsEveryOptionAndExitsWith0() {
        final Result r = main("bench", "--help");
        assertEquals(0, r.code());
        for (final String option : List.of("--full", "--runs=N", "--threads=LIST", "--json=FILE", "--csv=FILE",
            "--chart=DIR", "--list", "--help", "futex", "hash", "broadcast", "lock", "cond", "rwlock", "sem")) {
            assertTrue(r.out().contains(option), option + " in " + r.out());
        }
        assertEquals(0, main("help").code());
        assertEquals(0, main("help", "bench").code());
        final Result list = main("bench", "--list");
        assertEquals(0, list.code());
        assertTrue(list.out().startsWith("  futex"), list.out());
    }
}
