package org.pthread4j.cli.bench;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The machine-readable outputs: a JSON array and a CSV file with one record per row and the
 * fields {@code workload, impl, backend, threads, unit, min, median, max, runs, ratio,
 * reference}, then {@code measure} (what the row's group compares) and {@code note} (why a
 * case did not run); JSON also carries each row's {@code samples}. A row that did not run has
 * null figures (empty in CSV) and {@code runs} 0.
 */
public final class Outputs {
    /** The CSV header, and the order of the JSON fields. */
    public static final List<String> FIELDS = List.of("workload", "impl", "backend", "threads", "unit", "min",
        "median", "max", "runs", "ratio", "reference", "measure", "note");

    private Outputs() {
    }

    /**
     * @param rows the rows
     * @return a JSON array, one record per line
     */
    public static String json(final List<Row> rows) {
        final StringBuilder sb = new StringBuilder("[\n");
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
        return sb.append("]\n").toString();
    }

    /**
     * @param rows the rows
     * @return CSV text with a header line
     */
    public static String csv(final List<Row> rows) {
        final StringBuilder sb = new StringBuilder(String.join(",", FIELDS)).append('\n');
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
     * Writes text to a file, creating its parent directories.
     *
     * @param file where
     * @param text what
     * @throws IOException when it cannot be written
     */
    public static void write(final Path file, final String text) throws IOException {
        final Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write(text);
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
