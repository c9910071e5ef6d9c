package org.pthread4j.cli.workload;

/** {@link Sections} on a Java monitor ({@code synchronized}). */
final class MonitorSections implements Sections {
    private final Object monitor;
    private long word = 1;

    MonitorSections(final Object monitor) {
        this.monitor = monitor;
    }

    @Override
    public long timedSection() {
        final long t0 = System.nanoTime();
        synchronized (monitor) {
            final long t1 = System.nanoTime();
            word = Sections.steps(word, INSIDE);
            return t1 - t0;
        }
    }

    @Override
    public long holdThenRelease(final Runnable whileHeld) {
        synchronized (monitor) {
            whileHeld.run();
            return System.nanoTime();
        }
    }

    @Override
    public long acquireAndStamp() {
        synchronized (monitor) {
            return System.nanoTime();
        }
    }
}
