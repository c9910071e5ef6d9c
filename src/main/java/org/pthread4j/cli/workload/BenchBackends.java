package org.pthread4j.cli.workload;

import org.pthread4j.cli.bench.Case;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.Syscall;

import java.util.ArrayList;
import java.util.List;

/** The futex backends the workloads compare, with the kernel ones only where they exist. */
final class BenchBackends {
    /** Why the kernel backends are skipped elsewhere. */
    static final String NO_KERNEL = "needs Linux on x86_64 or aarch64";

    private BenchBackends() {
    }

    /** @return whether the kernel backends can run here */
    static boolean kernel() {
        return Syscall.AVAILABLE;
    }

    /** @return the names of every backend for private words: parking, linux, linux-noprivate */
    static List<String> privateNames() {
        return List.of("parking", "linux", "linux-noprivate");
    }

    /**
     * @param name a backend name
     * @return whether it needs the kernel
     */
    static boolean needsKernel(final String name) {
        return !name.startsWith("parking");
    }

    /**
     * A case per private backend, or a skipped case where the backend cannot run.
     *
     * @param impl the impl column
     * @param make the case for a backend
     * @return the cases
     */
    static List<Case> perPrivateBackend(final String impl, final java.util.function.Function<Futex, Case.Opener> make) {
        final List<Case> cases = new ArrayList<>();
        for (final String name : privateNames()) {
            if (needsKernel(name) && !kernel()) {
                cases.add(Case.skipped(impl, name, NO_KERNEL));
            } else {
                cases.add(Case.of(impl, name, () -> make.apply(Futexes.byName(name)).open()));
            }
        }
        return cases;
    }
}
