package org.pthread4j.cli.bench;

/**
 * One line of the result table and one record of the JSON and CSV outputs.
 *
 * @param workload  the workload's name, e.g. {@code "futex"}
 * @param section   what the row's group compares, e.g. {@code "swap round trip"}
 * @param impl      the implementation
 * @param backend   where it ran
 * @param threads   threads it ran with
 * @param unit      the unit of min, median and max
 * @param higherIsBetter whether a larger figure is better
 * @param stats     min, median, max and run count, or {@code null} when the case did not run
 * @param ratio     median divided by the reference's median (NaN when unknown)
 * @param reference the reference row's label ({@code impl (backend)})
 * @param samples   the figures of every repetition, in run order (empty when skipped)
 * @param note      why the case did not run, or {@code null}
 */
public record Row(String workload, String section, String impl, String backend, int threads, String unit,
                  boolean higherIsBetter, Stats stats, double ratio, String reference, double[] samples,
                  String note) implements java.io.Serializable {
    /** @return whether the case ran and has figures */
    public boolean measured() {
        return stats != null;
    }

    /** @return whether this row is its group's reference */
    public boolean isReference() {
        return reference.equals(impl + " (" + backend + ")");
    }

    /** @return {@code impl (backend)} */
    public String label() {
        return impl + " (" + backend + ")";
    }
}
