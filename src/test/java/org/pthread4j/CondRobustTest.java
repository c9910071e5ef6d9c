package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.CondTest.Crew;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Backends;
import org.pthread4j.testing.CountingFutex;

import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.CondTest.LIVENESS;
import static org.pthread4j.CondTest.awaitWaiters;

/**
 * A condvar with a robust mutex: the relock's EOWNERDEAD and ENOTRECOVERABLE reach the waiter,
 * a robust mutex held inconsistent is refused with EPERM (musl's owner check), and a broadcast
 * hands its group to a robust mutex by waking, since a robust mutex's word sleeps under shared
 * futex keys that a private requeue cannot reach.
 */
class CondRobustTest {
    /** A condvar backend and whether condvar and mutex are process-shared. */
    record Setup(Futex condFutex, boolean pshared) {
        Mutex mutex(final Memory memory) {
            return new Mutex(memory.block(0, MutexLayout.SIZE, 8),
                MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true).pshared(pshared).build());
        }

        Cond cond(final Memory memory, final Futex futex) {
            return new Cond(memory.block(64, CondLayout.SIZE, 8),
                CondAttr.builder().pshared(pshared).futex(pshared ? null : futex).build());
        }
    }

    static Stream<Arguments> setups() {
        return Stream.concat(
            Backends.privateBackends().map(f -> Arguments.of(Named.of("private-" + f.name(), new Setup(f, false)))),
            Stream.of(Arguments.of(Named.of("shared", new Setup(null, true)))));
    }

    private static Timespec deadline() {
        return Timespec.after(Timespec.CLOCK_REALTIME, LIVENESS.toSeconds(), TimeUnit.SECONDS);
    }

    /** Runs {@code body} on a platform thread that then ends (leaving whatever it holds to the kernel's robust list). */
    private static int onThreadThatEnds(final java.util.concurrent.Callable<Integer> body) throws Exception {
        final FutureTask<Integer> task = new FutureTask<>(body);
        final Thread t = Thread.ofPlatform().name("robust-owner").start(task);
        t.join(LIVENESS.toMillis());
        assertFalse(t.isAlive());
        return task.get();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void relockAfterTheOwnerDiedReturnsEOWNERDEADWithTheMutexHeld(final Setup s) throws Exception {
        try (Memory memory = Memory.allocate(256)) {
            final Mutex m = s.mutex(memory);
            final Cond c = s.cond(memory, s.condFutex());
            final int[] flag = new int[1];
            final Crew crew = new Crew();
            crew.start("waiter", () -> {
                assertEquals(0, m.lock());
                int r = 0;
                while (flag[0] == 0 && r == 0) {
                    r = c.timedAwait(m, deadline());
                }
                assertEquals(Errno.EOWNERDEAD, r);
                assertTrue(m.isHeldByCurrentThread());
                assertEquals(Mutex.State.OWNER_DIED, m.state());
                // musl's owner check masks with 0x7fffffff, so an inconsistent mutex is refused.
                assertEquals(Errno.EPERM, c.await(m));
                assertEquals(0, m.consistent());
                assertEquals(0, m.unlock());
            });
            awaitWaiters(c, 1);
            // Another thread signals under the mutex and ends without unlocking it.
            assertEquals(0, onThreadThatEnds(() -> {
                assertEquals(0, m.lock());
                flag[0] = 1;
                return c.signal();
            }));
            crew.join();
            assertEquals(0, m.timedLock(deadline()));
            assertEquals(0, m.unlock());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void relockOfAnUnrecoverableMutexReturnsENOTRECOVERABLE(final Setup s) throws Exception {
        try (Memory memory = Memory.allocate(256)) {
            final Mutex m = s.mutex(memory);
            final Cond c = s.cond(memory, s.condFutex());
            final Crew crew = new Crew();
            crew.start("waiter", () -> {
                assertEquals(0, m.lock());
                final int r = c.timedAwait(m, deadline());
                assertEquals(Errno.ENOTRECOVERABLE, r);
                assertFalse(m.isHeldByCurrentThread());
            });
            awaitWaiters(c, 1);
            assertEquals(0, onThreadThatEnds(m::lock));
            assertEquals(Errno.EOWNERDEAD, m.timedLock(deadline()));
            assertEquals(0, m.unlock()); // without consistent(): unrecoverable
            assertEquals(Mutex.State.UNRECOVERABLE, m.state());
            assertEquals(0, c.signal());
            crew.join();
        }
    }

    /** A robust mutex sleeps under shared futex keys, so a private condvar wakes each successor instead of requeueing it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void broadcastWithARobustMutexWakesSuccessorsInsteadOfRequeueing(final Setup s) throws Exception {
        if (s.pshared()) {
            return;
        }
        final CountingFutex counting = new CountingFutex(s.condFutex());
        try (Memory memory = Memory.allocate(256)) {
            final Mutex m = s.mutex(memory);
            final Cond c = s.cond(memory, counting);
            final int[] flag = new int[1];
            final Crew crew = new Crew();
            for (int i = 0; i < 5; i++) {
                crew.start("waiter-" + i, () -> {
                    assertEquals(0, m.lock());
                    while (flag[0] == 0) {
                        assertEquals(0, c.await(m));
                    }
                    assertEquals(0, m.unlock());
                });
            }
            awaitWaiters(c, 5);
            assertEquals(0, m.lock());
            flag[0] = 1;
            counting.reset();
            assertEquals(0, c.broadcast());
            assertEquals(0, m.unlock());
            crew.join();
            assertEquals(0, counting.requeueCalls(), counting.toString());
            assertEquals(0, counting.wideWakeCalls(), counting.toString());
            assertEquals(0, m.waiterCount(), "the group's waiter count was not returned");
        }
    }
}
