package org.pthread4j.cli.bench;

import java.util.Objects;

/**
 * One row-to-be of a {@link Group}: an implementation on a backend, and how to set it up.
 *
 * @param impl       what is measured, e.g. {@code "wake+wait"}, {@code "ReentrantLock"}
 * @param backend    where it runs, e.g. {@code "parking"}, {@code "linux"}, {@code "C (glibc)"}
 * @param open       sets the implementation up; called once per case
 * @param skipReason why the case is not run on this machine, or {@code null} to run it
 */
public record Case(String impl, String backend, Opener open, String skipReason) {
    /** Sets a case up. */
    @FunctionalInterface
    public interface Opener {
        /**
         * @return the fixture, ready for warm-up
         * @throws Exception when it cannot be set up
         */
        Fixture open() throws Exception;
    }

    /** Checks the fields. */
    public Case {
        Objects.requireNonNull(impl, "impl");
        Objects.requireNonNull(backend, "backend");
    }

    /**
     * @param impl    the implementation
     * @param backend where it runs
     * @param open    how to set it up
     * @return a case that runs
     */
    public static Case of(final String impl, final String backend, final Opener open) {
        return new Case(impl, backend, Objects.requireNonNull(open, "open"), null);
    }

    /**
     * @param impl    the implementation
     * @param backend where it would run
     * @param reason  why it does not run here (printed with the table)
     * @return a case that is reported as skipped
     */
    public static Case skipped(final String impl, final String backend, final String reason) {
        return new Case(impl, backend, null, Objects.requireNonNull(reason, "reason"));
    }

    /** @return {@code impl (backend)}, the label of this case in tables and charts */
    public String label() {
        return impl + " (" + backend + ")";
    }
}
