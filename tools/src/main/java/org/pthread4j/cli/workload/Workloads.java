package org.pthread4j.cli.workload;

import org.pthread4j.cli.bench.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Every workload of {@code ./pthread4j bench}, in the order a full run measures them.
 *
 * <p>Adding a workload (another primitive's benchmark) is one class
 * implementing {@link Workload} and one line in {@link #all()}. Adding an implementation to the
 * lock stress (a new mutex kind) is one entry in {@link LockWorkload#IMPLS}.
 */
public final class Workloads {
    private Workloads() {
    }

    /** @return every workload; the hash workload last, because it resizes the process's futex hash */
    public static List<Workload> all() {
        return List.of(
            new FutexWorkload(),
            new LockWorkload(),
            new LatencyWorkload(),
            new CondWorkload(),
            new RwLockWorkload(),
            new SemWorkload(),
            new BroadcastWorkload(),
            new JucWorkload(),
            new IpcWorkload(),
            new RingWorkload(),
            new HashWorkload());
    }

    /**
     * @param name a workload's name, any case
     * @return the workload, or {@code null}
     */
    public static Workload byName(final String name) {
        for (final Workload w : all()) {
            if (w.name().equals(name.toLowerCase(Locale.ROOT))) {
                return w;
            }
        }
        return null;
    }

    /** @return the workloads' names */
    public static List<String> names() {
        final List<String> names = new ArrayList<>();
        for (final Workload w : all()) {
            names.add(w.name());
        }
        return names;
    }
}
