package org.pthread4j.cli.inspect;

import org.pthread4j.ipc.Liveness;
import org.pthread4j.ipc.SlotInfo;
import org.pthread4j.ipc.SyncFileHeader;
import org.pthread4j.ipc.SyncFileInspector;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.pthread4j.ipc.SyncFileInspector.quote;

/** {@code inspect}'s output: text for a person, one JSON object per file for a machine. */
public final class Render {
    /** Processes named per reason in the text before "and N more". */
    private static final int CLOSED_SHOWN = 5;

    private Render() {
    }

    /**
     * @param in an inspection
     * @return its text, several lines
     */
    public static String text(final Inspection in) {
        final SyncFileInspector.Report r = in.report();
        final SyncFileHeader h = r.header();
        final StringBuilder sb = new StringBuilder();
        sb.append(r.path()).append(": pthread4j sync file, format version ").append(h.version()).append('\n');
        sb.append("  owner ").append(in.file().owner()).append(", group ").append(in.file().group())
            .append(String.format(Locale.ROOT, ", mode %04o (%s)", in.file().mode(), in.file().permissions())).append('\n');
        if (in.file().writableByOthers()) {
            sb.append("  WARNING: writable by ").append(in.file().otherWriters())
                .append(", not only its owner: any of their processes can change the lock words\n");
        }
        sb.append("  size ").append(h.totalSize()).append(" bytes, data area [").append(h.dataStart()).append(", ")
            .append(h.totalSize()).append("), next block at ").append(r.nextOffset()).append('\n');
        sb.append("  created ").append(Instant.ofEpochMilli(h.createdMillis())).append(" by pid ").append(h.creatorPid())
            .append(" (").append(Liveness.status(h.creatorPid()).name().toLowerCase(Locale.ROOT)).append(")\n");
        sb.append("  slots ").append(r.slots().size()).append(" of ").append(h.capacity()).append(" used\n");
        if (r.pending() != null) {
            sb.append("  slot ").append(r.pending().index()).append(" is being created by pid ").append(r.pending().pid())
                .append(" (").append(r.pending().status().name().toLowerCase(Locale.ROOT)).append(")\n");
            for (final ProcScan.Sleeper s : in.entries().getOrDefault(r.pending().index(), List.of())) {
                sb.append("       waiting for it: ").append(s.who()).append('\n');
            }
        }
        int width = 4;
        for (final SyncFileInspector.SlotReport s : r.slots()) {
            width = Math.max(width, s.info().name().length());
        }
        for (final SyncFileInspector.SlotReport s : r.slots()) {
            final SlotInfo i = s.info();
            sb.append(String.format(Locale.ROOT, "  %3d  %-" + width + "s  %-7s  @%-8d %4d B  %s%n", i.index(), i.name(),
                i.type().label(), i.offset(), i.size(), s.summary()));
            for (final ProcScan.Sleeper t : in.sleepersOf(i.name())) {
                sb.append("       asleep on it: ").append(t.who()).append(word(i, t)).append('\n');
            }
        }
        sb.append(closed(in.closed()));
        return sb.toString();
    }

    private static String word(final SlotInfo slot, final ProcScan.Sleeper t) {
        return ", word at +" + (t.offset() - slot.offset());
    }

    /**
     * @param closed processes a scan could not look into
     * @return a line per reason naming them, or nothing
     */
    static String closed(final List<ProcScan.Closed> closed) {
        final Map<String, List<ProcScan.Closed>> byReason = new LinkedHashMap<>();
        for (final ProcScan.Closed c : closed) {
            byReason.computeIfAbsent(c.reason(), k -> new ArrayList<>()).add(c);
        }
        final StringBuilder sb = new StringBuilder();
        for (final Map.Entry<String, List<ProcScan.Closed>> e : byReason.entrySet()) {
            final List<ProcScan.Closed> l = e.getValue();
            sb.append("  could not look into ").append(l.size()).append(l.size() == 1 ? " process" : " processes")
                .append(" for sleepers: ");
            for (int i = 0; i < Math.min(l.size(), CLOSED_SHOWN); i++) {
                sb.append(i == 0 ? "" : ", ").append("pid ").append(l.get(i).pid()).append(" (").append(l.get(i).process())
                    .append(')');
            }
            if (l.size() > CLOSED_SHOWN) {
                sb.append(" and ").append(l.size() - CLOSED_SHOWN).append(" more");
            }
            sb.append(": ").append(e.getKey()).append('\n');
        }
        return sb.toString();
    }

