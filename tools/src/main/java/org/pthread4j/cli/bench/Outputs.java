package org.pthread4j.cli.bench;

import org.pthread4j.cli.fs.Problems;

import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Locale;

/**
 * The machine-readable outputs: a JSON object and a CSV file with one record per row and the
 * fields {@code workload, impl, backend, threads, unit, min, median, max, runs, ratio,
 * reference}, then {@code measure} (what the row's group compares) and {@code note} (why a
 * case did not run); JSON also carries each row's {@code samples}. A row that did not run has
 * null figures (empty in CSV) and {@code runs} 0. Both record the {@link Environment} the run
 * had: the JSON object's {@code environment}, and {@code #} lines above the CSV header.
 *
 * <p>An output never destroys a file the bench did not write: {@link #prepare} (called before
 * any workload runs) creates a new file, or accepts an existing one only when it is an earlier
 * output of the same kind, recognized by its first bytes ({@link #JSON_SIGNATURE},
 * {@link #CSV_SIGNATURE}); anything else is refused and left as it is.
 */
public final class Outputs {
    /** The CSV header, and the order of the JSON fields. */
    public static final List<String> FIELDS = List.of("workload", "impl", "backend", "threads", "unit", "min",
        "median", "max", "runs", "ratio", "reference", "measure", "note");
    /** How a bench JSON file starts. */
    public static final String JSON_SIGNATURE = "{\"format\": \"pthread4j-bench\"";
    /** How a bench CSV file starts. */
    public static final String CSV_SIGNATURE = "# pthread4j bench";
    /** The format version of the JSON object. */
    public static final int FORMAT_VERSION = 1;

    private Outputs() {
    }

    /**
     * @param rows the rows
     * @param env  the run's environment
     * @return a JSON object: format, version, environment, and the rows, one record per line
     */
    public static String json(final List<Row> rows, final Environment env) {
        final StringBuilder sb = new StringBuilder(JSON_SIGNATURE).append(", \"formatVersion\": ").append(FORMAT_VERSION)
            .append(",\n \"environment\": {");
        boolean first = true;
        for (final Map.Entry<String, String> e : env.fields().entrySet()) {
            sb.append(first ? "" : ", ").append(str(e.getKey())).append(": ")
                .append(e.getKey().equals("cores") ? e.getValue() : str(e.getValue()));
            first = false;
        }
        sb.append("},\n \"rows\": [\n");
        for (int i = 0; i < rows.size(); i++) {
            final Row r = rows.get(i);
            final Stats s = r.stats();
            sb.append("  {\"workload\": ").append(str(r.workload()))
                .append(", \"impl\": ").append(str(r.impl()))
                .append(", \"backend\": ").append(str(r.backend()))
                .append(", \"threads\": ").append(r.threads())
                .append(", \"unit\": ").append(str(r.unit()))
                .append(", \"min\": ").append(s == null ? "null" : num(s.min()))
                .append(", \"median\": ").append(s == null ? "null" : num(s.median()))
                .append(", \"max\": ").append(s == null ? "null" : num(s.max()))
                .append(", \"runs\": ").append(s == null ? 0 : s.runs())
                .append(", \"ratio\": ").append(num(r.ratio()))
                .append(", \"reference\": ").append(str(r.reference()))
                .append(", \"measure\": ").append(str(r.section()))
                .append(", \"note\": ").append(r.note() == null ? "null" : str(r.note()))
                .append(", \"samples\": [");
            for (int k = 0; k < r.samples().length; k++) {
                sb.append(k == 0 ? "" : ", ").append(num(r.samples()[k]));
            }
            sb.append("]}").append(i + 1 < rows.size() ? "," : "").append('\n');
        }
        return sb.append(" ]}\n").toString();
    }

