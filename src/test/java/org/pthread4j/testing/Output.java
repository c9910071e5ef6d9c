package org.pthread4j.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A child process's standard output, read line by line on a daemon thread, with a transcript of all of it. */
final class Output {
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuilder transcript = new StringBuilder();
    private final Thread reader;

    Output(final Process process, final String threadName) {
        reader = Thread.ofPlatform().daemon().name(threadName).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (transcript) {
                        transcript.append(line).append('\n');
                    }
                    lines.add(line);
                }
            } catch (final IOException ignored) {
                // the process ended; the caller's wait for a line reports it
            }
        });
        reader.setUncaughtExceptionHandler((t, e) -> { });
    }

    /** {@return the next line, or null when none came within the timeout} */
    String poll(final Duration timeout) throws InterruptedException {
        return lines.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Waits until the process's output ended and was all read. */
    void drain(final Duration timeout) throws InterruptedException {
        reader.join(timeout.toMillis());
    }

    /** {@return everything read so far} */
    String transcript() {
        synchronized (transcript) {
            return transcript.toString();
        }
    }
}
