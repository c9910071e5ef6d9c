package org.pthread4j.ipc;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.pthread4j.ipc.SyncFileLayout.*;

/**
 * Reads a sync file for {@code ./pthread4j inspect}: the header and the state of every slot,
 * from a read-only mapping, without taking any lock and without writing a byte. The file is
 * validated exactly as {@link SyncFile#open} validates it, so a bad file is refused with the
 * same {@link SyncFileFormatException}. Slot states are read word by word while other processes
 * may be changing them: each word is exact at the moment it was read, the set of them is not
 * one instant's.
 */
public final class SyncFileInspector {
    /** Words of a raw slot shown at most. */
    public static final int MAX_RAW_WORDS = 16;

    /**
     * What an inspection found.
     *
     * @param path       the file
     * @param header     its header
     * @param slots      every published slot with its state
     * @param pending    the entry being created, if any
     * @param nextOffset where the next slot's block would go
     */
    public record Report(Path path, SyncFileHeader header, List<SlotReport> slots, Pending pending, long nextOffset) {
    }

    /**
     * One slot's state.
     *
     * @param info    the directory entry
     * @param words   the block's first words, as read
     * @param summary a one-line description of the state
     * @param fields  the state as named values (numbers, strings, booleans), in display order
     */
    public record SlotReport(SlotInfo info, int[] words, String summary, Map<String, Object> fields) {
    }

    /**
     * A directory entry being created.
     *
     * @param index  its index
     * @param pid    the claiming process
     * @param status whether that process runs
     */
    public record Pending(int index, int pid, Liveness.Status status) {
    }

    private SyncFileInspector() {
    }

    /**
     * Inspects a file.
     *
     * @param path the file
     * @return what it holds
     * @throws SyncFileFormatException when it is not a valid sync file (the message of
     *                                 {@link SyncFile#open})
     * @throws IOException             when it cannot be read
     */
    public static Report inspect(final Path path) throws IOException {
        final Path abs = path.toAbsolutePath();
        try (FileChannel ch = FileChannel.open(abs, StandardOpenOption.READ,
            java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return inspect(abs, ch);
        }
    }

    /**
     * Inspects a file through a channel the caller opened, for a caller that must choose how
     * the file is opened (a tool that refuses to block on a FIFO opens it itself). The channel
     * is read and mapped read-only, and left open.
     *
     * @param path    the file's name, for the report and the messages
     * @param channel the file, open for reading
     * @return what it holds
     * @throws SyncFileFormatException when it is not a valid sync file (the message of
     *                                 {@link SyncFile#open})
     * @throws IOException             when it cannot be read
     */
    public static Report inspect(final Path path, final FileChannel channel) throws IOException {
        final Path abs = path.toAbsolutePath();
        try (Arena arena = Arena.ofConfined()) {
            final long length = Directory.precheck(abs, channel);
            final MemorySegment seg = channel.map(FileChannel.MapMode.READ_ONLY, 0, length, arena);
            final Directory dir = Directory.load(abs, seg, length);
            final List<SlotReport> slots = new ArrayList<>();
            for (final SlotInfo s : dir.slots()) {
                slots.add(describe(s, seg));
            }
            Pending pending = null;
            final int next = dir.readyCount();
            if (next < dir.header().capacity()) {
                final int state = dir.state(next);
                if (isCreating(state)) {
                    pending = new Pending(next, creatingPid(state), Liveness.status(creatingPid(state)));
                }
            }
            return new Report(abs, dir.header(), List.copyOf(slots), pending, dir.nextOffset());
        }
    }

    private static SlotReport describe(final SlotInfo s, final MemorySegment seg) {
        final int n = s.type() == SlotType.RAW ? Math.min(s.size() / 4, MAX_RAW_WORDS) : s.size() / 4;
        final int[] words = new int[n];
        for (int k = 0; k < n; k++) {
            words[k] = (int) org.pthread4j.memory.Block.INT.getVolatile(seg, s.offset() + 4L * k);
        }
        final SlotStates.State st = SlotStates.decode(s.type(), words);
        if (s.type() == SlotType.RAW && s.size() / 4 > n) {
            final Map<String, Object> fields = new LinkedHashMap<>(st.fields());
            fields.put("words", fields.get("words") + " ...");
            return new SlotReport(s, words, st.summary() + " ...", fields);
        }
        return new SlotReport(s, words, st.summary(), st.fields());
    }

    /**
     * {@return it as text for a person}
     *
     * @param r a report
     */
    public static String text(final Report r) {
        final SyncFileHeader h = r.header();
        final StringBuilder sb = new StringBuilder();
        sb.append(r.path()).append(": pthread4j sync file, format version ").append(h.version()).append('\n');
        sb.append("  size ").append(h.totalSize()).append(" bytes, data area [").append(h.dataStart()).append(", ")
            .append(h.totalSize()).append("), next block at ").append(r.nextOffset()).append('\n');
        sb.append("  created ").append(Instant.ofEpochMilli(h.createdMillis())).append(" by pid ").append(h.creatorPid())
            .append(" (").append(Liveness.status(h.creatorPid()).name().toLowerCase(java.util.Locale.ROOT)).append(")\n");
        sb.append("  slots ").append(r.slots().size()).append(" of ").append(h.capacity()).append(" used\n");
        if (r.pending() != null) {
            sb.append("  slot ").append(r.pending().index()).append(" is being created by pid ").append(r.pending().pid())
                .append(" (").append(r.pending().status().name().toLowerCase(java.util.Locale.ROOT)).append(")\n");
        }
        int width = 4;
        for (final SlotReport s : r.slots()) {
            width = Math.max(width, s.info().name().length());
        }
        for (final SlotReport s : r.slots()) {
            final SlotInfo i = s.info();
            sb.append(String.format("  %3d  %-" + width + "s  %-7s  @%-8d %4d B  %s%n", i.index(), i.name(),
                i.type().label(), i.offset(), i.size(), s.summary()));
        }
        return sb.toString();
    }

    /**
     * {@return it as one JSON object}
     *
     * @param r a report
     */
    public static String json(final Report r) {
        final SyncFileHeader h = r.header();
        final StringBuilder sb = new StringBuilder();
        sb.append("{\"path\":").append(quote(r.path().toString()));
        sb.append(",\"version\":").append(h.version());
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
                .append(",\"alive\":").append(r.pending().status() != Liveness.Status.DEAD).append('}');
        }
        sb.append(",\"slots\":[");
        boolean first = true;
        for (final SlotReport s : r.slots()) {
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
            sb.append("}}");
        }
        sb.append("]}");
        return sb.toString();
    }

    private static String value(final Object v) {
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return v == null ? "null" : quote(v.toString());
    }

    /**
     * {@return it as a JSON string literal}
     *
     * @param s a string
     */
    public static String quote(final String s) {
        final StringBuilder sb = new StringBuilder("\"");
        for (int k = 0; k < s.length(); k++) {
            final char c = s.charAt(k);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