    /**
     * @param rows the rows
     * @param env  the run's environment
     * @return CSV text: the environment in {@code #} lines, a header line, the rows
     */
    public static String csv(final List<Row> rows, final Environment env) {
        final StringBuilder sb = new StringBuilder(CSV_SIGNATURE).append('\n');
        for (final Map.Entry<String, String> e : env.fields().entrySet()) {
            sb.append("# ").append(e.getKey()).append(": ").append(e.getValue().replace('\n', ' ')).append('\n');
        }
        sb.append(String.join(",", FIELDS)).append('\n');
        for (final Row r : rows) {
            final Stats s = r.stats();
            sb.append(cell(r.workload())).append(',')
                .append(cell(r.impl())).append(',')
                .append(cell(r.backend())).append(',')
                .append(r.threads()).append(',')
                .append(cell(r.unit())).append(',')
                .append(s == null ? "" : plain(s.min())).append(',')
                .append(s == null ? "" : plain(s.median())).append(',')
                .append(s == null ? "" : plain(s.max())).append(',')
                .append(s == null ? 0 : s.runs()).append(',')
                .append(Double.isNaN(r.ratio()) ? "" : plain(r.ratio())).append(',')
                .append(cell(r.reference())).append(',')
                .append(cell(r.section())).append(',')
                .append(r.note() == null ? "" : cell(r.note())).append('\n');
        }
        return sb.toString();
    }

    /**
     * Makes sure, before anything runs, that an output can be written to {@code file} without
     * destroying anything: a file that does not exist is created now (empty; its parent
     * directories too), an existing one is accepted only when it is a regular, writable file
     * that starts with {@code signature} (an earlier output of this kind).
     *
     * @param option    the option that named the file, for the message
     * @param file      the file
     * @param signature how an output of this kind starts
     * @return whether this call created the file (delete it if the run writes nothing)
     * @throws IOException when the file cannot be used; the message names the option and the
     *                     file, says why and what to do, and the file is left as it was
     */
    public static boolean prepare(final String option, final Path file, final String signature) throws IOException {
        final Path abs = file.toAbsolutePath();
        if (Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isRegularFile(abs, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(option + " " + file + ": exists and is not a regular file; name a new file");
            }
            if (!startsWith(abs, signature)) {
                throw new IOException(option + " " + file + ": exists and is not an output of pthread4j bench "
                    + "(it does not start with '" + signature + "'); it is left as it is: name a new file, or remove "
                    + "it yourself");
            }
            if (!Files.isWritable(abs)) {
                throw new IOException(option + " " + file + ": permission denied (not writable)");
            }
            return false;
        }
        try {
            final Path parent = abs.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.createFile(abs);
            return true;
        } catch (final IOException e) {
            throw new IOException(option + " " + file + ": cannot be created: " + Problems.words(e), e);
        }
    }

    /**
     * Writes text to a file that {@link #prepare} accepted, replacing it at once (through a
     * temporary file in the same directory, renamed over it).
     *
     * @param file where
     * @param text what
     * @throws IOException when it cannot be written
     */
    public static void write(final Path file, final String text) throws IOException {
        final Path abs = file.toAbsolutePath();
        final Path tmp = Files.createTempFile(abs.getParent(), "." + abs.getFileName(), ".tmp");
        try {
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                w.write(text);
            }
            Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * @param file      a file
     * @param signature bytes to look for
     * @return whether the file starts with them
     * @throws IOException when it cannot be read
     */
    static boolean startsWith(final Path file, final String signature) throws IOException {
        final byte[] want = signature.getBytes(StandardCharsets.UTF_8);
        try (InputStream in = Files.newInputStream(file)) {
            return Arrays.equals(in.readNBytes(want.length), want);
        }
    }

    private static String num(final double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "null";
        }
        return plain(v);
    }

    private static String plain(final double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.6g", v).replaceFirst("(\\.\\d*?)0+(e|$)", "$1$2").replaceFirst("\\.(e|$)", "$1");
    }

    private static String str(final String s) {
        final StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static String cell(final String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
