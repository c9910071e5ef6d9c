package org.pthread4j.testing;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;

import java.util.stream.Stream;

/**
 * The futex backends a test of private words runs on: {@code @MethodSource("org.pthread4j.testing.Backends#privateBackends")}.
 * Every private test runs on the parking backend, the kernel backend, and the kernel backend
 * with the private flag refused (musl's fallback path).
 */
public final class Backends {
    private Backends() {
    }

    /** @return parking, linux, linux-noprivate */
    public static Stream<Futex> privateBackends() {
        return Futexes.allPrivate().stream();
    }

    /** @return the backends that serve shared words: linux, linux-noprivate (the fallback does not change shared calls) */
    public static Stream<Futex> sharedBackends() {
        return Stream.of(Futexes.linux(), Futexes.linuxNoPrivate());
    }
}
