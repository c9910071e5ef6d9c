package org.pthread4j.cli.workload;

import org.pthread4j.Cond;
import org.pthread4j.futex.Errno;
import org.pthread4j.Mutex;
import org.pthread4j.futex.Timespec;
import org.pthread4j.cli.bench.Case;
import org.pthread4j.cli.bench.ChildJvm;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.cli.bench.Group;
import org.pthread4j.cli.bench.Measure;
import org.pthread4j.cli.bench.Settings;
import org.pthread4j.cli.bench.Workload;
import org.pthread4j.ipc.SlotType;
import org.pthread4j.ipc.SyncFile;
import org.pthread4j.memory.Block;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code bench ipc}: the latency of a round trip between two processes through one
 * process-shared mutex and one process-shared condvar, with a turn word beside them. Each side
 * locks, waits on the condvar while the turn is the other's, hands the turn over, signals and
 * unlocks; a round trip is one turn each way, and the figure is ns per round trip, counted by
 * the measuring side over the trial time.
 * <ul>
 * <li><b>C, two processes</b> (the reference, glibc; and musl where {@code musl-gcc} exists):
 *     {@code ipc_pingpong.c} (a C baseline) forks, and parent and child share a
 *     {@code MAP_SHARED} page holding a {@code PTHREAD_PROCESS_SHARED} mutex and condvar.</li>
 * <li><b>two JVMs</b>: this JVM and a second one, started with the same {@code java}, JVM
 *     options and class path ({@link IpcPeer}), map one {@link SyncFile} in {@code /dev/shm}
 *     and use its {@code Mutex} and {@code Cond}. The file's name is removed as soon as both
 *     have it mapped; the second JVM halts when this one's end of its standard input closes,
 *     and is killed when the case closes.</li>
 * <li><b>a JVM and a musl C process</b>: this JVM plays the other side in a thread while
 *     {@code ipc_pingpong file}, linked against musl, measures on the same sync file: musl's
 *     {@code pthread_cond_wait} and the Java {@code Cond} on the same words.</li>
 * </ul>
 * Every case checks, when it closes, that the other side handed back exactly as many turns as
 * it was given. The JVM cases warm up for at least {@link #JVM_WARM_UP_NANOS} (less in runs
 * with very short trials), since the second JVM compiles its loop late. Every run of every case
 * first plays unmeasured for a fifth of its time (the C programs do it themselves), since the
 * processes have slept while the other cases ran.
 */
public final class IpcWorkload implements Workload {
    /** The section and measure. */
    static final String SECTION = "cross-process condvar ping-pong";
    /** The C rows' impl column. */
    static final String C_IMPL = "pthread_mutex + pthread_cond, 2 processes";
    /** The JVM-to-JVM row's impl column. */
    static final String JVMS_IMPL = "Mutex + Cond, 2 JVMs";
    /** The JVM-to-C row's impl column. */
    static final String JVM_C_IMPL = "Mutex + Cond, JVM + musl C process";
    /** Why a sync-file case cannot run without {@code /dev/shm}. */
    static final String NO_SHM = "no " + SyncFile.DEFAULT_DIRECTORY + " directory";

    /**
     * The JVM cases warm up for at least this long (or 20 trials' time, when that is less): the
     * second JVM compiles its side of the loop only after some ten thousand round trips, and a
     * quick mode's 200 ms is a few thousand; measured earlier, its first runs are up to three
     * times slower than the later ones.
     */
    static final long JVM_WARM_UP_NANOS = 2_000_000_000L;
    private static final long START_MILLIS = 60_000;
    private static final long STOP_MILLIS = 30_000;
    private static final AtomicInteger FILES = new AtomicInteger();

    /** Creates the workload. */
    public IpcWorkload() {
    }

    @Override
    public String name() {
        return "ipc";
    }

    @Override
    public String description() {
        return "cross-process ping-pong through a process-shared mutex + condvar: two JVMs on a sync file, a JVM "
            + "and a musl C process on one, two C processes (glibc, the reference; musl)";
    }

