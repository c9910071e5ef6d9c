package org.pthread4j.cli.bench;

/**
 * One implementation set up and ready to be measured: its threads started, its memory
 * allocated. The harness warms it up, then calls {@link #trial} once per run, and closes it.
 * A fixture is used by the harness thread only; it owns whatever helper threads it starts and
 * must stop them in {@link #close()}.
 */
public interface Fixture extends AutoCloseable {
    /**
     * Runs one repetition for about {@code budgetNanos} and returns its figures, one per
     * {@link Measure} of the group, in the group's units.
     *
     * @param budgetNanos how long the repetition should take (a target, not a limit)
     * @return the figures
     * @throws Exception when the implementation fails; the harness reports the case as failed
     */
    double[] trial(long budgetNanos) throws Exception;

    /**
     * Warms the implementation up (JIT, caches, thread start) before the measured runs. The
     * default runs trials until {@code budgetNanos} has passed, at least one.
     *
     * @param budgetNanos how long to warm up
     * @throws Exception when the implementation fails
     */
    default void warmUp(final long budgetNanos) throws Exception {
        final long end = System.nanoTime() + budgetNanos;
        do {
            trial(Math.max(budgetNanos / 4, 1_000_000L));
        } while (System.nanoTime() < end);
    }

    /** Stops helper threads and frees memory. */
    @Override
    void close();

    /**
     * A fixture whose figure is a single number.
     */
    @FunctionalInterface
    interface Single {
        /**
         * @param budgetNanos how long the repetition should take
         * @return the figure
         * @throws Exception on failure
         */
        double run(long budgetNanos) throws Exception;
    }

    /**
     * Closes {@code close} for a fixture's {@link #close()}: a checked failure becomes an
     * {@link IllegalStateException} that names it.
     *
     * @param close what closing the fixture does
     */
    static void closeAll(final AutoCloseable close) {
        try {
            close.close();
        } catch (final RuntimeException e) {
            throw e;
        } catch (final Exception e) {
            throw new IllegalStateException("closing failed: " + e, e);
        }
    }

    /**
     * @param trial one repetition
     * @param close what closing does
     * @return a fixture with one figure per trial
     */
    static Fixture of(final Single trial, final AutoCloseable close) {
        return new Fixture() {
            @Override
            public double[] trial(final long budgetNanos) throws Exception {
                return new double[] {trial.run(budgetNanos)};
            }

            @Override
            public void close() {
                closeAll(close);
            }
        };
    }

    /**
     * @param trial one repetition
     * @return a fixture with one figure per trial and nothing to close
     */
    static Fixture of(final Single trial) {
        return of(trial, () -> { });
    }
}
