package org.pthread4j.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command and subcommand is parsed by picocli: the same help, version and usage errors everywhere. */
class CommandLineTest {
    private static final List<List<String>> COMMANDS = List.of(List.of(), List.of("bench"), List.of("demo"),
        List.of("demo", "trace"), List.of("demo", "ipc"), List.of("inspect"));

    @Test
    void helpWorksOnEveryCommandAndSubcommand() {
        for (final List<String> c : COMMANDS) {
            for (final String help : List.of("--help", "-h")) {
                final String[] args = concat(c, help);
                final Cli r = Cli.run(args);
                assertEquals(0, r.status(), String.join(" ", args) + ": " + r);
                assertTrue(r.out().contains("Usage: pthread4j" + (c.isEmpty() ? "" : " " + String.join(" ", c))),
                    String.join(" ", args) + ": " + r);
                assertEquals("", r.err(), String.join(" ", args));
            }
        }
    }

    @Test
    void helpCommandPrintsTheNamedCommandsHelp() {
        for (final String command : List.of("bench", "demo", "inspect")) {
            final Cli r = Cli.run("help", command);
            assertEquals(0, r.status(), r.toString());
            assertTrue(r.out().startsWith(Cli.run(command, "--help").out().lines().findFirst().orElseThrow()), r.toString());
            assertTrue(r.out().contains("Usage: pthread4j " + command), r.toString());
        }
        assertTrue(Cli.run("help").out().contains("Commands:"));
    }

    @Test
    void versionPrintsVersionCommitJdkAndFutexBackends() {
        final Cli r = Cli.run("--version");
        assertEquals(0, r.status(), r.toString());
        final List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).matches("pthread4j \\S+, commit \\S+"), r.toString());
        assertTrue(lines.get(1).startsWith("JDK " + Runtime.version()), r.toString());
        assertTrue(r.out().contains("futex backends: private "), r.toString());
        assertTrue(r.out().contains(", process-shared "), r.toString());
    }

    @Test
    void usageErrorsSayWhatWasWrongAndExit2() {
        usage(Cli.run(), "pthread4j: missing COMMAND");
        usage(Cli.run("frob"), "pthread4j: unknown command 'frob'");
        usage(Cli.run("demo"), "pthread4j demo: missing COMMAND (trace or ipc)");
        usage(Cli.run("demo", "frob"), "pthread4j demo: unknown command 'frob'");
        usage(Cli.run("demo", "ipc", "--seconds", "abc"), "Invalid value for option '--seconds': 'abc' is not a double");
        usage(Cli.run("demo", "ipc", "--seconds", "0"), "--seconds must be more than 0 and at most 3600: 0.0");
        usage(Cli.run("demo", "ipc", "--file"), "Missing required parameter for option '--file' (PATH)");
        usage(Cli.run("demo", "ipc", "--frob"), "Unknown option: '--frob'");
        usage(Cli.run("demo", "trace", "spinlock"), "unknown scenario 'spinlock' (known: mutex, cond, rwlock, sem)");
        usage(Cli.run("inspect"), "Missing required parameter: 'FILE'");
        usage(Cli.run("inspect", "--frob", "f"), "Unknown option: '--frob'");
        usage(Cli.run("inspect", "--watch=5", "f"), "--watch must be between 10 and 3600000 ms: 5");
        usage(Cli.run("inspect", "--watch", "--json", "f"), "--json and --watch do not go together");
        usage(Cli.run("bench", "--runs", "2"), "--runs must be at least 3");
    }

    private static void usage(final Cli r, final String message) {
        assertEquals(Main.USAGE, r.status(), r.toString());
        assertTrue(r.err().startsWith("pthread4j"), r.toString());
        assertTrue(r.err().contains(message), message + " in " + r);
        assertTrue(r.err().contains("Usage: ") || r.err().contains("pthread4j"), r.toString());
        assertTrue(r.err().contains("--help' for more."), r.toString());
        assertFalse(r.err().contains("Exception"), r.toString());
        assertEquals("", r.out(), r.toString());
    }

    private static String[] concat(final List<String> head, final String last) {
        final String[] a = head.toArray(new String[head.size() + 1]);
        a[head.size()] = last;
        return a;
    }
}
