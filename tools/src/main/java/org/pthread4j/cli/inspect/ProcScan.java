package org.pthread4j.cli.inspect;

import org.pthread4j.cli.fs.Problems;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Finds, without any cooperation from the processes, the threads asleep on a futex word of a
 * file: Linux shows a thread that sleeps in a system call in {@code /proc/PID/task/TID/syscall}
 * (the call's number and its six arguments; for {@code futex(2)} the first is the word's
 * address), and {@code /proc/PID/maps} maps that address back to a file and an offset (the
 * file is recognized by its device and inode, whatever its name). A thread that spins, or polls
 * between timed sleeps, is not in the call and is not seen.
 *
 * <p>Reading another process's {@code maps} needs the right to read its memory map, and its
 * {@code syscall} file the right to attach to it with ptrace (Linux's
 * {@code PTRACE_MODE_ATTACH}): another user's processes, or under Yama's {@code ptrace_scope}
 * 1 any process that is not a descendant, are closed to a user without {@code CAP_SYS_PTRACE}.
 * Those are returned as {@link Closed}, with the reason, never silently left out.
 *
 * <p>A scan is a sequence of reads while the threads go on: each thread's state is exact at the
 * moment it was read, the set of them is not one instant's.
 */
public final class ProcScan {
    /** {@code futex(2)}'s number: 202 on x86_64, 98 on aarch64. */
    private static final int SYS_FUTEX = "aarch64".equals(System.getProperty("os.arch")) ? 98 : 202;
    private static final int FUTEX_CMD_MASK = 127;
    /** The futex operations that sleep: WAIT, LOCK_PI, WAIT_BITSET, WAIT_REQUEUE_PI, LOCK_PI2. */
    private static final List<Integer> SLEEPS = List.of(0, 6, 9, 11, 13);
    private static final long PF_KTHREAD = 0x0020_0000L;

    /** Reads a {@code /proc} file; a test replaces it to play a process it may not look into. */
    @FunctionalInterface
    public interface Reader {
        /**
         * @param file a file under {@code /proc}
         * @return its text
         * @throws IOException when it cannot be read
         */
        String read(Path file) throws IOException;
    }

    /**
     * A thread asleep on a word of the file.
     *
     * @param pid     its process
     * @param tid     the thread
     * @param process the process's name ({@code comm})
     * @param thread  the thread's name ({@code comm}: a JVM names it after the Java thread)
     * @param offset  the word's offset in the file
     */
    public record Sleeper(int pid, int tid, String process, String thread, long offset) {
        /** {@return "pid P (process) tid T (thread)"} */
        public String who() {
            return "pid " + pid + " (" + process + ") tid " + tid + " (" + thread + ")";
        }
    }

    /**
     * A process the scan could not look into.
     *
     * @param pid     the process
     * @param process its name
     * @param reason  why, in words
     */
    public record Closed(int pid, String process, String reason) {
    }

    /**
     * What a scan found.
     *
     * @param sleepers the threads asleep on a word of the file, by process and thread id
     * @param closed   the processes it could not look into
     */
    public record Result(List<Sleeper> sleepers, List<Closed> closed) {
    }

    private final Path proc;
    private final Reader reader;

    /** A scan of this system's {@code /proc}. */
    public ProcScan() {
        this(Path.of("/proc"), f -> Files.readString(f, StandardCharsets.ISO_8859_1));
    }

    /**
     * @param proc   the {@code /proc} directory
     * @param reader how its files are read
     */
    public ProcScan(final Path proc, final Reader reader) {
        this.proc = proc;
        this.reader = reader;
    }

    /**
     * Scans every process.
     *
     * @param device the file's device number ({@code st_dev})
     * @param inode  its inode number
     * @return the sleepers on its words and the processes that could not be looked into
     */
    public Result scan(final long device, final long inode) {
        final List<Sleeper> sleepers = new ArrayList<>();
        final List<Closed> closed = new ArrayList<>();
        final String dev = String.format(Locale.ROOT, "%02x:%02x", major(device), minor(device));
        for (final int pid : pids()) {
            final String name = comm(proc.resolve(Integer.toString(pid)));
            if (name == null || kernelThread(pid)) {
                continue;
            }
            final List<long[]> maps;
            try {
                maps = mappings(reader.read(proc.resolve(pid + "/maps")), dev, inode);
            } catch (final NoSuchFileException e) {
                continue; // it exited
            } catch (final IOException e) {
                closed.add(new Closed(pid, name, why("its memory map", e)));
                continue;
            }
            if (maps.isEmpty()) {
                continue;
            }
            scanThreads(pid, name, maps, sleepers, closed);
        }
        return new Result(List.copyOf(sleepers), List.copyOf(closed));
    }

