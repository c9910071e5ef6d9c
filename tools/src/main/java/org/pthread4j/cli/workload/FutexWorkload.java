package org.pthread4j.cli.workload;

import org.pthread4j.futex.Errno;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code bench futex}: the futex layer itself, per backend.
 * <ul>
 * <li><b>swap round trip</b> (seed 003): two threads, each with its own word, hand control
 *     back and forth; once as wake then wait, once as the swap operation (one call on the
 *     parking backend; a wake and a wait on the kernel, which has no FUTEX_SWAP). Reference:
 *     the same round trip with {@code LockSupport.park/unpark}. The same three between two
 *     virtual threads (parking backend; the rows marked "virtual threads"), where the swap can
 *     hand the carrier to the woken thread. The C row is the seed's own test with raw
 *     {@code FUTEX_WAKE}/{@code FUTEX_WAIT}.</li>
 * <li><b>wake, no waiter</b>: what an unlock with nobody asleep would pay if it woke anyway:
 *     private and shared words. Reference: {@code LockSupport.unpark} of a thread that is not
 *     parked.</li>
 * </ul>
 */
public final class FutexWorkload implements Workload {
    /** Creates the workload. */
    public FutexWorkload() {
    }

    @Override
    public String name() {
        return "futex";
    }

    @Override
    public String description() {
        return "seed 003 swap test (wake+wait vs swap vs LockSupport, platform and virtual threads) and the cost of a "
            + "wake with no waiter, per backend";
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final List<Case> swap = new ArrayList<>();
        swap.add(Case.of("park/unpark", "LockSupport", () -> new PingPong.OnLockSupport(false)));
        swap.addAll(BenchBackends.perPrivateBackend("wake+wait", f -> () -> new PingPong.OnFutex(f, false, false)));
        swap.addAll(BenchBackends.perPrivateBackend("swap", f -> () -> new PingPong.OnFutex(f, true, false)));
        swap.add(Case.of("park/unpark, virtual threads", "LockSupport", () -> new PingPong.OnLockSupport(true)));
        swap.add(Case.of("wake+wait, virtual threads", "parking",
            () -> new PingPong.OnFutex(Futexes.parking(), false, true)));
        swap.add(Case.of("swap, virtual threads", "parking", () -> new PingPong.OnFutex(Futexes.parking(), true, true)));
        swap.add(CPrograms.of(settings.cCache(), "futex_swap", "wake+wait", "swap"));

        final List<Case> wake = new ArrayList<>();
        wake.add(Case.of("unpark, not parked", "LockSupport", () -> Fixture.of(FutexWorkload::unparkSelf)));
        wake.addAll(BenchBackends.perPrivateBackend("wake, private word", f -> () -> wakeNoWaiter(f, true)));
        if (BenchBackends.kernel()) {
            wake.add(Case.of("wake, shared word", "linux", () -> wakeNoWaiter(Futexes.linux(), false)));
        } else {
            wake.add(Case.skipped("wake, shared word", "linux", BenchBackends.NO_KERNEL));
        }
        wake.add(CPrograms.of(settings.cCache(), "futex_swap", "wake, private word", "wake"));

        return List.of(
            Group.of("swap round trip", Measure.time("swap round trip", "ns/round-trip"), 2, swap),
            Group.of("wake, no waiter", Measure.time("wake, no waiter", "ns/wake"), 1, wake));
    }

    private static double unparkSelf(final long budget) {
        final Thread self = Thread.currentThread();
        final long t0 = System.nanoTime();
        long count = 0;
        long elapsed;
        do {
            for (int i = 0; i < 256; i++) {
                LockSupport.unpark(self);
            }
            count += 256;
            elapsed = System.nanoTime() - t0;
        } while (elapsed < budget);
        return (double) elapsed / count;
    }

    private static Fixture wakeNoWaiter(final Futex futex, final boolean priv) {
        final Memory memory = Memory.allocate(64);
        final MemorySegment seg = memory.segment();
        return Fixture.of(budget -> {
            final long t0 = System.nanoTime();
            long count = 0;
            long elapsed;
            do {
                for (int i = 0; i < 256; i++) {
                    final int r = futex.wake(seg, 0, 1, priv);
                    if (r != 0) {
                        throw new IllegalStateException("wake with no waiter returned " + (r < 0 ? Errno.name(-r) : r));
                    }
                }
                count += 256;
                elapsed = System.nanoTime() - t0;
            } while (elapsed < budget);
            return (double) elapsed / count;
        }, memory);
    }
}
