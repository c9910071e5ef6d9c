package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.ForwardingFutex;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.block;
import static org.pthread4j.MutexTestSupport.memory;

/**
 * Sleeping on the wake sequence ({@link SeqSleep}, {@link MutexLayout#SEQ},
 * {@link RwLockLayout#SEQ}): a process-private mutex or rwlock on a backend whose set-bit-and-wait
 * is not atomic sleeps on a word that moves only when a wake is due. Each test builds the
 * interleaving that strands a sleeper if the unlock did not move the sequence before releasing.
 */
class MutexSeqSleepTest {

    /** Holds one target thread just before its first wait on the sequence, until the test says go. */
    static final class PausesBeforeWait extends ForwardingFutex {
        volatile Thread target;
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);
        final AtomicInteger firstResult = new AtomicInteger(-1);

        PausesBeforeWait(final Futex delegate) {
            super(delegate);
        }

        @Override
        public int timedWait(final MemorySegment seg, final long off, final int val, final boolean priv,
                             final int clock, final Timespec deadline, final boolean interruptible) {
            if (Thread.currentThread() != target || paused.getCount() == 0) {
                return delegate.timedWait(seg, off, val, priv, clock, deadline, interruptible);
            }
            paused.countDown();
            try {
                go.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            final int r = delegate.timedWait(seg, off, val, priv, clock, deadline, interruptible);
            firstResult.set(r);
            return r;
        }

        /**
         * Starts the target thread, which locks and then unlocks, and waits until it is held on its
         * way into its first wait.
         *
         * @return the thread's result: 0, or the first nonzero errno of its lock and unlock
         */
        CompletableFuture<Integer> startHeld(final java.util.function.IntSupplier lock,
                                             final java.util.function.IntSupplier unlock) throws InterruptedException {
            final CompletableFuture<Integer> done = new CompletableFuture<>();
            final Thread t = Thread.ofPlatform().daemon().unstarted(() -> {
                final int r = lock.getAsInt();
                done.complete(r != 0 ? r : unlock.getAsInt());
            });
            target = t;
            t.start();
            assertTrue(paused.await(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the thread never tried to sleep");
            return done;
        }

        /**
         * Lets the held thread go on into its wait, which must return at once (the sequence moved
         * meanwhile), and waits until the thread has set bit 31 of the lock word again.
         */
        void letGoAndAwaitReArm(final Block b, final long lock, final java.util.function.Supplier<String> state)
            throws InterruptedException {
            go.countDown();
            final long end = System.nanoTime() + LIVENESS.toNanos();
            while (firstResult.get() < 0 && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertEquals(Errno.EAGAIN, firstResult.get(), "the wait on the old sequence returned at once");
            while (b.get(lock) >= 0 && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertTrue(b.get(lock) < 0, "the sleeper set bit 31 again: " + state.get());
        }
    }

    /**
     * The sleeper read the sequence (0) and set bit 31, and is held on its way into the wait. The
     * holder unlocks (the wake finds nobody asleep) and relocks through the fast path, which drops
     * the bit. The sleeper's wait must return at once, because the unlock moved the sequence,
     * and the sleeper must then set the bit again, so that the next unlock wakes it. Had the
     * unlock not moved the sequence, the sleeper would sleep on a word no unlock will wake.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.pthread4j.MutexTestSupport#privateKindArgs")
    void aSleeperOnItsWayInSeesTheMoveOfAnUnlockThatDroppedItsBit(final Futex backend, final int kind)
        throws Exception {
        final PausesBeforeWait futex = new PausesBeforeWait(backend);
        try (Memory mem = memory()) {
            final Block b = block(mem, 0);
            final Mutex m = new Mutex(b, MutexAttr.builder().type(kind).futex(futex).build());
            assertEquals(MutexLayout.SEQ, m.sleepOffset(), "a composed set-bit-and-wait sleeps on the sequence");
            assertEquals(0, m.lock());

            final CompletableFuture<Integer> done = futex.startHeld(m::lock, m::unlock);
            assertTrue(b.get(MutexLayout.LOCK) < 0, "the sleeper set bit 31 before its wait: " + m);
            assertEquals(0, b.get(MutexLayout.SEQ));

            assertEquals(0, m.unlock());
            assertEquals(1, b.get(MutexLayout.SEQ), "an unlock that clears bit 31 moves the sequence");
            assertEquals(0, m.lock(), "relock through the fast path");
            assertTrue(b.get(MutexLayout.LOCK) >= 0, "the fast path's CAS from 0 dropped the bit: " + m);

            futex.letGoAndAwaitReArm(b, MutexLayout.LOCK, m::toString);
            assertEquals(0, m.unlock());
            assertEquals(0, done.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the sleeper was stranded: " + m);
            futex.target.join(LIVENESS.toMillis());
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.waiterCount());
            assertEquals(2, b.get(MutexLayout.SEQ), "two unlocks cleared the bit");
        }
    }

    /**
     * The same interleaving on a read-write lock: a reader is held on its way to sleep behind the
     * writer; the writer unlocks (its release clears bit 31, so it moves the sequence first) and
     * write-locks again through the fast path, dropping the bit. The reader's wait must return at
     * once and the reader must set the bit again, so that the next unlock wakes it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aReaderOnItsWayInSeesTheMoveOfAWritersUnlockThatDroppedItsBit(final Futex backend) throws Exception {
        final PausesBeforeWait futex = new PausesBeforeWait(backend);
        try (Memory mem = Memory.allocate(RwLockLayout.SIZE)) {
            final Block b = mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT);
            final RwLock rw = new RwLock(b, RwLockAttr.privateOn(futex));
            assertEquals(RwLockLayout.SEQ, rw.sleepOffset());
            assertEquals(0, rw.wrLock());
            final CompletableFuture<Integer> done = futex.startHeld(rw::rdLock, rw::unlock);
            assertEquals(RwLockLayout.WRITE_LOCKED | RwLockLayout.WAITERS_BIT, b.get(RwLockLayout.LOCK));

            assertEquals(0, rw.unlock());
            assertEquals(1, b.get(RwLockLayout.SEQ), "a release that clears bit 31 moves the sequence");
            assertEquals(0, rw.tryWrLock(), "write-lock again through the fast path");
            assertEquals(RwLockLayout.WRITE_LOCKED, b.get(RwLockLayout.LOCK), "the fast path dropped the bit");

            futex.letGoAndAwaitReArm(b, RwLockLayout.LOCK, rw::toString);
            assertEquals(0, rw.unlock());
            assertEquals(0, done.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS), "the reader was stranded: " + rw);
            futex.target.join(LIVENESS.toMillis());
            assertEquals(0, b.get(RwLockLayout.LOCK));
            assertEquals(2, b.get(RwLockLayout.SEQ));
        }
    }

    /** How long each handoff stress runs. */
    private static final long STRESS_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

    /**
     * Two threads hand one mutex back and forth as fast as they can, for 1.5 s, so that each of
     * them keeps sleeping, taking wakes and acquiring with bit 31 recorded for the other: every
     * interleaving of a sleeper's read of the sequence, its sight of the bit and the unlock's
     * steps comes up. Both must finish; a lost wakeup leaves one asleep. (This caught a sleeper
     * that relied on a bit already set and read the sequence between an unlock's move and its
     * release: the unlock now clears the bit before it moves the sequence.)
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.pthread4j.MutexTestSupport#privateKindArgs")
    void twoThreadsHandingAMutexBackAndForthNeverLoseAWakeup(final Futex backend, final int kind) throws Exception {
        try (Memory mem = memory()) {
            final Mutex m = new Mutex(block(mem, 0), MutexAttr.builder().type(kind).futex(backend).build());
            handOff(m::lock, m::unlock, m::toString);
            assertEquals(Mutex.State.FREE, m.state());
            assertEquals(0, m.waiterCount());
        }
    }

    /** {@link #twoThreadsHandingAMutexBackAndForthNeverLoseAWakeup} for a read-write lock: one writer, one reader. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aWriterAndAReaderHandingARwLockBackAndForthNeverLoseAWakeup(final Futex backend) throws Exception {
        try (Memory mem = Memory.allocate(RwLockLayout.SIZE)) {
            final RwLock rw = new RwLock(mem.block(0, RwLockLayout.SIZE, RwLockLayout.ALIGNMENT),
                RwLockAttr.privateOn(backend));
            handOff(() -> Thread.currentThread().getName().endsWith("0") ? rw.wrLock() : rw.rdLock(), rw::unlock,
                rw::toString);
            assertEquals(0, rw.word());
            assertEquals(0, rw.waiterCount());
        }
    }

    /** Runs lock/unlock on two threads ("handoff-0", "handoff-1") for {@link #STRESS_NANOS}; both must finish. */
    private static void handOff(final java.util.function.IntSupplier lock, final java.util.function.IntSupplier unlock,
                                final java.util.function.Supplier<String> state) throws Exception {
        final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        final AtomicInteger errors = new AtomicInteger();
        final Thread[] ts = new Thread[2];
        for (int i = 0; i < 2; i++) {
            ts[i] = Thread.ofPlatform().daemon().name("handoff-" + i).start(() -> {
                // A volatile flag, not the clock: the handoffs must follow each other as closely as they can.
                while (!stop.get()) {
                    if (lock.getAsInt() != 0 || unlock.getAsInt() != 0) {
                        errors.incrementAndGet();
                        return;
                    }
                }
            });
        }
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(STRESS_NANOS));
        stop.set(true);
        for (final Thread t : ts) {
            t.join(LIVENESS.toMillis());
            assertTrue(!t.isAlive(), t.getName() + " did not finish (a lost wakeup): " + state.get());
        }
        assertEquals(0, errors.get());
    }

    /** Which mutexes sleep where: only private mutexes under the bit rule on a non-atomic backend use the sequence. */
    @Test
    void onlyPrivateMutexesOnAKernelBackendSleepOnTheSequence() {
        try (Memory mem = memory()) {
            for (final int kind : new int[] {MutexAttr.NORMAL, MutexAttr.RECURSIVE, MutexAttr.ERRORCHECK}) {
                assertEquals(MutexLayout.LOCK, new Mutex(block(mem, 0),
                    MutexAttr.builder().type(kind).futex(Futexes.parking()).build()).sleepOffset());
                assertEquals(MutexLayout.SEQ, new Mutex(block(mem, 0),
                    MutexAttr.builder().type(kind).futex(Futexes.linux()).build()).sleepOffset());
                assertEquals(MutexLayout.SEQ, new Mutex(block(mem, 0),
                    MutexAttr.builder().type(kind).futex(Futexes.linuxNoPrivate()).build()).sleepOffset());
                assertEquals(MutexLayout.LOCK, new Mutex(block(mem, 0),
                    MutexAttr.builder().type(kind).pshared(true).build()).sleepOffset(), "musl's protocol: shared");
                assertEquals(MutexLayout.LOCK, new Mutex(block(mem, 0),
                    MutexAttr.builder().type(kind).robust(true).build()).sleepOffset(), "musl's protocol: robust");
            }
        }
    }
}