    private void scanThreads(final int pid, final String name, final List<long[]> maps, final List<Sleeper> sleepers,
                             final List<Closed> closed) {
        final Path tasks = proc.resolve(pid + "/task");
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
            for (final Path task : ds) {
                final int tid;
                try {
                    tid = Integer.parseInt(task.getFileName().toString());
                } catch (final NumberFormatException e) {
                    continue;
                }
                final String syscall;
                try {
                    syscall = reader.read(task.resolve("syscall"));
                } catch (final NoSuchFileException e) {
                    continue;
                } catch (final IOException e) {
                    closed.add(new Closed(pid, name, why("its threads' system calls", e)));
                    return;
                }
                final long address = futexWait(syscall);
                if (address == 0) {
                    continue;
                }
                for (final long[] m : maps) {
                    if (address >= m[0] && address < m[1]) {
                        final String thread = comm(task);
                        sleepers.add(new Sleeper(pid, tid, name, thread == null ? "?" : thread, address - m[0] + m[2]));
                    }
                }
            }
        } catch (final IOException e) {
            // the process exited while its threads were listed
        }
    }

    /**
     * @param syscall the text of a {@code syscall} file
     * @return the word's address when the thread sleeps in a futex wait, else 0
     */
    static long futexWait(final String syscall) {
        final String[] f = syscall.trim().split(" ");
        if (f.length < 3) {
            return 0;
        }
        try {
            if (Integer.parseInt(f[0]) != SYS_FUTEX) {
                return 0;
            }
            final int op = (int) Long.decode(f[2]).longValue() & FUTEX_CMD_MASK;
            return SLEEPS.contains(op) ? Long.decode(f[1]) : 0;
        } catch (final NumberFormatException e) {
            return 0;
        }
    }

    /**
     * @param maps   the text of a {@code maps} file
     * @param dev    the file's device as {@code maps} writes it ({@code major:minor}, hex)
     * @param inode  the file's inode
     * @return {start, end, file offset} of each mapping of the file
     */
    static List<long[]> mappings(final String maps, final String dev, final long inode) {
        final List<long[]> found = new ArrayList<>();
        for (final String line : maps.split("\n")) {
            final String[] f = line.trim().split("\\s+", 6);
            if (f.length < 5 || !f[3].equals(dev)) {
                continue;
            }
            try {
                if (Long.parseLong(f[4]) != inode) {
                    continue;
                }
                final int dash = f[0].indexOf('-');
                found.add(new long[] {Long.parseUnsignedLong(f[0].substring(0, dash), 16),
                    Long.parseUnsignedLong(f[0].substring(dash + 1), 16), Long.parseUnsignedLong(f[2], 16)});
            } catch (final NumberFormatException | IndexOutOfBoundsException e) {
                // not a mapping line
            }
        }
        return found;
    }

    private String why(final String what, final IOException e) {
        final String words = Problems.words(e);
        if (!words.equals("permission denied")) {
            return "cannot read " + what + ": " + words;
        }
        final String scope = yamaScope();
        return "permission denied reading " + what + " (that needs ptrace access to the process: the same user"
            + (scope == null ? "" : " and, with kernel.yama.ptrace_scope " + scope + ", " + yamaRule(scope))
            + ", or root)";
    }

    private String yamaScope() {
        try {
            return reader.read(proc.resolve("sys/kernel/yama/ptrace_scope")).trim();
        } catch (final IOException e) {
            return null;
        }
    }

    private static String yamaRule(final String scope) {
        return switch (scope) {
            case "0" -> "nothing more";
            case "1" -> "an ancestor of it";
            case "2" -> "CAP_SYS_PTRACE only";
            default -> "no process at all";
        };
    }

    private List<Integer> pids() {
        final List<Integer> pids = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(proc)) {
            for (final Path p : ds) {
                final String n = p.getFileName().toString();
                if (!n.isEmpty() && n.chars().allMatch(Character::isDigit)) {
                    pids.add(Integer.parseInt(n));
                }
            }
        } catch (final IOException e) {
            // no /proc: nothing to report
        }
        pids.sort(null);
        return pids;
    }

    private boolean kernelThread(final int pid) {
        try {
            final String stat = reader.read(proc.resolve(pid + "/stat"));
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[6]) & PF_KTHREAD) != 0;
        } catch (final IOException | RuntimeException e) {
            return false;
        }
    }

    private String comm(final Path dir) {
        try {
            return reader.read(dir.resolve("comm")).strip();
        } catch (final IOException e) {
            return null;
        }
    }

    /**
     * The process a thread belongs to.
     *
     * @param tid a thread id
     * @return its process id, or 0 when it does not exist
     */
    public int processOf(final int tid) {
        try {
            for (final String line : reader.read(proc.resolve(tid + "/status")).split("\n")) {
                if (line.startsWith("Tgid:")) {
                    return Integer.parseInt(line.substring(5).trim());
                }
            }
        } catch (final IOException | RuntimeException e) {
            // gone
        }
        return 0;
    }

    /**
     * @param id a process or thread id
     * @return its name ({@code comm}), or {@code "?"}
     */
    public String name(final int id) {
        final String n = comm(proc.resolve(Integer.toString(id)));
        return n == null ? "?" : n;
    }

    static long major(final long dev) {
        return ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
    }

    static long minor(final long dev) {
        return (dev & 0xff) | ((dev >>> 12) & ~0xffL);
    }
}
