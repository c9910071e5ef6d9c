package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.futex.Timespec;
import org.pthread4j.memory.Block;
import org.pthread4j.testing.ChildJvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code kill -9} of a JVM at a random moment while it churns on a robust mutex in a sync file:
 * the survivors, two threads of this JVM asleep in {@code lock}, always recover. When the
 * victim died inside its critical section, the first survivor gets EOWNERDEAD within a second,
 * makes the mutex consistent and unlocks; the second then gets 0; the file keeps working.
 */
class RobustKillTest {
    private static final int TRIALS = 20;
    private static final Duration LIVE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void twentyKillsOfAHolderAtRandomMomentsNeverHangTheSurvivors() throws Exception {
        final Path p = dir.resolve("robust");
        final SplittableRandom rnd = new SplittableRandom();
        int ownerDied = 0;
        // Trials go on until TRIALS kills have landed inside the critical section (a kill can land
        // between two holds, or in lock or unlock themselves: those trials must recover too).
        final List<Long> recoveryMicros = new ArrayList<>();
        try (SyncFile f = SyncFile.create(p, 8)) {
            final Mutex r = f.mutex("r", PrimitivesChild.ROBUST);
            final Block inside = f.slot("inside", SlotType.RAW, 8);
            int kills = 0;
            for (int trial = 0; ownerDied < TRIALS; trial++) {
                assertTrue(trial < 2 * TRIALS, "only " + ownerDied + " of " + trial + " kills landed inside the critical section");
                try (ChildJvm victim = ChildJvm.start(PrimitivesChild.class, p.toString())) {
                    victim.expect("ready", LIVE);
                    victim.send("churn");
                    victim.expect("churning", LIVE);
                    // The survivors contend with the churning victim until it is dead and reaped,
                    // then lock once more each and stop.
                    final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
                    final AtomicInteger deaths = new AtomicInteger();
                    final java.util.concurrent.atomic.AtomicLong deathSeenAt = new java.util.concurrent.atomic.AtomicLong();
                    final java.util.concurrent.atomic.AtomicReference<String> error = new java.util.concurrent.atomic.AtomicReference<>();
                    final CountDownLatch started = new CountDownLatch(2);
                    final List<Thread> survivors = new ArrayList<>();
                    for (int s = 0; s < 2; s++) {
                        survivors.add(Thread.ofPlatform().start(() -> {
                            started.countDown();
                            for (;;) {
                                final boolean last = stop.get();
                                final int e = r.timedLock(Timespec.after(Timespec.CLOCK_REALTIME, 60, TimeUnit.SECONDS));
                                if (e == Errno.EOWNERDEAD) {
                                    deathSeenAt.set(System.nanoTime());
                                    deaths.incrementAndGet();
                                    final int c = r.consistent();
                                    if (c != 0) {
                                        error.set("consistent " + Errno.name(c));
                                    }
                                } else if (e != 0) {
                                    error.set("lock " + Errno.name(e));
                                    return;
                                }
                                final int u = r.unlock();
                                if (u != 0) {
                                    error.set("unlock " + Errno.name(u));
                                    return;
                                }
                                if (last) {
                                    return;
                                }
                            }
                        }));
                    }
                    assertTrue(started.await(30, TimeUnit.SECONDS));
                    // A random moment while the victim holds the lock (it holds it 5 ms at a time).
                    Thread.sleep(rnd.nextInt(1, 40));
                    final long waitInside = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (inside.get(0) == 0 && System.nanoTime() < waitInside) {
                        Thread.onSpinWait();
                    }
                    final int before = inside.get(0);
                    final long killedAt = System.nanoTime();
                    victim.process().destroyForcibly();
                    kills++;
                    assertTrue(victim.process().waitFor(30, TimeUnit.SECONDS));
                    final boolean diedInside = before == 1 && inside.get(0) == 1;
                    stop.set(true);
                    for (final Thread t : survivors) {
                        t.join(TimeUnit.SECONDS.toMillis(30));
                        assertFalse(t.isAlive(), "trial " + trial + ": a survivor hangs");
                    }
                    final String outcome = "trial " + trial + ": " + deaths.get() + " EOWNERDEAD"
                        + (diedInside ? ", victim died inside" : ", victim may have died outside");
                    assertNull(error.get(), outcome);
                    assertTrue(deaths.get() <= 1, outcome);
                    if (diedInside) {
                        assertEquals(1, deaths.get(), outcome);
                    }
                    if (deaths.get() == 1) {
                        ownerDied++;
                        final long micros = TimeUnit.NANOSECONDS.toMicros(Math.max(0, deathSeenAt.get() - killedAt));
                        recoveryMicros.add(micros);
                        assertTrue(micros < 1_000_000, outcome + ": EOWNERDEAD came " + micros + " us after the kill");
                    }
                    inside.set(0, 0);
                    // The file keeps working.
                    assertEquals(0, r.timedLock(Timespec.after(Timespec.CLOCK_REALTIME, 30, TimeUnit.SECONDS)));
                    assertEquals(Mutex.State.LOCKED, r.state());
                    assertEquals(0, r.unlock());
                }
            }
            System.out.println("robust kill trials: " + kills + " kills, " + ownerDied
                + " answered by one EOWNERDEAD each; recovery after kill (us): " + recoveryMicros);
        }
    }
}
