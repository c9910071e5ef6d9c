package org.pthread4j.cli.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The text table: one block per workload and measure, one line per row, each row with its
 * ratio to the reference measured in the same run.
 */
public final class Report {
    private Report() {
    }

    /**
     * Prints the table.
     *
     * @param out          where to print
     * @param rows         the rows, in run order
     * @param descriptions workload name to its description, for the block headings
     */
    public static void print(final PrintWriter out, final List<Row> rows, final Map<String, String> descriptions) {
        final Map<String, List<Row>> blocks = new LinkedHashMap<>();
        for (final Row r : rows) {
            blocks.computeIfAbsent(r.workload() + "\u0000" + r.section(), k -> new ArrayList<>()).add(r);
        }
        String lastWorkload = null;
        for (final List<Row> block : blocks.values()) {
            final Row first = block.get(0);
            if (!first.workload().equals(lastWorkload)) {
                lastWorkload = first.workload();
                out.println();
                final String d = descriptions.get(lastWorkload);
                out.println("== " + lastWorkload + (d == null ? "" : ": " + d) + " ==");
            }
            int runs = 0;
            for (final Row r : block) {
                if (r.measured()) {
                    runs = Math.max(runs, r.stats().runs());
                }
            }
            out.println();
            out.println(first.section() + "  [" + first.unit() + ", " + (first.higherIsBetter() ? "higher" : "lower")
                + " is better; min/median/max of " + runs + " runs; ratio = median / reference median]");
            int implWidth = "impl".length();
            int backendWidth = "backend".length();
            for (final Row r : block) {
                implWidth = Math.max(implWidth, r.impl().length());
                backendWidth = Math.max(backendWidth, r.backend().length());
            }
            final String head = "  %7s  %-" + implWidth + "s  %-" + backendWidth + "s  %12s %12s %12s  %7s%n";
            out.printf(Locale.ROOT, head, "threads", "impl", "backend", "min", "median", "max", "ratio");
            for (final Row r : block) {
                final String lineStart = String.format(Locale.ROOT, "  %7d  %-" + implWidth + "s  %-" + backendWidth + "s  ",
                    r.threads(), r.impl(), r.backend());
                if (!r.measured()) {
                    out.println(lineStart + "-- " + r.note());
                    continue;
                }
                out.printf(Locale.ROOT, "%s%12s %12s %12s  %7s%s%n", lineStart,
                    number(r.stats().min()), number(r.stats().median()), number(r.stats().max()),
                    ratio(r.ratio()), r.isReference() ? "  reference" : "");
            }
        }
        out.flush();
    }

    /**
     * @param v a figure
     * @return it with three or more significant digits and thousands separators
     */
    public static String number(final double v) {
        final double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1 || a == 0) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    /**
     * @param r a ratio
     * @return it with two decimals, or {@code n/a}
     */
    public static String ratio(final double r) {
        if (Double.isNaN(r)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, r >= 100 ? "%.0f" : "%.2f", r);
    }
}
