package org.pthread4j.cli.workload;

import org.pthread4j.futex.Errno;
import org.pthread4j.internal.Syscall;

/**
 * The process's private futex hash ({@code prctl(PR_FUTEX_HASH)}, Linux 6.16+, seed 001): how
 * many hash slots the kernel uses for this process's private futexes, and setting that.
 * A set is process-wide and makes the size fixed (no more automatic growth with the thread
 * count); 0 would switch the process to the global hash for good, so this class never sets it.
 */
final class FutexHash {
    /** {@code PR_FUTEX_HASH} */
    static final int PR_FUTEX_HASH = 78;
    /** {@code PR_FUTEX_HASH_SET_SLOTS} */
    static final int SET_SLOTS = 1;
    /** {@code PR_FUTEX_HASH_GET_SLOTS} */
    static final int GET_SLOTS = 2;

    private FutexHash() {
    }

    /** @return the slot count (0 means the global hash), or a negated errno */
    static int slots() {
        return (int) Syscall.call(Syscall.SYS_PRCTL, PR_FUTEX_HASH, GET_SLOTS, 0, 0, 0, 0);
    }

    /**
     * @param slots a power of two
     * @throws IllegalStateException when the kernel refuses
     */
    static void setSlots(final int slots) {
        if (slots <= 0) {
            throw new IllegalArgumentException("slots must be positive (0 would select the global hash for good)");
        }
        final long r = Syscall.call(Syscall.SYS_PRCTL, PR_FUTEX_HASH, SET_SLOTS, slots, 0, 0, 0);
        if (r < 0) {
            throw new IllegalStateException("prctl(PR_FUTEX_HASH_SET_SLOTS, " + slots + ") failed: "
                + Errno.name((int) -r));
        }
    }

    /** @return why the private hash cannot be sized here, or {@code null} when it can */
    static String unsupportedReason() {
        if (!Syscall.AVAILABLE) {
            return BenchBackends.NO_KERNEL;
        }
        final int r = slots();
        if (r < 0) {
            return "this kernel has no PR_FUTEX_HASH (Linux 6.16+): " + Errno.name(-r);
        }
        if (r == 0) {
            return "this process uses the global futex hash";
        }
        return null;
    }
}
