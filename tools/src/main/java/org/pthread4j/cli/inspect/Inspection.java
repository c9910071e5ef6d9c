package org.pthread4j.cli.inspect;

import org.pthread4j.cli.fs.Problems;
import org.pthread4j.cli.fs.RegularFile;
import org.pthread4j.ipc.SlotInfo;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.ipc.SyncFileFormatException;
import org.pthread4j.ipc.SyncFileInspector;
import org.pthread4j.ipc.SyncFileLayout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One look at a sync file: its owner, group and mode, its header and slots as
 * {@link SyncFileInspector} reads them (no lock taken, nothing written), and the threads of any
 * process asleep on its words ({@link ProcScan}).
 *
 * @param file     the file as opened: owner, group, mode, device and inode
 * @param report   the header and the slots
 * @param sleepers the threads asleep on a slot's words, by slot name (slots nobody sleeps on are absent)
 * @param entries  the threads asleep on a directory entry being created, by entry index
 * @param closed   the processes the scan could not look into
 */
public record Inspection(RegularFile file, SyncFileInspector.Report report, Map<String, List<ProcScan.Sleeper>> sleepers,
                         Map<Integer, List<ProcScan.Sleeper>> entries, List<ProcScan.Closed> closed) {
    /** A file that could not be inspected: the message is one line, names the file and says why. */
    public static final class Failure extends IOException {
        private static final long serialVersionUID = 1L;

        Failure(final String message, final Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Resolves a name as {@code inspect} does: a path, or a bare name that does not exist in the
     * working directory is looked up in {@code /dev/shm} (and stays relative when it is not there
     * either, so the error names both).
     *
     * @param name the argument
     * @return the path to open
     */
    public static Path resolve(final String name) {
        final Path path = Path.of(name);
        if (!name.contains("/") && !Files.exists(path)) {
            try {
                final Path shm = SyncFile.shmPath(name);
                return Files.exists(shm) ? shm : path;
            } catch (final IllegalArgumentException e) {
                return path;
            }
        }
        return path;
    }

    /**
     * Inspects a file.
     *
     * @param path the file
     * @param scan how to find sleeping threads, or {@code null} to skip it
     * @return the inspection
     * @throws Failure when the file cannot be opened or is not a valid sync file
     */
    public static Inspection of(final Path path, final ProcScan scan) throws Failure {
        final Path abs = path.toAbsolutePath();
        try (RegularFile f = RegularFile.open(abs)) {
            final SyncFileInspector.Report r = SyncFileInspector.inspect(abs, f.channel());
            final Map<String, List<ProcScan.Sleeper>> bySlot = new LinkedHashMap<>();
            final Map<Integer, List<ProcScan.Sleeper>> byEntry = new LinkedHashMap<>();
            List<ProcScan.Closed> closed = List.of();
            if (scan != null) {
                final ProcScan.Result found = scan.scan(f.device(), f.inode());
                closed = found.closed();
                for (final ProcScan.Sleeper s : found.sleepers()) {
                    final SlotInfo slot = slotAt(r, s.offset());
                    if (slot != null) {
                        bySlot.computeIfAbsent(slot.name(), k -> new ArrayList<>()).add(s);
                    } else if (s.offset() >= SyncFileLayout.HEADER_SIZE && s.offset() < r.header().dataStart()) {
                        byEntry.computeIfAbsent((int) ((s.offset() - SyncFileLayout.HEADER_SIZE) / SyncFileLayout.ENTRY_SIZE),
                            k -> new ArrayList<>()).add(s);
                    }
                }
            }
            return new Inspection(f, r, bySlot, byEntry, closed);
        } catch (final SyncFileFormatException e) {
            throw new Failure(e.getMessage(), e);
        } catch (final IOException e) {
            final String words = Problems.words(e);
            if (words.equals("no such file") && !path.isAbsolute() && path.getNameCount() == 1) {
                throw new Failure(abs + ": no such file (nor " + path + " in " + SyncFile.DEFAULT_DIRECTORY + ")", e);
            }
            throw new Failure(abs + ": " + words, e);
        }
    }

    private static SlotInfo slotAt(final SyncFileInspector.Report r, final long offset) {
        for (final SyncFileInspector.SlotReport s : r.slots()) {
            final SlotInfo i = s.info();
            if (offset >= i.offset() && offset < i.offset() + i.size()) {
                return i;
            }
        }
        return null;
    }

    /**
     * @param slot a slot's name
     * @return the threads asleep on its words
     */
    public List<ProcScan.Sleeper> sleepersOf(final String slot) {
        return sleepers.getOrDefault(slot, List.of());
    }
}
