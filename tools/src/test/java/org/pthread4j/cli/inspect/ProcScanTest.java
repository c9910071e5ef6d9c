package org.pthread4j.cli.inspect;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The /proc scan on a /proc laid out in a directory: parsing, and the processes it may not look into. */
class ProcScanTest {
    private static final long DEV = (8L << 8) | 1; // 08:01
    private static final long INODE = 4242;
    private static final int FUTEX = "aarch64".equals(System.getProperty("os.arch")) ? 98 : 202;

    @TempDir
    Path proc;

    @Test
    void aFutexWaitIsReadFromTheSyscallFileAndAnythingElseIsNot() {
        assertEquals(0x7f00_0000_1004L, ProcScan.futexWait(FUTEX + " 0x7f0000001004 0x0 0x80000010 0x0 0x0 0x0 0x7ffd 0x7f1\n"));
        assertEquals(0x7f00_0000_1004L, ProcScan.futexWait(FUTEX + " 0x7f0000001004 0x89 0x2 0x7ffd 0x0 0xffffffff 0x1 0x2"),
            "FUTEX_WAIT_BITSET with the private flag");
        assertEquals(0, ProcScan.futexWait(FUTEX + " 0x7f0000001004 0x1 0x1 0x0 0x0 0x0 0x1 0x2"), "a wake does not sleep");
        assertEquals(0, ProcScan.futexWait("running\n"));
        assertEquals(0, ProcScan.futexWait("0 0x3 0x7ffd 0x1 0x0 0x0 0x0 0x1 0x2"), "read(2)");
        assertEquals(0, ProcScan.futexWait("-1 0x7ffd 0x0"));
    }

    @Test
    void mappingsOfTheFileAreFoundByDeviceAndInodeWhateverTheirName() {
        final String maps = """
            7f0000000000-7f0000001000 rw-s 00000000 08:01 4242                       /dev/shm/x (deleted)
            7f0000002000-7f0000004000 r--s 00002000 08:01 4242                       /renamed
            7f0000005000-7f0000006000 rw-s 00000000 08:02 4242                       /other/device
            7f0000007000-7f0000008000 rw-p 00000000 00:00 0 
            """;
        final List<long[]> m = ProcScan.mappings(maps, "08:01", INODE);
        assertEquals(2, m.size());
        assertArrayEquals(new long[] {0x7f00_0000_0000L, 0x7f00_0000_1000L, 0}, m.get(0));
        assertArrayEquals(new long[] {0x7f00_0000_2000L, 0x7f00_0000_4000L, 0x2000}, m.get(1));
        assertEquals(8, ProcScan.major(DEV));
        assertEquals(1, ProcScan.minor(DEV));
        assertEquals(259, ProcScan.major((259L << 8) | 3));
    }

    private void process(final int pid, final String name, final String maps, final String... threads) throws IOException {
        final Path d = Files.createDirectories(proc.resolve(Integer.toString(pid)));
        Files.writeString(d.resolve("comm"), name + "\n");
        Files.writeString(d.resolve("stat"), pid + " (" + name + ") S 1 1 1 0 -1 4194560 0 0 0 0\n");
        Files.writeString(d.resolve("maps"), maps);
        for (final String t : threads) {
            final String[] f = t.split("=", 2);
            final Path task = Files.createDirectories(d.resolve("task").resolve(f[0]));
            Files.writeString(task.resolve("comm"), "worker-" + f[0] + "\n");
            Files.writeString(task.resolve("syscall"), f[1]);
        }
    }

    @Test
    void sleepersAreFoundAndProcessesThatCannotBeLookedIntoAreNamedWithTheReason() throws IOException {
        final String mapping = "7f0000000000-7f0000001000 rw-s 00000000 08:01 4242   /dev/shm/x\n";
        process(100, "sleeper", mapping, "100=running", "101=" + FUTEX + " 0x7f0000000144 0x0 0x80000010 0x0 0x0 0x0 0x1 0x2");
        process(200, "private", mapping);
        process(300, "nosyscall", mapping, "300=" + FUTEX + " 0x7f0000000144 0x0 0x1 0x0 0x0 0x0 0x1 0x2");
        process(400, "unrelated", "00400000-00401000 r-xp 00000000 08:01 99 /bin/x\n", "400=running");
        Files.createDirectories(proc.resolve("sys/kernel/yama"));
        Files.writeString(proc.resolve("sys/kernel/yama/ptrace_scope"), "1\n");
        final ProcScan scan = new ProcScan(proc, f -> {
            if (f.equals(proc.resolve("200/maps")) || f.equals(proc.resolve("300/task/300/syscall"))) {
                throw new AccessDeniedException(f.toString());
            }
            return Files.readString(f);
        });
        final ProcScan.Result r = scan.scan(DEV, INODE);
        assertEquals(List.of(new ProcScan.Sleeper(100, 101, "sleeper", "worker-101", 0x144)), r.sleepers());
        assertEquals(List.of(
            new ProcScan.Closed(200, "private", "permission denied reading its memory map (that needs ptrace access to "
                + "the process: the same user and, with kernel.yama.ptrace_scope 1, an ancestor of it, or root)"),
            new ProcScan.Closed(300, "nosyscall", "permission denied reading its threads' system calls (that needs "
                + "ptrace access to the process: the same user and, with kernel.yama.ptrace_scope 1, an ancestor of it, "
                + "or root)")), r.closed());
        final String text = Render.closed(r.closed());
        assertTrue(text.startsWith("  could not look into 1 process for sleepers: pid 200 (private): permission denied "
            + "reading its memory map"), text);
        assertTrue(text.contains("\n  could not look into 1 process for sleepers: pid 300 (nosyscall): permission "
            + "denied reading its threads' system calls"), text);
    }
}
