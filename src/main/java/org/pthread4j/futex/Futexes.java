package org.pthread4j.futex;

import org.pthread4j.internal.Syscall;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Where primitives get their futex backend.
 *
 * <p>A primitive chooses when it is created: process-shared words always use the kernel
 * ({@link #shared()}); private words use {@link #defaultPrivate()}, which is the parking
 * backend unless the system property {@value #PROPERTY} names another ({@code parking},
 * {@code linux}, {@code linux-noprivate}). Every primitive also takes a backend explicitly.
 *
 * <p>Why parking is the private default: a parked waiter answers interrupts at once and shows
 * as {@code WAITING} in thread dumps, where a platform thread in a native {@code FUTEX_WAIT}
 * shows {@code RUNNABLE} and answers within a 20 ms slice (virtual threads park on both: the
 * kernel backend keeps them out of the native wait). Speed does not decide it (the figures are
 * in {@code docs/measurements.md}). The primitives' uncontended paths make no futex call on
 * either backend. The backend also decides how a private lock's threads sleep and wake: the
 * parking protocol on the parking backend, musl's on the kernel ones
 * ({@code org.pthread4j.SleepProtocol}).
 *
 * <p>Setting {@value #PROPERTY} to {@code linux-noprivate} runs every private primitive on the
 * kernel backend with the private flag refused as by a kernel older than 2.6.22, which is how
 * a test class is run on musl's fallback path:
 * {@code ./mvnw test -Dtest=MutexTest -Dpthread4j.futex=linux-noprivate}.
 */
public final class Futexes {
    /** System property naming the default backend for private words. */
    public static final String PROPERTY = "pthread4j.futex";

    private static final class Holder {
        static final LinuxFutex LINUX = new LinuxFutex(false, "linux");
        static final LinuxFutex LINUX_NOPRIVATE = new LinuxFutex(true, "linux-noprivate");
    }

    private static final class ParkingHolder {
        static final ParkingFutex PARKING = ParkingFutex.create(ParkingFutex.DEFAULT_BUCKETS, false);
    }

    /** The backend {@value #PROPERTY} names, once it was read and found valid. */
    private static volatile Futex defaultPrivate;

    private Futexes() {
    }

    /**
     * {@return the kernel backend}
     *
     * @throws UnsupportedOperationException when this JVM does not run on Linux x86_64 or aarch64
     */
    public static LinuxFutex linux() {
        LinuxFutex.requireAvailable();
        return Holder.LINUX;
    }

    /**
     * {@return a kernel backend whose private operations are answered with ENOSYS, as a kernel
     *     without private futexes answers, so every private call takes musl's fallback path}
     *
     * @throws UnsupportedOperationException when this JVM does not run on Linux x86_64 or aarch64
     */
    public static LinuxFutex linuxNoPrivate() {
        LinuxFutex.requireAvailable();
        return Holder.LINUX_NOPRIVATE;
    }

    /** {@return the shared parking backend ({@value ParkingFutex#DEFAULT_BUCKETS} buckets, FIFO)} */
    public static ParkingFutex parking() {
        return ParkingHolder.PARKING;
    }

    /**
     * {@return the backend for private words chosen by {@value #PROPERTY} (default parking)}
     *
     * @throws IllegalArgumentException when the property names no backend (the message lists the valid values)
     */
    public static Futex defaultPrivate() {
        Futex f = defaultPrivate;
        if (f == null) {
            final String name = System.getProperty(PROPERTY, "parking");
            try {
                f = byName(name);
            } catch (final IllegalArgumentException e) {
                throw new IllegalArgumentException("-D" + PROPERTY + "=" + name + ": " + e.getMessage(), e);
            }
            defaultPrivate = f;
        }
        return f;
    }

    /**
     * {@return the backend for process-shared words: the kernel}
     *
     * @throws UnsupportedOperationException when this JVM does not run on Linux x86_64 or aarch64
     */
    public static Futex shared() {
        return "linux-noprivate".equals(defaultPrivate().name()) ? linuxNoPrivate() : linux();
    }

    /**
     * {@return that backend}
     *
     * @param name {@code parking}, {@code linux} or {@code linux-noprivate}
     * @throws IllegalArgumentException for another name
     */
    public static Futex byName(final String name) {
        Objects.requireNonNull(name, "name");
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "parking" -> parking();
            case "linux" -> linux();
            case "linux-noprivate" -> linuxNoPrivate();
            default -> throw new IllegalArgumentException("unknown futex backend '" + name
                + "'; the valid values are parking, linux and linux-noprivate");
        };
    }

    /**
     * {@return every backend for private words this platform has: parking, linux, linux-noprivate
     *     on Linux x86_64 and aarch64, parking alone elsewhere}
     */
    public static List<Futex> allPrivate() {
        return Syscall.AVAILABLE ? List.of(parking(), linux(), linuxNoPrivate()) : List.of(parking());
    }
}
