package org.pthread4j.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second local user for the tests of who may open a shared file: small processes run with
 * {@code setpriv --reuid=UID --regid=UID --clear-groups} under a uid that no account uses. Only
 * root can do that; {@link #skipReason()} says why a test cannot run otherwise.
 */
public final class OtherUser {
    /** The uid and gid of the second user: the first of 54321 and up that /etc/passwd does not name. */
    public static final int UID = unusedUid();

    private OtherUser() {
    }

    /** The outcome of a command run as the other user: its exit status and everything it printed. */
    public record Result(int exit, String output) {
    }

    /** {@return the effective uid of this JVM, from {@code /proc/self/status}} */
    public static int euid() {
        try {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (final IOException e) {
            return -1;
        }
        return -1;
    }

    /** {@return null when the tests can run a second user, else why not} */
    public static String skipReason() {
        if (euid() != 0) {
            return "needs root: the test runs a second user (uid " + UID + ") with setpriv, which only root may do";
        }
        return null;
    }

    /**
     * Runs a command as the other user and waits for it (60 s at most: liveness only).
     *
     * @param stdin   a file for its standard input, opened by this JVM, or null
     * @param command the command
     * @return its result
     */
    public static Result run(final Path stdin, final String... command) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + UID, "--regid=" + UID,
            "--clear-groups"));
        cmd.addAll(List.of(command));
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (stdin != null) {
            pb.redirectInput(stdin.toFile());
        }
        final Process p = pb.start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("'" + String.join(" ", cmd) + "' did not end within 60 s");
        }
        return new Result(p.exitValue(), out);
    }

    private static int unusedUid() {
        String passwd = "";
        try {
            passwd = Files.readString(Path.of("/etc/passwd"), StandardCharsets.ISO_8859_1);
        } catch (final IOException e) {
            // no passwd file: any uid is unused
        }
        int uid = 54321;
        while (passwd.contains(":" + uid + ":")) {
            uid++;
        }
        return uid;
    }
}
