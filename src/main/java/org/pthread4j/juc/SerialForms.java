package org.pthread4j.juc;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;

/**
 * What the adapters' serial forms share: a private primitive's backend, written by name and read
 * back as the backend of that name.
 */
final class SerialForms {
    private SerialForms() {
    }

    /** {@return the name a serial form records for a requested backend, {@code null} for the default} */
    static String backendName(final Futex futex) {
        return futex == null ? null : futex.name();
    }

    /**
     * {@return the backend a serial form names ({@link Futexes#byName}), or {@code null} (the
     *     default) for none, for another name (a table made with {@code ParkingFutex.create} has
     *     no name that finds it again), or for a kernel backend this platform lacks}
     */
    static Futex backend(final String name) {
        if (name == null) {
            return null;
        }
        try {
            return Futexes.byName(name);
        } catch (final IllegalArgumentException | UnsupportedOperationException e) {
            return null;
        }
    }
}
