package org.pthread4j;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fair mutex configurations the fair jcstress tests rotate through, one per state: every
 * kind on each private backend (parking, linux, linux-noprivate) and process-shared. The index
 * is part of each result, so a forbidden outcome names its configuration.
 */
final class FairStressSupport {
    /**
     * By index: kind + 3 * place, the places being parking, linux, linux-noprivate and
     * process-shared; the kinds NORMAL, RECURSIVE, ERRORCHECK.
     */
    static final List<MutexAttr> CONFIGS = configs();
    /** The NORMAL ones (any thread may unlock): indexes 0, 3, 6, 9. */
    static final List<MutexAttr> NORMAL = List.of(CONFIGS.get(0), CONFIGS.get(3), CONFIGS.get(6), CONFIGS.get(9));

    private static final AtomicInteger NEXT = new AtomicInteger();

    private FairStressSupport() {
    }

    private static List<MutexAttr> configs() {
        final List<MutexAttr> c = new ArrayList<>();
        for (final Futex f : List.of(Futexes.parking(), Futexes.linux(), Futexes.linuxNoPrivate())) {
            for (int kind = 0; kind < 3; kind++) {
                c.add(MutexAttr.builder().type(kind).fair(true).futex(f).build());
            }
        }
        for (int kind = 0; kind < 3; kind++) {
            c.add(MutexAttr.builder().type(kind).fair(true).pshared(true).build());
        }
        return List.copyOf(c);
    }

    /** @return the next configuration index of {@code list}, round robin */
    static int next(final List<MutexAttr> list) {
        return Math.floorMod(NEXT.getAndIncrement(), list.size());
    }

    /**
     * Whether a fair mutex's words are at rest: free, no ticket outstanding, nobody counted, the
     * skip map clear. The arbiter hands the block back only then.
     *
     * @param m the state's mutex
     * @return 0 when at rest (the block is recycled), 1 otherwise (dropped)
     */
    static int rest(final Mutex m) {
        final org.pthread4j.memory.Block b = m.block();
        boolean ok = m.state() == Mutex.State.FREE && m.waiterCount() == 0
            && b.get(MutexLayout.TICKET) == b.get(MutexLayout.SERVING);
        for (int w = 0; w < 4; w++) {
            ok &= b.get(MutexLayout.SKIP + 4L * w) == 0;
        }
        if (!ok) {
            return 1;
        }
        StressBlocks.give(b);
        return 0;
    }
}
