package org.pthread4j.cli.bench;

/**
 * What one figure of a group measures: its name, its unit, and which direction is better.
 *
 * @param name           what is measured, e.g. {@code "swap round trip"}
 * @param unit           the unit of every figure, e.g. {@code "ns/round-trip"}
 * @param higherIsBetter whether a larger figure is better (throughput) or worse (time)
 */
public record Measure(String name, String unit, boolean higherIsBetter) {
    /**
     * @param name what is measured
     * @param unit a time unit (lower is better)
     * @return the measure
     */
    public static Measure time(final String name, final String unit) {
        return new Measure(name, unit, false);
    }

    /**
     * @param name what is measured
     * @param unit a rate unit (higher is better)
     * @return the measure
     */
    public static Measure rate(final String name, final String unit) {
        return new Measure(name, unit, true);
    }
}
