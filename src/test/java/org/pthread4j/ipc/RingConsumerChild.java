package org.pthread4j.ipc;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.pthread4j.memory.Block;

import java.nio.file.Path;

/**
 * A consumer JVM: reads {@code count} longs 0, 1, 2, ... from the ring buffer in slot "ring" of
 * the file, sleeping on the doorbell "bell" with a {@link FutexIdleStrategy} while it is empty.
 * Prints {@code ready}, then {@code got <count> sleeps <n>}, or {@code bad <value> at <i>}.
 */
public final class RingConsumerChild {
    /** Capacity of the test ring buffers. */
    public static final int CAPACITY = 4096;

    private RingConsumerChild() {
    }

    /** @param args file, count */
    public static void main(final String[] args) throws Exception {
        final long count = Long.parseLong(args[1]);
        try (SyncFile f = SyncFile.open(Path.of(args[0]))) {
            final OneToOneRingBuffer ring = ring(f);
            final FutexIdleStrategy idle = new FutexIdleStrategy(f.doorbell("bell"));
            System.out.println("ready");
            final long[] next = {0};
            final boolean[] bad = {false};
            while (next[0] < count && !bad[0]) {
                final int n = ring.read((type, buffer, index, length) -> {
                    final long v = buffer.getLong(index);
                    if (v != next[0]) {
                        System.out.println("bad " + v + " at " + next[0]);
                        bad[0] = true;
                    }
                    next[0]++;
                });
                idle.idle(n);
            }
            idle.reset();
            System.out.println("got " + next[0] + " sleeps " + idle.sleeps());
        }
    }

    /** @return the ring buffer in slot "ring" of the file */
    public static OneToOneRingBuffer ring(final SyncFile f) {
        final int size = CAPACITY + RingBufferDescriptor.TRAILER_LENGTH;
        final Block b = f.slot("ring", SlotType.RAW, size);
        return new OneToOneRingBuffer(new UnsafeBuffer(b.address(0), size));
    }
}
