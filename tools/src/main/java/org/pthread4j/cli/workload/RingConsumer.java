package org.pthread4j.cli.workload;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.pthread4j.ipc.FutexDoorbell;
import org.pthread4j.ipc.FutexIdleStrategy;
import org.pthread4j.ipc.SlotType;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.memory.Block;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The consumer JVM of {@code bench ring}: reads an Agrona {@link OneToOneRingBuffer} that lives
 * in a raw slot of a sync file, idling with the strategy it is told, and records each message's
 * latency (its arrival time less the send time the producer wrote in it; both read
 * {@link System#nanoTime()}, the machine's monotonic clock, which every process shares) in an
 * HdrHistogram.
 *
 * <p>As a program ({@code RingConsumer FILE STRATEGY}) it prints {@code ready} once it consumes,
 * then answers each {@code report} line on its standard input with
 * {@code p50 p99 p99.9 count} (nanoseconds) of the messages since the previous report. It halts
 * when its standard input ends, so it never outlives the bench that started it.
 */
public final class RingConsumer {
    /** The ring's slot. */
    static final String RING = "ring";
    /** The doorbell's slot. */
    static final String BELL = "ring.bell";
    /** The raw slot whose first word, set non-zero, tells the consumer to stop. */
    static final String STOP = "ring.stop";
    /** The ring's data capacity: a power of two. */
    static final int CAPACITY = 64 * 1024;
    /** Message type of a timestamp message. */
    static final int MSG = 1;
    /** The strategies, by the name the bench passes. */
    static final List<String> STRATEGIES = List.of("busy-spin", "futex", "futex-fixed", "backoff", "sleeping");
    /** Exit status when the bench's end of standard input closed. */
    static final int ORPHANED = 3;

    private RingConsumer() {
    }

    /** {@return the ring's slot size: capacity and Agrona's trailer} */
    static int slotSize() {
        return CAPACITY + RingBufferDescriptor.TRAILER_LENGTH;
    }

    /**
     * @param block the ring's slot
     * @return the ring over it
     */
    static OneToOneRingBuffer ring(final Block block) {
        return new OneToOneRingBuffer(new UnsafeBuffer(block.address(0), (int) block.size()));
    }

    /**
     * @param name a strategy's name
     * @param bell the doorbell producers ring
     * @return the idle strategy
     */
    static IdleStrategy strategy(final String name, final FutexDoorbell bell) {
        return switch (name) {
            case "busy-spin" -> new BusySpinIdleStrategy();
            case "futex" -> new FutexIdleStrategy(bell);
            case "futex-fixed" -> new FutexIdleStrategy(bell, FutexIdleStrategy.DEFAULT_SPINS, FutexIdleStrategy.DEFAULT_YIELDS);
            case "backoff" -> new BackoffIdleStrategy();
            case "sleeping" -> new SleepingIdleStrategy();
            default -> throw new IllegalArgumentException("unknown idle strategy '" + name + "' (known: " + STRATEGIES + ")");
        };
    }

    /**
     * The consumer JVM.
     *
     * @param args the sync file and the strategy's name
     */
    public static void main(final String[] args) {
        if (args.length != 2) {
            System.err.println("usage: RingConsumer FILE " + String.join("|", STRATEGIES));
            System.exit(2);
        }
        try (SyncFile f = SyncFile.open(Path.of(args[0]))) {
            final OneToOneRingBuffer ring = ring(f.slot(RING, SlotType.RAW, slotSize()));
            final FutexDoorbell bell = f.doorbell(BELL);
            final Block stop = f.slot(STOP, SlotType.RAW, 8);
            final IdleStrategy idle = strategy(args[1], bell);
            final Recorder recorder = new Recorder(3);
            final MessageHandler handler = (type, buffer, index, length) ->
                recorder.recordValue(Math.max(0, System.nanoTime() - buffer.getLong(index)));
            final Thread consumer = Thread.ofPlatform().name("ring-consumer").start(() -> {
                while (stop.get(0) == 0) {
                    idle.idle(ring.read(handler, 64));
                }
            });
            System.out.println("ready");
            System.out.flush();
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("report")) {
                    final Histogram h = recorder.getIntervalHistogram();
                    System.out.printf(Locale.ROOT, "%d %d %d %d%n", h.getValueAtPercentile(50), h.getValueAtPercentile(99),
                        h.getValueAtPercentile(99.9), h.getTotalCount());
                    System.out.flush();
                }
            }
            stop.set(0, 1);
            bell.ring();
            consumer.join(10_000);
        } catch (final Exception | Error e) {
            System.out.println("error " + e);
            System.out.flush();
            e.printStackTrace();
            System.exit(1);
        }
        Runtime.getRuntime().halt(ORPHANED);
    }
}