    @Override
    public List<Group> plan(final Settings settings) {
        final Path cache = settings.cCache();
        final long warmUp = Math.max(settings.warmUpNanos(), Math.min(JVM_WARM_UP_NANOS, 20 * settings.trialNanos()));
        final List<Case> cases = new ArrayList<>(CPrograms.each(cache, "ipc_pingpong", C_IMPL, "fork"));
        final String noFile = !BenchBackends.kernel() ? BenchBackends.NO_KERNEL
            : !Files.isDirectory(SyncFile.DEFAULT_DIRECTORY) ? NO_SHM : null;
        if (noFile != null) {
            cases.add(Case.skipped(JVMS_IMPL, BenchBackends.PSHARED, noFile));
            cases.add(Case.skipped(JVM_C_IMPL, BenchBackends.PSHARED, noFile));
        } else {
            cases.add(Case.of(JVMS_IMPL, BenchBackends.PSHARED, () -> new JvmPair(warmUp)));
            final Object musl = CPrograms.build(cache, CPrograms.Libc.MUSL, "ipc_pingpong");
            if (musl instanceof Path binary) {
                cases.add(Case.of(JVM_C_IMPL, BenchBackends.PSHARED, () -> new JvmAndC(binary, warmUp)));
            } else {
                cases.add(Case.skipped(JVM_C_IMPL, BenchBackends.PSHARED, (String) musl));
            }
        }
        return List.of(Group.of(SECTION, Measure.time(SECTION, "ns/round-trip"), 2, cases));
    }

    /**
     * @return a fresh sync file in {@code /dev/shm} with the ping-pong's slots
     * @throws IOException when it cannot be created
     */
    static SyncFile createFile() throws IOException {
        final Path path = SyncFile.shmPath("pthread4j-bench-ipc-" + ProcessHandle.current().pid() + "-"
            + FILES.incrementAndGet());
        SyncFile.unlink(path);
        final SyncFile f = SyncFile.create(path, 4);
        try {
            f.mutex(IpcPeer.MUTEX);
            f.cond(IpcPeer.COND);
            f.slot(IpcPeer.TURN_SLOT, SlotType.RAW, IpcPeer.TURN_SLOT_SIZE);
            return f;
        } catch (final RuntimeException e) {
            f.close();
            SyncFile.unlink(path);
            throw e;
        }
    }

    private static void unlinkQuietly(final Path path) {
        try {
            SyncFile.unlink(path);
        } catch (final IOException ignored) {
            // best effort: a name in /dev/shm, nothing else depends on it
        }
    }

    /**
     * This JVM measures (ping) and a second JVM, {@link IpcPeer}, answers (pong).
     */
    static final class JvmPair implements Fixture {
        private final SyncFile file;
        private final Mutex m;
        private final Cond c;
        private final Block turn;
        private final Process peer;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        /** How often a locker waiting for the mutex held by the peer looks whether the peer exited. */
        private static final long PEER_CHECK_MILLIS = 100;
        private volatile boolean peerGone;
        private volatile boolean closing;
        private final long warmUpNanos;
        private long rounds;

        /**
         * Starts the second JVM and waits until it has the file mapped.
         *
         * @param warmUpNanos the least warm-up time
         */
        JvmPair(final long warmUpNanos) throws IOException, InterruptedException {
            this.warmUpNanos = warmUpNanos;
            this.file = createFile();
            final Path path = file.path();
            Process p = null;
            try {
                this.m = file.mutex(IpcPeer.MUTEX);
                this.c = file.cond(IpcPeer.COND);
                this.turn = file.slot(IpcPeer.TURN_SLOT, SlotType.RAW, IpcPeer.TURN_SLOT_SIZE);
                p = new ProcessBuilder(ChildJvm.command(IpcPeer.class.getName(), List.of(path.toString())))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                this.peer = p;
                final Process started = p;
                Thread.ofPlatform().daemon().name("bench-ipc-peer-output").start(() -> readLines(started));
                final String first = lines.poll(START_MILLIS, TimeUnit.MILLISECONDS);
                if (!"ready".equals(first)) {
                    throw new IOException("the peer JVM did not start: "
                        + (first == null ? "no answer in " + START_MILLIS / 1000 + " s" : first));
                }
                // Both processes have the file mapped: its name is no longer needed.
                SyncFile.unlink(path);
                p.onExit().thenRun(this::peerExited);
            } catch (final IOException | InterruptedException | RuntimeException e) {
                if (p != null) {
                    p.destroyForcibly();
                    p.waitFor(STOP_MILLIS, TimeUnit.MILLISECONDS);
                }
                file.close();
                unlinkQuietly(path);
                throw e;
            }
        }

        private void readLines(final Process p) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (final IOException ignored) {
                // the peer is gone; peerExited says so
            }
        }

