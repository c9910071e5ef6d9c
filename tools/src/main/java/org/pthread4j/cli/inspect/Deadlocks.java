package org.pthread4j.cli.inspect;

import org.pthread4j.ipc.SlotType;
import org.pthread4j.ipc.SyncFileInspector;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Cycles of "holds A, waits for B" across processes and threads. A mutex that records its owner
 * (robust, errorcheck or recursive: its word holds the owner's thread id, as musl's does) gives
 * the edge from its owner; a thread asleep on a mutex's word ({@link ProcScan}) gives the edge
 * to it. A thread sleeps on one word at a time, so every thread has at most one edge out and a
 * cycle is found by following edges from each thread until a thread repeats.
 *
 * <p>The words and the sleepers are read one after the other while the threads go on, so a
 * cycle seen is a cycle of states each of which held when it was read; a real deadlock does not
 * change between two looks, which is why {@code inspect --deadlocks} looks twice.
 */
public final class Deadlocks {
    /**
     * A mutex of a file.
     *
     * @param file the file
     * @param name the slot's name
     */
    public record MutexRef(Path file, String name) {
        @Override
        public String toString() {
            return "'" + name + "' (" + file + ")";
        }
    }

    /**
     * One thread of a cycle.
     *
     * @param thread the thread
     * @param holds  the mutex it holds that the previous thread of the cycle waits for
     * @param waits  the mutex it waits for
     */
    public record Step(ProcScan.Sleeper thread, MutexRef holds, MutexRef waits) {
        @Override
        public String toString() {
            return thread.who() + " holds " + holds + ", waits for " + waits;
        }
    }

    private Deadlocks() {
    }

    /**
     * @param looks one inspection per file, taken together
     * @return every cycle, each once, starting at its lowest thread id
     */
    public static List<List<Step>> find(final List<Inspection> looks) {
        final Map<MutexRef, Integer> owner = new HashMap<>();
        final Map<Integer, MutexRef> waitsFor = new LinkedHashMap<>();
        final Map<Integer, ProcScan.Sleeper> who = new HashMap<>();
        for (final Inspection in : looks) {
            for (final SyncFileInspector.SlotReport s : in.report().slots()) {
                if (s.info().type() != SlotType.MUTEX) {
                    continue;
                }
                final MutexRef m = new MutexRef(in.report().path(), s.info().name());
                if (s.fields().get("owner") instanceof Integer tid && tid > 0) {
                    owner.put(m, tid);
                }
                for (final ProcScan.Sleeper t : in.sleepersOf(s.info().name())) {
                    waitsFor.put(t.tid(), m);
                    who.put(t.tid(), t);
                }
            }
        }
        final List<List<Step>> cycles = new ArrayList<>();
        final Set<Integer> done = new HashSet<>();
        for (final int start : waitsFor.keySet()) {
            final List<Integer> path = new ArrayList<>();
            Integer t = start;
            while (t != null && !done.contains(t) && !path.contains(t)) {
                path.add(t);
                final MutexRef m = waitsFor.get(t);
                t = m == null ? null : owner.get(m);
            }
            if (t != null && path.contains(t)) {
                cycles.add(cycle(path.subList(path.indexOf(t), path.size()), waitsFor, who));
            }
            done.addAll(path);
        }
        return cycles;
    }

    private static List<Step> cycle(final List<Integer> tids, final Map<Integer, MutexRef> waitsFor,
                                    final Map<Integer, ProcScan.Sleeper> who) {
        int first = 0;
        for (int i = 1; i < tids.size(); i++) {
            if (tids.get(i) < tids.get(first)) {
                first = i;
            }
        }
        final List<Step> steps = new ArrayList<>();
        for (int k = 0; k < tids.size(); k++) {
            final int i = (first + k) % tids.size();
            final int previous = tids.get((i + tids.size() - 1) % tids.size());
            steps.add(new Step(who.get(tids.get(i)), waitsFor.get(previous), waitsFor.get(tids.get(i))));
        }
        return steps;
    }
}
