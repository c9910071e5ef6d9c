package org.pthread4j;

import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

/**
 * musl's {@code __wait} ({@code src/thread/__wait.c}): spin, then sleep until a word no longer
 * holds a value; untimed and not interruptible. Used by the once control and the barriers.
 */
final class MuslWait {
    private MuslWait() {
    }

    /**
     * Returns once the word at {@code off} has been seen to differ from {@code val}.
     *
     * <p>Spins up to {@value Tuning#MUSL_SPINS} times while no waiter is registered (a newcomer does not
     * spin past queued sleepers), then counts itself in {@code waitersOff} (when given) and
     * sleeps on the word while it holds {@code val}.
     *
     * @param futex      the backend
     * @param seg        the segment holding both words
     * @param off        the word's offset
     * @param waitersOff the waiter counter's offset, or {@code -1} for none
     * @param val        the value to wait out
     * @param priv       whether the word is process-private
     */
    static void await(final Futex futex, final MemorySegment seg, final long off, final long waitersOff,
                      final int val, final boolean priv) {
        for (int spins = Tuning.MUSL_SPINS; spins > 0 && (waitersOff < 0 || get(seg, waitersOff) == 0); spins--) {
            if (get(seg, off) != val) {
                return;
            }
            Thread.onSpinWait();
        }
        if (waitersOff >= 0) {
            Block.INT.getAndAdd(seg, waitersOff, 1);
        }
        try {
            while (get(seg, off) == val) {
                futex.wait(seg, off, val, priv);
            }
        } finally {
            if (waitersOff >= 0) {
                Block.INT.getAndAdd(seg, waitersOff, -1);
            }
        }
    }

    static int get(final MemorySegment seg, final long off) {
        return (int) Block.INT.getVolatile(seg, off);
    }
}
