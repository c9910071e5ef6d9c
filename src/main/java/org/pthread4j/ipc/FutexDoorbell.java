package org.pthread4j.ipc;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;

import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A doorbell that producers ring after publishing work and that idle consumers sleep on: an
 * eventcount on two 32-bit words, for the consumers of an Agrona ring buffer (or any queue) in
 * shared memory who would rather sleep than spin when it is empty. The consumer side is
 * {@link FutexIdleStrategy}.
 *
 * <pre>
 *   offset 0  seq       bumped by a ring that saw sleepers; the futex word consumers sleep on
 *   offset 4  sleepers  consumers registered to sleep
 * </pre>
 *
 * <p><b>Why no wake-up is lost.</b> A consumer registers ({@code sleepers + 1}, a full barrier),
 * reads {@code seq}, polls its queue once more, and only then sleeps while {@code seq} still
 * holds the value it read. A producer publishes, issues a full fence, and reads
 * {@code sleepers}: if it is zero, no consumer registered before the fence, so every consumer
 * that registers later will see the published work in the poll that follows its registration;
 * if it is not zero, the producer bumps {@code seq} and wakes, and a consumer that read
 * {@code seq} before the bump returns from its wait at once. The fence matters: Agrona
 * publishes a record with a release store, which alone may be reordered with a later load.
 *
 * <p>A ring with no sleeper costs a fence and a load, no system call. A consumer that is killed
 * while registered leaves {@code sleepers} above zero: producers then make one futex wake per
 * ring, which is slower but still correct; {@code inspect} shows the count.
 *
 * <p>In a mapped file the words are process-shared and use {@link Futexes#shared()}; in private
 * memory they use {@link Futexes#defaultPrivate()}.
 */
public final class FutexDoorbell {
    /** Size of a doorbell in bytes. */
    public static final int SIZE = 8;
    /** Offset of the sequence word, the futex word. */
    public static final int SEQ_OFFSET = 0;
    /** Offset of the sleeper count. */
    public static final int SLEEPERS_OFFSET = 4;

    private final Block block;
    private final Futex futex;
    private final boolean priv;

    /**
     * A view of the doorbell in {@code block}, which must be zeroed on first use (a new slot of a
     * {@link SyncFile} and fresh memory are).
     *
     * @param block at least {@value #SIZE} bytes, 4-byte aligned
     * @throws IllegalArgumentException when the block is too small
     */
    public FutexDoorbell(final Block block) {
        Objects.requireNonNull(block, "block");
        if (block.size() < SIZE) {
            throw new IllegalArgumentException("a doorbell needs " + SIZE + " bytes, the block has " + block.size());
        }
        this.block = block;
        this.priv = !block.memory().isMapped();
        this.futex = priv ? Futexes.defaultPrivate() : Futexes.shared();
    }

    /**
     * Tells sleeping consumers that there is work. Call it after publishing.
     *
     * <p>Memory effects: actions before a ring happen-before the actions of a consumer after the
     * idle call that observed it.
     *
     * @return how many consumers were woken (0 when none slept, with no system call)
     */
    public int ring() {
        VarHandle.fullFence();
        if (block.get(SLEEPERS_OFFSET) == 0) {
            return 0;
        }
        block.getAndAdd(SEQ_OFFSET, 1);
        final int r = futex.wake(block.segment(), SEQ_OFFSET, -1, priv);
        return Math.max(r, 0);
    }

    /** {@return the sequence word} */
    public int seq() {
        return block.get(SEQ_OFFSET);
    }

    /** {@return consumers registered to sleep} */
    public int sleepers() {
        return block.get(SLEEPERS_OFFSET);
    }

    /** {@return the block the doorbell lives in} */
    public Block block() {
        return block;
    }

    Futex futex() {
        return futex;
    }

    boolean priv() {
        return priv;
    }

    @Override
    public String toString() {
        return "FutexDoorbell[seq=" + seq() + ", sleepers=" + sleepers() + "]";
    }
}
