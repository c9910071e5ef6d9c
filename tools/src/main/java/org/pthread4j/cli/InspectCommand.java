package org.pthread4j.cli;

import org.pthread4j.ipc.SyncFile;
import org.pthread4j.ipc.SyncFileFormatException;
import org.pthread4j.ipc.SyncFileInspector;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * {@code ./pthread4j inspect FILE [--json]}: prints a sync file's header and the state of every
 * slot, read without taking any lock. {@code FILE} is a path, or a bare name looked up in
 * {@code /dev/shm} when no such file exists in the working directory.
 *
 * <p>Exit status: 0 when the file was inspected, 1 when it is not a valid sync file or cannot
 * be read (the message is the one {@link SyncFile#open} gives), 2 for a usage error.
 */
public final class InspectCommand {
    /** The usage line. */
    public static final String USAGE = "usage: pthread4j inspect FILE [--json]";

    private InspectCommand() {
    }

    /**
     * @param args the arguments after {@code inspect}
     * @return the exit status
     */
    public static int run(final String[] args) {
        return run(args, System.out, System.err);
    }

    /**
     * @param args the arguments after {@code inspect}
     * @param out  where the report goes
     * @param err  where errors go
     * @return the exit status
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err) {
        String file = null;
        boolean json = false;
        for (final String a : args) {
            if (a.equals("--json")) {
                json = true;
            } else if (a.equals("-h") || a.equals("--help")) {
                out.println(USAGE);
                out.println("  prints the header and every slot's state (mutex owner and waiters, ...) of a sync file");
                out.println("  FILE: a path, or a name in /dev/shm; --json: one JSON object");
                return 0;
            } else if (a.startsWith("-") || file != null) {
                err.println(USAGE);
                return 2;
            } else {
                file = a;
            }
        }
        if (file == null) {
            err.println(USAGE);
            return 2;
        }
        Path path = Path.of(file);
        if (!file.contains("/") && !Files.exists(path)) {
            try {
                path = SyncFile.shmPath(file);
            } catch (final IllegalArgumentException e) {
                // keep the path as given; the open below reports it
            }
        }
        try {
            final SyncFileInspector.Report r = SyncFileInspector.inspect(path);
            out.print(json ? SyncFileInspector.json(r) + System.lineSeparator() : SyncFileInspector.text(r));
            out.flush();
            return 0;
        } catch (final SyncFileFormatException e) {
            err.println("pthread4j inspect: " + e.getMessage());
            return 1;
        } catch (final NoSuchFileException e) {
            err.println("pthread4j inspect: " + e.getFile() + ": no such file");
            return 1;
        } catch (final IOException | RuntimeException e) {
            err.println("pthread4j inspect: " + path + ": " + e);
            return 1;
        }
    }
}
