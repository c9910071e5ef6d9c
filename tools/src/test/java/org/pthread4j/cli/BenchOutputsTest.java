package org.pthread4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.cli.bench.Charts;
import org.pthread4j.cli.bench.Environment;
import org.pthread4j.cli.bench.Outputs;
import org.pthread4j.cli.bench.Progress;
import org.pthread4j.cli.bench.Row;
import org.pthread4j.cli.bench.Stats;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The bench's outputs: checked before anything runs, never destroying a foreign file, recording the environment. */
class BenchOutputsTest {
    private static final Row ROW = new Row("futex", "swap", "wake+wait", "parking", 2, "ns", false,
        Stats.of(new double[] {1, 2, 3}), 1.0, "wake+wait (parking)", new double[] {1, 2, 3}, null);

    @TempDir
    Path dir;

    @Test
    void anOutputPathThatCannotBeWrittenFailsBeforeAnyWorkloadRuns() {
        for (final List<String> option : List.of(List.of("--chart", "/proc/nope"), List.of("--json", "/proc/nope/x.json"),
            List.of("--csv", "/proc/nope.csv"))) {
            final Cli r = assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> Cli.run("bench", "futex", option.get(0), option.get(1)), "the check comes before the workload");
            assertEquals(Main.USAGE, r.status(), r.toString());
            assertTrue(r.err().startsWith("pthread4j bench: " + option.get(0) + " " + option.get(1) + ": "), r.toString());
            assertFalse(r.out().contains("rows in"), "no workload ran: " + r);
        }
    }

    @Test
    void aForeignFileIsNeverOverwrittenByAnOutput() throws IOException {
        final Path notes = dir.resolve("notes.json");
        final byte[] text = "{\"mine\": true}\n".getBytes(StandardCharsets.UTF_8);
        Files.write(notes, text);
        final Cli r = Cli.run("bench", "futex", "--json", notes.toString());
        assertEquals(Main.USAGE, r.status(), r.toString());
        assertTrue(r.err().contains("--json " + notes + ": exists and is not an output of pthread4j bench"), r.err());
        assertFalse(r.out().contains("rows in"), r.toString());
        assertArrayEquals(text, Files.readAllBytes(notes));

        final Path csv = dir.resolve("data.csv");
        Files.write(csv, text);
        assertThrows(IOException.class, () -> Outputs.prepare("--csv", csv, Outputs.CSV_SIGNATURE));
        assertArrayEquals(text, Files.readAllBytes(csv));
    }

    @Test
    void anEarlierOutputIsReplacedAndANewOneCreated() throws IOException {
        final Path json = dir.resolve("sub/out.json");
        assertTrue(Outputs.prepare("--json", json, Outputs.JSON_SIGNATURE), "created now");
        assertTrue(Files.exists(json));
        Outputs.write(json, Outputs.json(List.of(ROW), Environment.current()));
        assertFalse(Outputs.prepare("--json", json, Outputs.JSON_SIGNATURE), "an earlier output is accepted");
        final Path csv = dir.resolve("out.csv");
        assertTrue(Outputs.prepare("--csv", csv, Outputs.CSV_SIGNATURE));
        Outputs.write(csv, Outputs.csv(List.of(ROW), Environment.current()));
        assertFalse(Outputs.prepare("--csv", csv, Outputs.CSV_SIGNATURE));
    }

    @Test
    void jsonAndCsvRecordTheEnvironment() {
        final Environment env = new Environment("1.2.3", "abcdef012345", "25+36 (Vendor, /jdk)", "Linux 6.18 amd64",
            "Some CPU @ 2GHz", 2, "-Xss1m -Dx=y", "private parking, process-shared linux");
        final String json = Outputs.json(List.of(ROW), env);
        assertTrue(json.startsWith("{\"format\": \"pthread4j-bench\", \"formatVersion\": 1,\n \"environment\": {"
            + "\"version\": \"1.2.3\", \"commit\": \"abcdef012345\", \"jdk\": \"25+36 (Vendor, /jdk)\", \"kernel\": "
            + "\"Linux 6.18 amd64\", \"cpu\": \"Some CPU @ 2GHz\", \"cores\": 2, \"jvmFlags\": \"-Xss1m -Dx=y\", "
            + "\"futex\": \"private parking, process-shared linux\"},\n \"rows\": [\n  {\"workload\": \"futex\""), json);
        assertTrue(json.endsWith("\"samples\": [1, 2, 3]}\n ]}\n"), json);
        final String csv = Outputs.csv(List.of(ROW), env);
        assertTrue(csv.startsWith("# pthread4j bench\n# version: 1.2.3\n# commit: abcdef012345\n# jdk: 25+36 (Vendor, /jdk)\n"
            + "# kernel: Linux 6.18 amd64\n# cpu: Some CPU @ 2GHz\n# cores: 2\n# jvmFlags: -Xss1m -Dx=y\n"
            + "# futex: private parking, process-shared linux\nworkload,impl,backend,"), csv);
        final Environment here = Environment.current();
        assertEquals(Runtime.getRuntime().availableProcessors(), here.cores());
        assertFalse(here.cpu().isBlank());
        assertTrue(here.jdk().startsWith(Runtime.version().toString()), here.jdk());
    }

    @Test
    void aChartDirectoryWithAForeignPictureOfAWorkloadIsRefused() throws IOException {
        final Path charts = dir.resolve("charts");
        Files.createDirectories(charts);
        final Path foreign = charts.resolve("futex-holiday.png");
        Files.write(foreign, new byte[] {(byte) 0x89, 'P', 'N', 'G'});
        final IOException e = assertThrows(IOException.class, () -> Charts.prepare(charts, List.of("futex")));
        assertTrue(e.getMessage().contains("futex-holiday.png exists and is not a chart of pthread4j bench"), e.getMessage());
        Charts.prepare(charts, List.of("lock"));
        Files.delete(foreign);
        final List<Path> written = Charts.write(charts, List.of(ROW));
        assertEquals(1, written.size());
        Charts.prepare(charts, List.of("futex"));
        assertEquals(written, Charts.write(charts, List.of(ROW)), "a chart of an earlier bench is replaced");
    }

    @Test
    void theProgressLineShowsTheTimeLeftAtThePaceSoFar() {
        final Progress p = new Progress(System.err, false, "3/9");
        assertEquals("bench futex (workload 3/9): step 1/5  warm-up", p.line("futex", 1, 5, "warm-up", 0));
        assertEquals("bench futex (workload 3/9): step 3/5, ETA 0:03  run 2", p.line("futex", 3, 5, "run 2", 2_000_000_000L));
        assertEquals("bench futex (workload 3/9): step 5/5, ETA 1:05  run 4",
            p.line("futex", 5, 5, "run 4", 260_000_000_000L));
    }
}
