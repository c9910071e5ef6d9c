package org.pthread4j;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/** Test threads with liveness timeouts (generous: they bound hangs, they never measure speed). */
final class Spawn {
    /** How long a test waits for something that must happen. */
    static final Duration LIVENESS = Duration.ofSeconds(60);

    private Spawn() {
    }

    /** A platform thread running {@code c}; its result or exception lands in the future. */
    static <T> Running<T> call(final Callable<T> c) {
        final CompletableFuture<T> f = new CompletableFuture<>();
        final Thread t = Thread.ofPlatform().daemon().start(() -> {
            try {
                f.complete(c.call());
            } catch (final Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return new Running<>(t, f);
    }

    /** A started thread and its result. */
    record Running<T>(Thread thread, CompletableFuture<T> result) {
        T get() throws InterruptedException {
            try {
                return result.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
            } catch (final ExecutionException e) {
                throw new AssertionError("thread failed", e.getCause());
            } catch (final TimeoutException e) {
                throw new AssertionError("thread did not finish within " + LIVENESS + " (state "
                    + thread.getState() + ")");
            }
        }

        boolean isDone() {
            return result.isDone();
        }
    }

    /** Waits (polling, with a liveness bound) until {@code condition} holds. */
    static void until(final String what, final BooleanSupplier condition) throws InterruptedException {
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("never happened within " + LIVENESS + ": " + what);
            }
            Thread.sleep(1);
        }
    }
}
