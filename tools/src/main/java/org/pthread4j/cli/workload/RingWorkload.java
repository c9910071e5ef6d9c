package org.pthread4j.cli.workload;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.ChildJvm;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.ipc.FutexDoorbell;
import org.pthread4j.ipc.FutexIdleStrategy;
import org.pthread4j.ipc.SlotType;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.ipc.SyncFileLayout;
import org.pthread4j.memory.Block;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code bench ring}: a blocking ring for the Agrona and Aeron crowd. An Agrona
 * {@link OneToOneRingBuffer} lives in a raw slot of a sync file in {@code /dev/shm}; this JVM
 * produces, a second JVM ({@link RingConsumer}) consumes, idling with one of four strategies:
 * Agrona's {@code BusySpinIdleStrategy} (the reference), the library's
 * {@link org.pthread4j.ipc.FutexIdleStrategy} (spins, yields, then sleeps on a
 * {@link FutexDoorbell} that the producer rings after each message; once adaptive, its default,
 * once with a fixed {@value org.pthread4j.ipc.FutexIdleStrategy#DEFAULT_SPINS} spins), and Agrona's
 * {@code BackoffIdleStrategy} and {@code SleepingIdleStrategy} (1 us parks).
 *
 * <p>Every run measures, in this order: the latency of messages sent at a low rate (the
 * consumer idles between two, so its strategy decides how fast it sees the next), then at a
 * high rate, each as p50, p99 and p99.9 of one histogram per run (a message carries its send
 * time; the consumer subtracts it from its arrival time), with the consumer process's CPU use
 * while it receives at the low rate; then, with nothing sent, the consumer
 * process's CPU time over a pause, as a percentage of one CPU (all its threads, read from
 * {@code /proc/PID/task/TID/schedstat}). The producer paces messages by their due times, so a
 * slow consumer does not slow the sending. Cases run one after the other: a busy-spinning
 * consumer would take a CPU from the others'.
 */
public final class RingWorkload implements Workload {
    /** The messages per second of the low rate. */
    static final int LOW_RATE = 1_000;
    /** The messages per second of the high rate. */
    static final int HIGH_RATE = 100_000;
    /** The unit of the latencies. */
    static final String NS = "ns";
    /** The unit of the idle consumer's CPU use. */
    static final String CPU = "% of a CPU";
    private static final long START_MILLIS = 60_000;
    private static final long STOP_MILLIS = 30_000;
    private static final AtomicInteger FILES = new AtomicInteger();

    /** Creates the workload. */
    public RingWorkload() {
    }

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public String description() {
        return "an Agrona OneToOneRingBuffer in a sync file between two JVMs, the consumer idling with FutexIdleStrategy "
            + "vs Agrona's busy-spin (the reference), backoff and sleeping strategies: message latency p50/p99/p99.9 at "
            + "1,000 and 100,000 messages/s, and the idle consumer's CPU use";
    }

    /** The figures of one run, in order. */
    static List<Measure> measures() {
        final List<Measure> m = new ArrayList<>();
        for (final int rate : new int[] {LOW_RATE, HIGH_RATE}) {
            for (final String p : new String[] {"p50", "p99", "p99.9"}) {
                m.add(Measure.time("message latency " + p + " at " + String.format("%,d", rate) + " msg/s", NS));
            }
        }
        m.add(Measure.time("consumer CPU at " + String.format("%,d", LOW_RATE) + " msg/s", CPU));
        m.add(Measure.time("consumer CPU while idle", CPU));
        return m;
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final Phases phases = new Phases(settings.pick(1_000, 3_000), settings.pick(20_000, 100_000),
            settings.pick(500, 1_000), settings.pick(100_000, 300_000));
        final String noFile = !BenchBackends.kernel() ? BenchBackends.NO_KERNEL
            : !Files.isDirectory(SyncFile.DEFAULT_DIRECTORY) ? IpcWorkload.NO_SHM : null;
        final List<Case> cases = new ArrayList<>();
        for (final String s : RingConsumer.STRATEGIES) {
            final String impl = "OneToOneRingBuffer, " + switch (s) {
                case "futex" -> "futex consumer (adaptive)";
                case "futex-fixed" -> "futex consumer, " + FutexIdleStrategy.DEFAULT_SPINS + " spins";
                default -> s + " consumer";
            };
            cases.add(noFile != null ? Case.skipped(impl, BenchBackends.PSHARED, noFile)
                : Case.of(impl, BenchBackends.PSHARED, () -> new RingPair(s, phases)));
        }
        return List.of(new Group("ring", measures(), 2, cases, false));
    }

    /**
     * How much one run sends and waits.
     *
     * @param low        messages at the low rate
     * @param high       messages at the high rate
     * @param idleMillis the pause over which the idle consumer's CPU is measured
     * @param warmUp     messages at the high rate that warm both JVMs up
     */
    record Phases(int low, int high, long idleMillis, int warmUp) {
    }

    /** This JVM produces, a second JVM consumes with one idle strategy. */
    static final class RingPair implements Fixture {
        private final Phases phases;
        private final SyncFile file;
        private final OneToOneRingBuffer ring;
        private final FutexDoorbell bell;
        private final boolean ringBell;
        private final Process consumer;
        private final PrintWriter toConsumer;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(8));

        RingPair(final String strategy, final Phases phases) throws IOException, InterruptedException {
            this.phases = phases;
            this.ringBell = strategy.startsWith("futex");
            final Path path = SyncFile.shmPath("pthread4j-bench-ring-" + ProcessHandle.current().pid() + "-"
                + FILES.incrementAndGet());
            this.file = SyncFile.create(path, 4, RingConsumer.slotSize() + 4L * SyncFileLayout.SLOT_ALIGNMENT,
                SyncFile.DEFAULT_MODE);
            Process p = null;
            try {
                final Block slot = file.slot(RingConsumer.RING, SlotType.RAW, RingConsumer.slotSize());
                this.ring = RingConsumer.ring(slot);
                this.bell = file.doorbell(RingConsumer.BELL);
                file.slot(RingConsumer.STOP, SlotType.RAW, 8);
                p = new ProcessBuilder(ChildJvm.command(RingConsumer.class.getName(), List.of(path.toString(), strategy)))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                this.consumer = p;
                this.toConsumer = new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8);
                final Process started = p;
                Thread.ofPlatform().daemon().name("bench-ring-consumer-output").start(() -> readLines(started));
                final String first = lines.poll(START_MILLIS, TimeUnit.MILLISECONDS);
                if (!"ready".equals(first)) {
                    throw new IOException("the consumer JVM did not start: "
                        + (first == null ? "no answer in " + START_MILLIS / 1000 + " s" : first));
                }
                SyncFile.unlink(path);
            } catch (final IOException | InterruptedException | RuntimeException e) {
                if (p != null) {
                    p.destroyForcibly();
                    p.waitFor(STOP_MILLIS, TimeUnit.MILLISECONDS);
                }
                file.close();
                SyncFile.unlink(path);
                throw e;
            }
        }

        private void readLines(final Process p) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (final IOException ignored) {
                // the consumer is gone; the next report says so
            }
        }

        /** Sends {@code count} messages due every {@code 1e9 / rate} ns, waits until all are consumed. */
        private void send(final int count, final int rate) {
            final long period = 1_000_000_000L / rate;
            final long t0 = System.nanoTime();
            for (int i = 0; i < count; i++) {
                final long due = t0 + i * period;
                while (System.nanoTime() < due) {
                    Thread.onSpinWait();
                }
                message.putLong(0, System.nanoTime());
                while (!ring.write(RingConsumer.MSG, message, 0, 8)) {
                    checkConsumer();
                    Thread.onSpinWait();
                }
                if (ringBell) {
                    bell.ring();
                }
            }
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_MILLIS);
            while (ring.consumerPosition() != ring.producerPosition()) {
                checkConsumer();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the consumer JVM did not drain the ring in " + STOP_MILLIS / 1000
                        + " s");
                }
                Thread.onSpinWait();
            }
        }

        private void checkConsumer() {
            if (!consumer.isAlive()) {
                throw new IllegalStateException("the consumer JVM exited with status " + consumer.exitValue() + ": "
                    + String.join("; ", lines));
            }
        }

        /** @return p50, p99, p99.9 of the messages since the last report */
        private double[] report(final int expected) throws InterruptedException {
            toConsumer.println("report");
            final String line = lines.poll(STOP_MILLIS, TimeUnit.MILLISECONDS);
            checkConsumer();
            if (line == null) {
                throw new IllegalStateException("the consumer JVM did not report in " + STOP_MILLIS / 1000 + " s");
            }
            final String[] f = line.split(" ");
            if (f.length != 4 || Long.parseLong(f[3]) != expected) {
                throw new IllegalStateException("the consumer JVM reported '" + line + "' for " + expected + " messages");
            }
            return new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])};
        }

        @Override
        public double[] trial(final long budgetNanos) throws Exception {
            final double[] figures = new double[8];
            final long lowCpu0 = cpuNanos(consumer.pid());
            final long lowT0 = System.nanoTime();
            send(phases.low(), LOW_RATE);
            figures[6] = cpuPercent(lowCpu0, lowT0);
            System.arraycopy(report(phases.low()), 0, figures, 0, 3);
            send(phases.high(), HIGH_RATE);
            System.arraycopy(report(phases.high()), 0, figures, 3, 3);
            final long c0 = cpuNanos(consumer.pid());
            final long t0 = System.nanoTime();
            Thread.sleep(phases.idleMillis());
            figures[7] = cpuPercent(c0, t0);
            return figures;
        }

        /** @return the consumer's CPU use since {@code cpu0} at {@code t0}, as a percentage of one CPU */
        private double cpuPercent(final long cpu0, final long t0) throws IOException {
            final long cpu1 = cpuNanos(consumer.pid());
            return 100.0 * Math.max(0, cpu1 - cpu0) / (System.nanoTime() - t0);
        }

        /** Both JVMs compile their loops on a burst at the high rate, then one whole run. */
        @Override
        public void warmUp(final long budgetNanos) throws Exception {
            send(phases.warmUp(), HIGH_RATE);
            report(phases.warmUp());
            trial(budgetNanos);
        }

        @Override
        public void close() {
            try {
                toConsumer.close();
                consumer.destroyForcibly();
                consumer.waitFor(STOP_MILLIS, TimeUnit.MILLISECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                file.close();
                try {
                    SyncFile.unlink(file.path());
                } catch (final IOException ignored) {
                    // removed after the start already
                }
            }
        }

        /** @return the consumer JVM, for tests */
        ProcessHandle consumer() {
            return consumer.toHandle();
        }
    }

    /**
     * @param pid a process
     * @return the CPU time all its threads have had, in nanoseconds
     * @throws IOException when {@code /proc} cannot tell
     */
    static long cpuNanos(final long pid) throws IOException {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (final Path t : tasks) {
                try {
                    sum += Long.parseLong(Files.readString(t.resolve("schedstat")).trim().split(" ")[0]);
                } catch (final IOException e) {
                    // a thread that ended meanwhile; its time is gone from the sum for both reads alike
                }
            }
        }
        return sum;
    }
}