        /** The peer exited: wake the measuring thread if it waits for a turn that will not come. */
        private void peerExited() {
            if (closing) {
                return;
            }
            peerGone = true;
            try {
                // Under the mutex, so the wakeup cannot fall between the waiter's check and its sleep.
                if (m.timedLock(Timespec.after(Timespec.CLOCK_REALTIME, 10, TimeUnit.SECONDS)) == 0) {
                    c.broadcast();
                    m.unlock();
                }
            } catch (final RuntimeException ignored) {
                // the file was closed meanwhile: nobody waits any more
            }
        }

        private String peerGoneMessage() {
            final String said = String.join("; ", lines);
            return "the peer JVM (pid " + peer.pid() + ") exited"
                + (peer.isAlive() ? "" : " with status " + peer.exitValue()) + (said.isEmpty() ? "" : ": " + said);
        }

        /**
         * Locks the mutex; if the peer holds it, waits in slices, so that a peer killed while
         * holding it (the mutex is not robust: it then stays locked for ever) ends the wait with
         * the peer's exit instead of a hang. The uncontended path is the same single CAS as
         * {@link Mutex#lock()}.
         */
        private void lock() {
            int r = m.tryLock();
            while (r == Errno.EBUSY) {
                if (peerGone) {
                    throw new IllegalStateException(peerGoneMessage());
                }
                r = m.timedLock(Timespec.after(Timespec.CLOCK_REALTIME, PEER_CHECK_MILLIS, TimeUnit.MILLISECONDS));
                if (r == Errno.ETIMEDOUT) {
                    r = Errno.EBUSY;
                }
            }
            IpcPeer.check(r, "lock");
        }

        /** One round trip: wait for turn 0, hand the turn to the peer. */
        private void roundTrip() {
            lock();
            boolean ok = false;
            try {
                while (turn.get(IpcPeer.TURN) != 0) {
                    if (peerGone) {
                        throw new IllegalStateException(peerGoneMessage());
                    }
                    IpcPeer.check(c.await(m), "wait");
                }
                turn.set(IpcPeer.TURN, 1);
                IpcPeer.check(c.signal(), "signal");
                ok = true;
            } finally {
                final int r = m.unlock();
                if (ok) {
                    IpcPeer.check(r, "unlock");
                }
            }
        }

        /**
         * Plays unmeasured for a fifth of the budget, as the C programs do on every run (the
         * second JVM has slept while the other cases ran), then counts round trips over the
         * budget.
         */
        @Override
        public double[] trial(final long budgetNanos) {
            final long w0 = System.nanoTime();
            do {
                roundTrip();
                rounds++;
            } while (System.nanoTime() - w0 < budgetNanos / 5);
            final long t0 = System.nanoTime();
            long count = 0;
            long elapsed;
            do {
                roundTrip();
                count++;
                elapsed = System.nanoTime() - t0;
            } while (elapsed < budgetNanos);
            rounds += count;
            return new double[] {(double) elapsed / count};
        }

        @Override
        public void warmUp(final long budgetNanos) throws Exception {
            Fixture.super.warmUp(Math.max(budgetNanos, warmUpNanos));
        }

        /** @return the second JVM, for tests */
        ProcessHandle peer() {
            return peer.toHandle();
        }

        /** @return the process-shared mutex of the pair, for tests */
        Mutex mutex() {
            return m;
        }

        /** @return the sync file, for tests */
        Path path() {
            return file.path();
        }

        /**
         * Stops the peer and checks that it handed back every turn; then kills it whatever
         * happened, closes the file and removes its name.
         */
        @Override
        public void close() {
            RuntimeException failure = null;
            try {
                if (!peerGone && peer.isAlive()) {
                    // Take the last turn back first, so the peer's count is exact.
                    lock();
                    try {
                        while (turn.get(IpcPeer.TURN) != 0 && !peerGone) {
                            IpcPeer.check(c.await(m), "wait");
                        }
                    } finally {
                        m.unlock();
                    }
                    IpcPeer.stop(m, c, turn);
                    final String stopped = expect("stopped ");
                    final long turns = Long.parseLong(stopped.substring("stopped ".length()));
                    if (turns != rounds) {
                        failure = new IllegalStateException("the peer JVM handed back " + turns + " turns for "
                            + rounds + " round trips");
                    }
                }
            } catch (final RuntimeException e) {
                failure = e;
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = new IllegalStateException("interrupted while stopping the peer JVM", e);
            } finally {
                closing = true;
                try {
                    peer.getOutputStream().close();
                } catch (final IOException ignored) {
                    // it is killed next anyway
                }
                peer.destroyForcibly();
                try {
                    peer.waitFor(STOP_MILLIS, TimeUnit.MILLISECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                file.close();
                unlinkQuietly(file.path());
            }
            if (failure != null) {
                throw failure;
            }
        }

        private String expect(final String prefix) throws InterruptedException {
            final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_MILLIS);
            for (;;) {
                final String line = lines.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IllegalStateException("the peer JVM did not say '" + prefix + "...' within "
                        + STOP_MILLIS / 1000 + " s (alive: " + peer.isAlive() + ")");
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
                if (line.startsWith("error")) {
                    throw new IllegalStateException("the peer JVM failed: " + line);
                }
            }
        }
    }

