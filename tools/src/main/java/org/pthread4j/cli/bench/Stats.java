package org.pthread4j.cli.bench;

import java.util.Arrays;

/**
 * Min, median and max of one case's repetitions, and its ratio to a reference.
 *
 * @param min    the smallest figure
 * @param median the median (the mean of the two middle figures for an even count)
 * @param max    the largest figure
 * @param runs   how many figures
 */
public record Stats(double min, double median, double max, int runs) implements java.io.Serializable {
    /**
     * @param samples one figure per repetition, at least one, none NaN
     * @return their statistics
     * @throws IllegalArgumentException on an empty array or a NaN figure
     */
    public static Stats of(final double[] samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        final double[] s = samples.clone();
        Arrays.sort(s);
        if (Double.isNaN(s[s.length - 1])) {
            throw new IllegalArgumentException("a sample is NaN");
        }
        final int n = s.length;
        final double median = (n & 1) == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        return new Stats(s[0], median, s[n - 1], n);
    }

    /**
     * The ratio of this median to a reference median, in the row's unit: for a time above 1
     * means slower than the reference, for a rate above 1 means faster.
     *
     * @param reference the reference's statistics, or {@code null}
     * @return {@code median / reference.median}, or NaN when there is no usable reference
     */
    public double ratioTo(final Stats reference) {
        if (reference == null || reference.median == 0 || Double.isNaN(reference.median)) {
            return Double.NaN;
        }
        return median / reference.median;
    }
}
