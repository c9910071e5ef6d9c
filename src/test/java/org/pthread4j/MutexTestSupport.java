package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.junit.jupiter.params.provider.Arguments;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Backends;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Shared fixtures for the mutex tests. */
final class MutexTestSupport {
    /** Liveness bound: generous, never a speed assertion. */
    static final Duration LIVENESS = Duration.ofSeconds(Long.getLong("pthread4j.test.liveness", 30));

    private MutexTestSupport() {
    }

    /** A backend and whether the mutex is process-shared. */
    record Config(Futex futex, boolean pshared) {
        MutexAttr attr(final int kind) {
            return MutexAttr.builder().type(kind).pshared(pshared).futex(futex).build();
        }

        @Override
        public String toString() {
            return (pshared ? "shared/" : "private/") + futex.name();
        }
    }

    /** @return every private backend with pshared off, every shared backend with pshared on */
    static Stream<Config> configs() {
        return Stream.concat(Backends.privateBackends().map(f -> new Config(f, false)),
            Backends.sharedBackends().map(f -> new Config(f, true)));
    }

    /** @return {@link #configs()} times the three kinds */
    static Stream<Arguments> configsAndKinds() {
        return configs().flatMap(c -> Stream.of(MutexAttr.NORMAL, MutexAttr.RECURSIVE, MutexAttr.ERRORCHECK)
            .map(k -> Arguments.of(c, k)));
    }

    /** @return {@link #configs()} times the two owner-tracked kinds */
    static Stream<Arguments> configsAndTrackedKinds() {
        return configs().flatMap(c -> Stream.of(MutexAttr.RECURSIVE, MutexAttr.ERRORCHECK)
            .map(k -> Arguments.of(c, k)));
    }

    /** @return every private backend times the two owner-tracked kinds */
    static Stream<Arguments> privateTrackedArgs() {
        return Backends.privateBackends().flatMap(f -> Stream.of(MutexAttr.RECURSIVE, MutexAttr.ERRORCHECK)
            .map(k -> Arguments.of(f, k)));
    }

    /** @return every private backend times the three kinds */
    static Stream<Arguments> privateKindArgs() {
        return Backends.privateBackends().flatMap(f -> Stream.of(MutexAttr.NORMAL, MutexAttr.RECURSIVE,
            MutexAttr.ERRORCHECK).map(k -> Arguments.of(f, k)));
    }

    /** @return the three kinds */
    static Stream<Integer> kinds() {
        return Stream.of(MutexAttr.NORMAL, MutexAttr.RECURSIVE, MutexAttr.ERRORCHECK);
    }

    static String kindName(final int kind) {
        return List.of("NORMAL", "RECURSIVE", "ERRORCHECK").get(kind);
    }

    /** Private memory with room for a few mutexes. */
    static Memory memory() {
        return Memory.allocate(256);
    }

    static Block block(final Memory memory, final int index) {
        return memory.block(index * 64L, MutexLayout.SIZE, MutexLayout.ALIGNMENT);
    }

    /** Runs {@code body} on a new platform thread that then ends, waits for it to end, and returns its result. */
    static <T> T onThreadThatEnds(final java.util.concurrent.Callable<T> body) throws Exception {
        final java.util.concurrent.FutureTask<T> task = new java.util.concurrent.FutureTask<>(body);
        final Thread t = Thread.ofPlatform().name("robust-owner").start(task);
        t.join(LIVENESS.toMillis());
        if (t.isAlive()) {
            throw new AssertionError(t + " did not end within " + LIVENESS);
        }
        return task.get();
    }

    static Timespec inMillis(final long millis) {
        return Timespec.after(Timespec.CLOCK_REALTIME, millis, TimeUnit.MILLISECONDS);
    }

    /** Another platform thread that runs calls one at a time (so it stays the owner of what it locks). */
    static final class Other implements AutoCloseable {
        private final ExecutorService exec = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "mutex-test-other");
            t.setDaemon(true);
            return t;
        });

        <T> T call(final Callable<T> c) throws Exception {
            return exec.submit(c).get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
        }

        <T> Future<T> submit(final Callable<T> c) {
            return exec.submit(c);
        }

        @Override
        public void close() {
            exec.shutdownNow();
        }
    }

    static <T> T get(final Future<T> f) throws Exception {
        return f.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits (bounded) until the mutex counts {@code n} sleepers. */
    static void awaitWaiters(final Mutex m, final int n) throws InterruptedException {
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (m.waiterCount() < n) {
            if (System.nanoTime() > end) {
                throw new AssertionError("no " + n + " waiters within " + LIVENESS + ": " + m);
            }
            Thread.sleep(1);
        }
    }
}