    /**
     * A musl C process measures (ping, {@code ipc_pingpong file}) and a thread of this JVM
     * answers (pong) on the same sync file. The C process is started per trial and kills
     * itself when this JVM's thread that started it ends (its parent-death signal).
     */
    static final class JvmAndC implements Fixture {
        private final Path binary;
        private final SyncFile file;
        private final Mutex m;
        private final Cond c;
        private final Block turn;
        private final String[] args;
        private final Thread pong;
        private volatile long turns = -1;
        private volatile Throwable failure;
        private final long warmUpNanos;
        private long rounds;

        /**
         * Creates the file and starts the pong thread.
         *
         * @param binary      {@code ipc_pingpong} built against musl
         * @param warmUpNanos the least warm-up time
         */
        JvmAndC(final Path binary, final long warmUpNanos) throws IOException {
            this.binary = binary;
            this.warmUpNanos = warmUpNanos;
            this.file = createFile();
            try {
                this.m = file.mutex(IpcPeer.MUTEX);
                this.c = file.cond(IpcPeer.COND);
                this.turn = file.slot(IpcPeer.TURN_SLOT, SlotType.RAW, IpcPeer.TURN_SLOT_SIZE);
                this.args = new String[] {"file", file.path().toString(), offset(IpcPeer.MUTEX), offset(IpcPeer.COND),
                    offset(IpcPeer.TURN_SLOT)};
            } catch (final RuntimeException e) {
                file.close();
                unlinkQuietly(file.path());
                throw e;
            }
            this.pong = Thread.ofPlatform().daemon().name("bench-ipc-pong").start(() -> {
                try {
                    turns = IpcPeer.pong(m, c, turn);
                } catch (final Throwable t) {
                    failure = t;
                }
            });
        }

        private String offset(final String name) {
            return Long.toString(file.find(name).orElseThrow().offset());
        }

        @Override
        public double[] trial(final long budgetNanos) throws IOException, InterruptedException {
            checkPong();
            final double[] f = CPrograms.run(binary, args, budgetNanos);
            if (f.length != 2 || !(f[1] >= 1)) {
                throw new IOException("ipc_pingpong file printed " + f.length + " figures, not ns and round trips");
            }
            rounds += (long) f[1];
            checkPong();
            return new double[] {f[0]};
        }

        @Override
        public void warmUp(final long budgetNanos) throws Exception {
            Fixture.super.warmUp(Math.max(budgetNanos, warmUpNanos));
        }

        private void checkPong() {
            final Throwable t = failure;
            if (t != null) {
                throw new IllegalStateException("the pong thread failed: " + t, t);
            }
        }

        /** Stops the pong thread and checks that it handed back every turn the C process gave it. */
        @Override
        public void close() {
            RuntimeException problem = null;
            try {
                if (pong.isAlive()
                    && m.timedLock(Timespec.after(Timespec.CLOCK_REALTIME, 10, TimeUnit.SECONDS)) == 0) {
                    turn.set(IpcPeer.STOP, 1);
                    c.broadcast();
                    m.unlock();
                }
                Threads.join(pong, STOP_MILLIS);
                if (pong.isAlive()) {
                    problem = new IllegalStateException("the pong thread did not stop");
                } else if (failure == null && turns != rounds) {
                    problem = new IllegalStateException("the pong thread handed back " + turns + " turns for "
                        + rounds + " round trips of the C process");
                }
            } catch (final RuntimeException e) {
                problem = e;
            } finally {
                file.close(); // wakes the pong thread if it still sleeps on the file
                Threads.join(pong, 1_000);
                unlinkQuietly(file.path());
            }
            if (problem != null) {
                throw problem;
            }
        }
    }
}
