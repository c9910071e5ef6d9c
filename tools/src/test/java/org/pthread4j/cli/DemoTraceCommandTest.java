package org.pthread4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.FutexTrace;

import java.io.PrintWriter;
import java.io.StringWriter;
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

    /** The start of a printed futex event line: indentation, a signed time in microseconds, spaces. */
    static final String EVENT = "^\\s+[+-][0-9.]+ us\\s+";

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
            ? "T2\\s+set_bit_wait_join\\s+m\\._m_lock bit=0x80000000\\s+-> 0 \\(woken\\)"
            : "T2\\s+wait\\s+m\\._m_lock val=0x80000010\\s+-> 0 \\(woken\\)"), mutex);
        assertEquals(2, count(mutex, EVENT), "exactly two futex calls:\n" + mutex);

        final String cond = section(out, "cond");
        assertTrue(cond.contains(protocol), cond);
        final String requeue = "requeue\\s+%s\\.barrier -> m\\._m_lock wake 0, move 1\\s+-> 1 moved, none woken";
        assertEquals(1, count(cond, EVENT + "S\\s+wake\\s+W1\\.barrier n=1\\s+-> 1 woken"), cond);
        assertEquals(2, count(cond, EVENT + "\\S+\\s+requeue\\s"), cond);
        assertEquals(4, count(cond, EVENT + "\\S+\\s+(wait|set_bit_wait_join)\\s"),
            "three barrier waits and W1's mutex wait:\n" + cond);
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