    /**
     * @param in an inspection
     * @return one JSON object on one line
     */
    public static String json(final Inspection in) {
        final SyncFileInspector.Report r = in.report();
        final SyncFileHeader h = r.header();
        final StringBuilder sb = new StringBuilder();
        sb.append("{\"path\":").append(quote(r.path().toString()));
        sb.append(",\"version\":").append(h.version());
        sb.append(",\"owner\":").append(quote(in.file().owner()));
        sb.append(",\"group\":").append(quote(in.file().group()));
        sb.append(",\"mode\":").append(quote(String.format(Locale.ROOT, "%04o", in.file().mode())));
        sb.append(",\"writableByOthers\":").append(in.file().writableByOthers());
        sb.append(",\"size\":").append(h.totalSize());
        sb.append(",\"dataStart\":").append(h.dataStart());
        sb.append(",\"nextOffset\":").append(r.nextOffset());
        sb.append(",\"creatorPid\":").append(h.creatorPid());
        sb.append(",\"creatorAlive\":").append(Liveness.status(h.creatorPid()) != Liveness.Status.DEAD);
        sb.append(",\"created\":").append(quote(Instant.ofEpochMilli(h.createdMillis()).toString()));
        sb.append(",\"capacity\":").append(h.capacity());
        sb.append(",\"used\":").append(r.slots().size());
        if (r.pending() != null) {
            sb.append(",\"creating\":{\"index\":").append(r.pending().index()).append(",\"pid\":").append(r.pending().pid())
                .append(",\"alive\":").append(r.pending().status() != Liveness.Status.DEAD)
                .append(",\"asleep\":").append(sleepers(in.entries().getOrDefault(r.pending().index(), List.of()), 0))
                .append('}');
        }
        sb.append(",\"slots\":[");
        boolean first = true;
        for (final SyncFileInspector.SlotReport s : r.slots()) {
            final SlotInfo i = s.info();
            sb.append(first ? "" : ",");
            first = false;
            sb.append("{\"index\":").append(i.index()).append(",\"name\":").append(quote(i.name()))
                .append(",\"type\":").append(quote(i.type().label())).append(",\"offset\":").append(i.offset())
                .append(",\"size\":").append(i.size()).append(",\"creatorPid\":").append(i.creatorPid())
                .append(",\"state\":{");
            boolean f = true;
            for (final Map.Entry<String, Object> e : s.fields().entrySet()) {
                sb.append(f ? "" : ",").append(quote(e.getKey())).append(':').append(value(e.getValue()));
                f = false;
            }
            sb.append("},\"asleep\":").append(sleepers(in.sleepersOf(i.name()), i.offset())).append('}');
        }
        sb.append("],\"notLookedInto\":[");
        for (int k = 0; k < in.closed().size(); k++) {
            final ProcScan.Closed c = in.closed().get(k);
            sb.append(k == 0 ? "" : ",").append("{\"pid\":").append(c.pid()).append(",\"process\":")
                .append(quote(c.process())).append(",\"reason\":").append(quote(c.reason())).append('}');
        }
        return sb.append("]}").toString();
    }

    private static String sleepers(final List<ProcScan.Sleeper> list, final long base) {
        final StringBuilder sb = new StringBuilder("[");
        for (int k = 0; k < list.size(); k++) {
            final ProcScan.Sleeper t = list.get(k);
            sb.append(k == 0 ? "" : ",").append(thread(t, ",\"word\":" + (t.offset() - base)));
        }
        return sb.append(']').toString();
    }

    private static String thread(final ProcScan.Sleeper t, final String more) {
        return "{\"pid\":" + t.pid() + ",\"tid\":" + t.tid() + ",\"process\":" + quote(t.process()) + ",\"thread\":"
            + quote(t.thread()) + more + "}";
    }

    /**
     * @param cycles the deadlocks found
     * @return a text block: one paragraph per cycle, or a line saying there is none
     */
    public static String deadlocks(final List<List<Deadlocks.Step>> cycles) {
        if (cycles.isEmpty()) {
            return "no deadlock: no cycle of threads that hold a mutex and sleep waiting for another\n";
        }
        final StringBuilder sb = new StringBuilder();
        for (final List<Deadlocks.Step> c : cycles) {
            sb.append("DEADLOCK: ").append(c.size()).append(" threads wait for each other in a cycle:\n");
            for (final Deadlocks.Step s : c) {
                sb.append("  ").append(s).append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * @param cycles the deadlocks found
     * @return one JSON object on one line: {@code {"deadlocks":[[step, ...], ...]}}
     */
    public static String deadlocksJson(final List<List<Deadlocks.Step>> cycles) {
        final StringBuilder sb = new StringBuilder("{\"deadlocks\":[");
        for (int i = 0; i < cycles.size(); i++) {
            sb.append(i == 0 ? "[" : ",[");
            final List<Deadlocks.Step> c = cycles.get(i);
            for (int k = 0; k < c.size(); k++) {
                final Deadlocks.Step s = c.get(k);
                sb.append(k == 0 ? "" : ",").append(thread(s.thread(), ",\"holds\":" + mutex(s.holds())
                    + ",\"waitsFor\":" + mutex(s.waits())));
            }
            sb.append(']');
        }
        return sb.append("]}").toString();
    }

    private static String mutex(final Deadlocks.MutexRef m) {
        return "{\"file\":" + quote(m.file().toString()) + ",\"slot\":" + quote(m.name()) + "}";
    }

    private static String value(final Object v) {
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return v == null ? "null" : quote(v.toString());
    }
}
