package org.pthread4j.cli.bench;

import java.util.List;

/**
 * A benchmark of {@code ./pthread4j bench}: a name to select it on the command line, and the
 * groups it measures under the given settings. A new workload is one class implementing this
 * interface plus one line in {@link org.pthread4j.cli.workload.Workloads}.
 */
public interface Workload {
    /** @return the name on the command line, lower case, e.g. {@code "futex"} */
    String name();

    /** @return a one-line description: what it measures and which seed it follows */
    String description();

    /**
     * Plans the groups to measure. Planning must be cheap: setting anything up belongs in a
     * {@link Case.Opener}. A case that cannot run on this machine is returned as
     * {@link Case#skipped}, so the table says why.
     *
     * @param settings the run's settings (quick or full, thread counts)
     * @return the groups, in the order to measure and print them
     */
    List<Group> plan(Settings settings);
}
