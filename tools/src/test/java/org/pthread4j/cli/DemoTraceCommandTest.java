package org.pthread4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.FutexTrace;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ./pthread4j demo trace}: each scenario runs on every private backend and prints its timeline. */
class DemoTraceCommandTest {
    /** What one run printed. */
    record Run(int status, String out, String err) {
    }

    /** The start of a printed futex line: indentation, a signed time in microseconds, spaces. */
    static final String LINE = "^\\s+[+-][0-9.]+ us\\s+";
    /** The start of a line that records a call's return (not a wait starting to sleep). */
    static final String EVENT = LINE + "(?!.*\\.\\. sleeps)";

    static Run run(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int status = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(status, out.toString(), err.toString());
    }

    static int count(final String text, final String regex) {
        final Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.futex.Futexes#allPrivate")
    void everyScenarioRunsAndPrintsItsTimeline(final Futex futex) {
        final Run r = run("demo", "trace", "--futex", futex.name());
        assertEquals(0, r.status(), r.err());
        final String out = r.out();
        for (final String scenario : DemoTraceCommand.SCENARIOS) {
            assertTrue(out.contains("== " + scenario + ": "), scenario + " missing:\n" + out);
        }
        assertTrue(out.contains("futex backend " + futex.name()), out);

        // The parking backend runs the parking protocol, the kernel ones musl's; every title says which.
        final boolean parking = futex instanceof org.pthread4j.futex.ParkingFutex;
        final String protocol = parking ? "PARKING sleep protocol" : "MUSL sleep protocol";
        final String mutex = section(out, "mutex");
        assertTrue(mutex.startsWith("== mutex"), mutex);
        assertTrue(mutex.contains(protocol), mutex);
        assertTrue(Pattern.compile("1\\. T1: lock\\(\\).*\\n.*words:.*\\n\\s+futex:  none").matcher(mutex).find(),
            "the uncontended lock must show no futex call:\n" + mutex);
        assertTrue(mutex.contains("_m_lock = 0x80000010 (locked, waiters bit set), _m_waiters = 1"), mutex);
        assertEquals(1, count(mutex, "T1\\s+wake\\s+m\\._m_lock n=1\\s+-> 1 woken"), mutex);
        // The parking protocol sets the bit and sleeps in one set_bit_wait_join (recorded with the
        // bit); musl's CASes the bit into the value it saw, then waits on exactly that value.
        assertEquals(1, count(mutex, parking
            ? "T2\\s+set_bit_wait_join\\s+m\\._m_lock bit=0x80000000\\s+-> 0 \\(woken from m\\._m_lock\\)  \\[parking only\\]$"
            : "T2\\s+wait\\s+m\\._m_lock val=0x80000010\\s+-> 0 \\(woken from m\\._m_lock\\)$"), mutex);
        assertEquals(1, count(mutex, LINE + "T2\\s+" + (parking ? "set_bit_wait_join" : "wait") + "\\s.*\\.\\. sleeps"), mutex);
        assertEquals(2, count(mutex, EVENT), "exactly two futex calls:\n" + mutex);

        final String cond = section(out, "cond");
        assertTrue(cond.contains(protocol), cond);
        final String requeue = "requeue\\s+%s\\.barrier -> m\\._m_lock wake 0, move 1\\s+-> 1 moved, none woken";
        assertEquals(1, count(cond, EVENT + "S\\s+wake\\s+W1\\.barrier n=1\\s+-> 1 woken"), cond);
        assertEquals(2, count(cond, EVENT + "\\S+\\s+requeue\\s"), cond);
        assertEquals(4, count(cond, EVENT + "\\S+\\s+(wait|set_bit_wait_join)\\s"),
            "three barrier waits and W1's mutex wait:\n" + cond);
        assertEquals(4, count(cond, LINE + "\\S+\\s+(wait|set_bit_wait_join)\\s.*\\.\\. sleeps"),
            "each of them also listed when it started sleeping:\n" + cond);
        assertEquals(1, count(cond, EVENT + "W1\\s+" + requeue.formatted("W2")), cond);
        assertEquals(1, count(cond, EVENT + "W2\\s+" + requeue.formatted("W3")), cond);
        assertEquals(0, count(cond, EVENT + "W3\\s+requeue"), cond);
        // The last of the group: musl's protocol wakes nobody; the parking one recorded bit 31
        // when it relocked (the group was still counted), and its unlock finds nobody.
        assertEquals(parking ? 5 : 4, count(cond, EVENT + "\\S+\\s+wake\\s"), cond);
        assertEquals(parking ? 1 : 0, count(cond, EVENT + "W3\\s+wake\\s+m\\._m_lock n=1\\s+-> 0 woken"), cond);
        assertEquals(0, count(cond, EVENT + ".*c\\._c_lock"), "the condvar's own lock was never contended:\n" + cond);

        final String rw = section(out, "rwlock");
        assertTrue(rw.contains(protocol), rw);
        assertEquals(1, count(rw, "R2\\s+wake\\s+rw\\._rw_lock n=1\\s+-> 1 woken"), rw);
        assertEquals(0, count(rw, "R1\\s+wake"), rw);
        if (parking) {
            // One wake from the writer, passed on by R3 (the readers' chain); R3 recorded bit 31, so
            // the last reader's unlock wakes once more and finds nobody.
            assertEquals(1, count(rw, "W\\s+wake\\s+rw\\._rw_lock n=1\\s+-> 1 woken"), rw);
            assertEquals(1, count(rw, "R3\\s+wake\\s+rw\\._rw_lock n=1\\s+-> 1 woken"), rw);
            assertEquals(1, count(rw, "R[34]\\s+wake\\s+rw\\._rw_lock n=1\\s+-> 0 woken"), rw);
        } else {
            assertEquals(1, count(rw, "W\\s+wake\\s+rw\\._rw_lock n=2147483647 \\(all\\)\\s+-> 2 woken"), rw);
            assertEquals(0, count(rw, "R[34]\\s+wake"), rw);
        }

        final String sem = section(out, "sem");
        assertEquals(2, count(sem, "P\\s+wake\\s+s\\.__val\\[0\\] n=-1 \\(all\\)\\s+-> 1 woken"), sem);
        assertEquals(1, count(sem, "P\\s+wake\\s+s\\.__val\\[0\\] n=1\\s+-> 1 woken"), sem);
        assertFalse(FutexTrace.isEnabled(), "the demo leaves the trace as it found it");
    }

    /** @return the text of one step of a scenario, from its number to the next step's */
    static String step(final String section, final int n) {
        final Matcher m = Pattern.compile("(?m)^ ?" + n + "\\. ").matcher(section);
        assertTrue(m.find(), "no step " + n + ":\n" + section);
        final Matcher next = Pattern.compile("(?m)^ ?" + (n + 1) + "\\. ").matcher(section);
        return section.substring(m.start(), next.find(m.end()) ? next.start() : section.length());
    }

    /** @return the lines of a text, to compare positions */
    static List<String> lines(final String text) {
        return List.of(text.split("\n"));
    }

    static int indexOf(final List<String> lines, final String regex) {
        final Pattern p = Pattern.compile(regex);
        for (int i = 0; i < lines.size(); i++) {
            if (p.matcher(lines.get(i)).find()) {
                return i;
            }
        }
        return -1;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.futex.Futexes#allPrivate")
    void everyStepsTimesStartAtZeroAndNeverGoBack(final Futex futex) {
        final Run r = run("demo", "trace", "--futex", futex.name());
        assertEquals(0, r.status(), r.err());
        final Pattern time = Pattern.compile("^\\s+([+-][0-9.]+) us\\s");
        int steps = 0;
        for (final String section : r.out().split("(?m)^ ?\\d+\\. ")) {
            double last = Double.NEGATIVE_INFINITY;
            boolean first = true;
            for (final String line : lines(section)) {
                final Matcher m = time.matcher(line);
                if (m.find()) {
                    final double t = Double.parseDouble(m.group(1));
                    if (first) {
                        assertEquals(0.0, t, 0.0, "a step's first call is at +0.0:\n" + section);
                        first = false;
                        steps++;
                    }
                    assertTrue(t >= last, "times go back in:\n" + section);
                    last = t;
                }
            }
        }
        assertTrue(steps >= 10, "too few steps with futex calls: " + steps + "\n" + r.out());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.futex.Futexes#allPrivate")
    void aWaitIsListedWhenItSleepsAndAfterTheWakeThatEndedIt(final Futex futex) {
        final Run r = run("demo", "trace", "--futex", futex.name(), "mutex");
        assertEquals(0, r.status(), r.err());
        final String mutex = section(r.out(), "mutex");
        // Step 4: T2's sleep is listed while it sleeps, not when it returns.
        final List<String> asleep = lines(step(mutex, 4));
        assertEquals(1, asleep.stream().filter(l -> l.matches("\\s+\\+0\\.0 us\\s+T2\\s.*\\.\\. sleeps.*")).count(),
            String.join("\n", asleep));
        assertEquals(-1, indexOf(asleep, "T2 .*-> "), String.join("\n", asleep));
        // Step 5: the words after T1's release and before its wake, then the wake, then T2's return.
        final List<String> woken = lines(step(mutex, 5));
        final int words = indexOf(woken, "T1\\s+\\(words before this wake: _m_lock = 0x00000000 \\(free\\), _m_waiters = 1\\)");
        final int wake = indexOf(woken, "\\+0\\.0 us\\s+T1\\s+wake\\s+m\\._m_lock n=1\\s+-> 1 woken");
        final int back = indexOf(woken, "T2\\s+(wait|set_bit_wait_join)\\s.*-> 0 \\(woken from m\\._m_lock\\)");
        assertTrue(words >= 0 && wake == words + 1 && back > wake, String.join("\n", woken));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.futex.Futexes#allPrivate")
    void aRequeuedWaiterIsWokenFromTheMutexWordNotItsBarrier(final Futex futex) {
        final Run r = run("demo", "trace", "--futex", futex.name(), "cond");
        assertEquals(0, r.status(), r.err());
        final List<String> handoffs = lines(step(section(r.out(), "cond"), 5));
        final int requeueW2 = indexOf(handoffs, "W1\\s+requeue\\s+W2\\.barrier -> m\\._m_lock");
        final int wakeW2 = indexOf(handoffs, "W1\\s+wake\\s+m\\._m_lock n=1\\s+-> 1 woken");
        final int w2 = indexOf(handoffs, "W2\\s+wait\\s+W2\\.barrier val=0x00000002\\s+-> 0 \\(woken from m\\._m_lock, requeued there by W1\\)");
        final int w3 = indexOf(handoffs, "W3\\s+wait\\s+W3\\.barrier val=0x00000002\\s+-> 0 \\(woken from m\\._m_lock, requeued there by W2\\)");
        assertTrue(requeueW2 >= 0 && wakeW2 > requeueW2 && w2 > wakeW2 && w3 > w2, String.join("\n", handoffs));
        // The requeue is preceded by the mutex word with bit 31, set by W1 for the waiter it moves.
        assertTrue(handoffs.get(requeueW2 - 1).contains("(words before this requeue: _m_lock = 0x80000010"),
            String.join("\n", handoffs));
    }

    @Test
    void parkingOnlyOperationsAreTaggedAndMuslRunsTheKernelBackend() {
        final Run parking = run("demo", "trace", "--futex", "parking", "mutex");
        assertEquals(0, parking.status(), parking.err());
        for (final String line : lines(parking.out())) {
            if (line.matches(LINE + ".*") && line.contains("set_bit_wait")) {
                assertTrue(line.endsWith("[parking only]"), line);
            }
        }
        final Run musl = run("demo", "trace", "--musl", "mutex", "cond");
        assertEquals(0, musl.status(), musl.err());
        assertTrue(musl.out().contains("MUSL sleep protocol (--musl: musl's steps and futex calls on the kernel's futexes), futex backend linux"),
            musl.out());
        assertFalse(musl.out().contains("[parking only]"), musl.out());
        assertFalse(musl.out().contains("PARKING sleep protocol"), musl.out());
        final Run both = run("demo", "trace", "--musl", "--futex", "parking");
        assertEquals(2, both.status());
        assertTrue(both.err().contains("--musl runs the linux backend"), both.err());
    }

    /** @return the text of one scenario, from its title to the next title */
    static String section(final String out, final String scenario) {
        final int from = out.indexOf("== " + scenario + ": ");
        final int to = out.indexOf("\n== ", from + 1);
        return out.substring(from, to < 0 ? out.length() : to);
    }

    @Test
    void namedScenariosRunAloneAndInOrder() {
        final Run r = run("demo", "trace", "sem", "mutex");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().indexOf("== sem") < r.out().indexOf("== mutex"), r.out());
        assertFalse(r.out().contains("== cond"), r.out());
    }

    @Test
    void badArgumentsAreUsageErrors() {
        final Run unknown = run("demo", "trace", "spinlock");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().contains("unknown scenario 'spinlock'"), unknown.err());
        final Run backend = run("demo", "trace", "--futex", "nope", "mutex");
        assertEquals(2, backend.status());
        assertTrue(backend.err().contains("unknown futex backend"), backend.err());
        assertEquals(2, run("demo").status(), "demo without a command prints its usage");
        final Run help = run("demo", "trace", "--help");
        assertEquals(0, help.status());
        assertTrue(help.out().contains("--futex"), help.out());
    }
}
