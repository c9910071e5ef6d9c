package org.pthread4j;

import org.pthread4j.futex.Timespec;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.futex.Futex;
import org.pthread4j.futex.ParkingFutex;
import org.pthread4j.futex.FutexTrace;
import org.pthread4j.internal.ThreadIds;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.Sleepers;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The futex trace records exactly the operations the primitives issue, in scenarios whose
 * operations are known: the fast paths issue none; a contended mutex one wake and one wait; a
 * two-waiter condvar broadcast one wake from the broadcaster, then one requeue and one wake from
 * the first woken waiter; a read-write lock and a semaphore wake by musl's rules. Every sleeper
 * is seen asleep before the thread that releases it moves, so the counts are exact. These are
 * the figures {@code docs/} quotes and {@code ./pthread4j demo trace} prints.
 */
class FutexTraceScenarioTest {
    private static final Duration LIVENESS = Duration.ofSeconds(60);

    private Memory memory;

    @BeforeEach
    void setUp() {
        memory = Memory.allocate(4096);
        FutexTrace.enable(4096);
    }

    @AfterEach
    void tearDown() {
        FutexTrace.disable();
        memory.close();
    }

    /** A platform thread running one body, with its kernel tid for {@link Sleepers}. */
    static final class Party {
        final Thread thread;
        final CompletableFuture<Integer> result = new CompletableFuture<>();
        volatile int tid;

        Party(final String name, final IntSupplier body) {
            thread = Thread.ofPlatform().daemon().name(name).start(() -> {
                tid = ThreadIds.current();
                try {
                    result.complete(body.getAsInt());
                } catch (final Throwable t) {
                    result.completeExceptionally(t);
                }
            });
            while (tid == 0) {
                Thread.onSpinWait();
            }
        }

        /** Waits until the thread sleeps in the futex layer on {@code address} and {@code also} holds. */
        Party asleepOn(final long address, final BooleanSupplier also) {
            final long end = System.nanoTime() + LIVENESS.toNanos();
            while (!also.getAsBoolean()) {
                if (System.nanoTime() > end) {
                    fail(thread.getName() + " never reached the expected state");
                }
                Thread.onSpinWait();
                Thread.yield();
            }
            Sleepers.awaitAsleep(thread, tid, address, LIVENESS);
            return this;
        }

        int get() throws Exception {
            return result.get(LIVENESS.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** The recorded operations issued by a thread. */
    static List<FutexTrace.Event> by(final String thread) {
        return FutexTrace.snapshot().stream().filter(e -> e.thread().equals(thread)).toList();
    }

    /** The recorded operations on one word. */
    static List<FutexTrace.Event> on(final long address) {
        return FutexTrace.snapshot().stream().filter(e -> e.address() == address).toList();
    }

    static void assertEvent(final FutexTrace.Event e, final String op, final long address, final long value,
                            final int result) {
        assertEquals(op, e.op(), e.toString());
        assertEquals(address, e.address(), e.toString());
        assertEquals(value, e.value(), e.toString());
        assertEquals(result, e.result(), e.toString());
    }

    /**
     * A first sleep on a private mutex or rwlock word that held {@code seen}: under the parking
     * protocol the parking backend's set-bit-and-wait that may join queued sleepers (recorded
     * with the bit), under musl's the CAS of bit 31 and a wait on the value with the bit.
     */
    static void assertLockSleep(final Futex futex, final FutexTrace.Event e, final long address, final int seen) {
        if (futex instanceof ParkingFutex) {
            assertEvent(e, "set_bit_wait_join", address, MutexLayout.WAITERS_BIT, 0);
            assertEquals(0, e.address2(), e.toString());
        } else {
            assertEvent(e, "wait", address, seen | MutexLayout.WAITERS_BIT, 0);
        }
    }

    static void await(final CountDownLatch latch) {
        try {
            assertTrue(latch.await(LIVENESS.toSeconds(), TimeUnit.SECONDS), "latch");
        } catch (final InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void uncontendedPathsOfEveryPrimitiveIssueNoFutexOperation(final Futex futex) {
        final String me = Thread.currentThread().getName();
        for (final int kind : new int[] {MutexAttr.NORMAL, MutexAttr.RECURSIVE, MutexAttr.ERRORCHECK}) {
            final Mutex m = new Mutex(memory.block(0, MutexLayout.SIZE, 8),
                MutexAttr.builder().type(kind).futex(futex).build());
            assertEquals(0, m.lock());
            assertEquals(0, m.unlock());
            assertEquals(0, m.tryLock());
            assertEquals(0, m.unlock());
            assertEquals(0, m.timedLock(Timespec.after(Timespec.CLOCK_REALTIME, 1, TimeUnit.SECONDS)));
            assertEquals(0, m.unlock());
        }
        final Mutex m = new Mutex(memory.block(0, MutexLayout.SIZE, 8), MutexAttr.builder().futex(futex).build());
        final Cond c = new Cond(memory.block(64, CondLayout.SIZE, 8), CondAttr.builder().futex(futex).build());
        assertEquals(0, c.signal());
        assertEquals(0, c.broadcast());
        final RwLock rw = new RwLock(memory.block(128, RwLockLayout.SIZE, 8), RwLockAttr.privateOn(futex));
        assertEquals(0, rw.rdLock());
        assertEquals(0, rw.rdLock());
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.unlock());
        assertEquals(0, rw.wrLock());
        assertEquals(0, rw.unlock());
        final Sem s = new Sem(memory.block(192, SemLayout.SIZE, 4), false, 1, futex);
        assertEquals(0, s.await());
        assertEquals(0, s.post());
        assertEquals(0, s.tryAwait());
        assertEquals(0, s.post());
        final Once once = new Once(memory.block(256, OnceLayout.SIZE, 4), false, futex);
        assertEquals(0, once.run(() -> { }));
        assertEquals(0, once.run(() -> fail("ran twice")));
        final SpinLock spin = new SpinLock(memory.block(260, SpinLockLayout.SIZE, 4));
        assertEquals(0, spin.lock());
        assertEquals(0, spin.unlock());
        final Barrier one = new Barrier(memory.block(320, BarrierLayout.SIZE, 8),
            BarrierAttr.builder().futex(futex).build(), 1);
        assertEquals(Barrier.SERIAL_THREAD, one.await());
        assertEquals(List.of(), by(me), "a fast path issued a futex operation");
        assertEquals(Mutex.State.FREE, m.state());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aContendedMutexIssuesOneWakeAndTheSleepersOneWait(final Futex futex) throws Exception {
        final Block b = memory.block(0, MutexLayout.SIZE, 8);
        final Mutex m = new Mutex(b, MutexAttr.builder().futex(futex).build());
        final long lock = b.address(MutexLayout.LOCK);
        final String me = Thread.currentThread().getName();
        assertEquals(0, m.lock());
        final Party t2 = new Party("T2", () -> {
            final int r = m.lock();
            return r != 0 ? r : m.unlock();
        }).asleepOn(lock, () -> m.waiterCount() == 1);
        assertEquals(0x80000010, b.get(MutexLayout.LOCK), "EBUSY with the waiters bit");
        assertEquals(List.of(), on(lock), "a sleeping wait is recorded only when it returns");
        assertEquals(0, m.unlock());
        assertEquals(0, t2.get());

        final List<FutexTrace.Event> mine = by(me);
        assertEquals(1, mine.size(), mine.toString());
        assertEvent(mine.getFirst(), "wake", lock, 1, 1);
        final List<FutexTrace.Event> its = by("T2");
        assertEquals(1, its.size(), "T2 relocked with a plain CAS and its unlock woke nobody: " + its);
        assertLockSleep(futex, its.getFirst(), lock, 0x10);
        assertEquals(2, on(lock).size());
    }

    /**
     * docs/sources.md, "musl: the mutex" (a count and a bit): two threads sleep on a held mutex; the unlock wakes one, which takes
     * the lock while the other still sleeps. musl's plain CAS from 0 drops the waiters bit there
     * and only {@code _m_waiters} remembers the second sleeper (musl's protocol, the kernel
     * backends); under the parking protocol's bit rule (see {@link Mutex}) the acquisition from
     * the sleeping loop records the bit again because {@code _m_waiters} is nonzero. Either way
     * the first one's unlock wakes the second.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aSleeperAcquiringWhileAnotherSleepsRecordsTheBitAndItsUnlockWakesIt(final Futex futex) throws Exception {
        final Block b = memory.block(0, MutexLayout.SIZE, 8);
        final Mutex m = new Mutex(b, MutexAttr.builder().futex(futex).build());
        final long lock = b.address(MutexLayout.LOCK);
        final CountDownLatch acquired = new CountDownLatch(1);
        final CountDownLatch mayUnlock = new CountDownLatch(1);
        final java.util.concurrent.atomic.AtomicReference<String> owner = new java.util.concurrent.atomic.AtomicReference<>();
        final IntSupplier body = () -> {
            final int r = m.lock();
            owner.compareAndSet(null, Thread.currentThread().getName());
            acquired.countDown();
            await(mayUnlock);
            return r != 0 ? r : m.unlock();
        };
        assertEquals(0, m.lock());
        final Party t2 = new Party("T2", body).asleepOn(lock, () -> m.waiterCount() == 1);
        final Party t3 = new Party("T3", body).asleepOn(lock, () -> m.waiterCount() == 2);
        assertEquals(0, m.unlock());
        await(acquired);
        if (m.sleepProtocol() == SleepProtocol.PARKING) {
            assertEquals(Errno.EBUSY | MutexLayout.WAITERS_BIT, b.get(MutexLayout.LOCK),
                "the new owner's CAS 0 -> EBUSY recorded the bit: another sleeper is counted");
        } else {
            assertEquals(Errno.EBUSY, b.get(MutexLayout.LOCK), "musl's plain CAS 0 -> EBUSY");
        }
        assertEquals(1, m.waiterCount(), "the other sleeper is still counted");
        final Party sleeper = owner.get().equals("T2") ? t3 : t2;
        assertTrue(Sleepers.isAsleep(sleeper.thread, sleeper.tid, lock), "the other one still sleeps");
        mayUnlock.countDown();
        assertEquals(0, t2.get());
        assertEquals(0, t3.get());
        final List<FutexTrace.Event> wakes = on(lock).stream().filter(e -> e.op().equals("wake")).toList();
        assertEquals(2, wakes.size(), "the test thread's unlock and the first owner's unlock: " + wakes);
        for (final FutexTrace.Event e : wakes) {
            assertEquals(1, e.result(), e.toString());
        }
        assertEquals(Mutex.State.FREE, m.state());
        assertEquals(0, m.waiterCount());
    }

    /**
     * Broadcast to two sleeping waiters, the mutex free (musl's path; with the mutex held see
     * the next test): the broadcast issues exactly one futex
     * call, a wake of the oldest waiter's barrier. That waiter, holding the mutex, requeues the
     * second from its barrier onto the mutex word (moved, not woken: it is still asleep while the
     * first holds the mutex), and its unlock wakes it. Two wakes, one requeue, two waits in all;
     * under the parking protocol the second, relocking as a thread the mutex woke while the
     * group's count is up, records bit 31, and its unlock issues one more wake, which finds
     * nobody.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aTwoWaiterBroadcastIsOneWakeThenTheFirstWaiterRequeuesTheSecond(final Futex futex) throws Exception {
        final Block mb = memory.block(0, MutexLayout.SIZE, 8);
        final Block cb = memory.block(64, CondLayout.SIZE, 8);
        final Mutex m = new Mutex(mb, MutexAttr.builder().futex(futex).build());
        final Cond c = new Cond(cb, CondAttr.builder().futex(futex).build());
        final long lock = mb.address(MutexLayout.LOCK);
        final boolean[] flag = new boolean[1];
        final CountDownLatch w1Returned = new CountDownLatch(1);
        final CountDownLatch w1MayUnlock = new CountDownLatch(1);
        final String me = Thread.currentThread().getName();

        final Party w1 = new Party("W1", () -> {
            int r = m.lock();
            while (r == 0 && !flag[0]) {
                r = c.await(m);
            }
            w1Returned.countDown();
            await(w1MayUnlock);
            return r != 0 ? r : m.unlock();
        });
        final long w1Barrier = awaitNewHead(cb, 0) + CondLayout.NODE_BARRIER;
        w1.asleepOn(w1Barrier, () -> true);
        final Party w2 = new Party("W2", () -> {
            int r = m.lock();
            while (r == 0 && !flag[0]) {
                r = c.await(m);
            }
            return r != 0 ? r : m.unlock();
        });
        final long w2Barrier = awaitNewHead(cb, w1Barrier - CondLayout.NODE_BARRIER) + CondLayout.NODE_BARRIER;
        w2.asleepOn(w2Barrier, () -> true);
        assertEquals(List.of(), FutexTrace.snapshot().stream().filter(e -> e.address() == lock
            || e.address() == w1Barrier || e.address() == w2Barrier).toList(), "nothing before the broadcast");

        assertEquals(0, m.lock());
        flag[0] = true;
        assertEquals(0, m.unlock());
        assertEquals(0, c.broadcast());
        final List<FutexTrace.Event> mine = by(me);
        assertEquals(1, mine.size(), "the broadcast itself issues one futex call: " + mine);
        assertEvent(mine.getFirst(), "wake", w1Barrier, 1, 1);

        await(w1Returned);
        final List<FutexTrace.Event> first = by("W1");
        assertEquals(2, first.size(), first.toString());
        assertEvent(first.get(0), "wait", w1Barrier, CondLayout.CONTENDED, 0);
        final FutexTrace.Event requeue = first.get(1);
        assertEvent(requeue, "requeue", w2Barrier, 1L, 1);
        assertEquals(lock, requeue.address2(), "moved onto the mutex word");
        assertTrue(Sleepers.isAsleep(w2.thread, w2.tid, w2Barrier), "the requeued waiter was woken");
        assertFalse(w2.result.isDone());
        assertEquals(List.of(), by("W2"));
        assertEquals(0x80000010, mb.get(MutexLayout.LOCK), "W1 set the waiters bit for its own unlock");
        assertEquals(1, m.waiterCount(), "the group holds _m_waiters up while it drains");

        w1MayUnlock.countDown();
        assertEquals(0, w1.get());
        assertEquals(0, w2.get());
        final List<FutexTrace.Event> w1All = by("W1");
        assertEquals(3, w1All.size(), w1All.toString());
        assertEvent(w1All.get(2), "wake", lock, 1, 1);
        final List<FutexTrace.Event> w2All = by("W2");
        assertEvent(w2All.getFirst(), "wait", w2Barrier, CondLayout.CONTENDED, 0);
        if (m.sleepProtocol() == SleepProtocol.PARKING) {
            assertEquals(2, w2All.size(), "W2 recorded bit 31 when it relocked; its unlock wakes: " + w2All);
            assertEvent(w2All.get(1), "wake", lock, 1, 0);
        } else {
            assertEquals(1, w2All.size(), "W2 relocked uncontended and, last of the group, woke nobody: " + w2All);
        }
        assertEquals(0, m.waiterCount());
        assertEquals(1, by(me).size());
    }

    /** @return the condvar's new {@code _c_head} node address once it differs from {@code before} */
    private static long awaitNewHead(final Block cb, final long before) {
        final long end = System.nanoTime() + LIVENESS.toNanos();
        long head;
        while ((head = cb.getLong(CondLayout.HEAD)) == before || head == 0) {
            if (System.nanoTime() > end) {
                fail("no waiter joined the condvar");
            }
            Thread.onSpinWait();
        }
        return head;
    }

    /**
     * docs/04-rwlock.md: the last reader's unlock wakes the writer (one: only writers sleep
     * behind readers). Under musl's protocol the writer's unlock wakes every sleeper
     * ({@code cnt}, 0x7fffffff), both readers asleep behind it get in, and their unlocks wake
     * nobody. Under the parking protocol it wakes one, the first reader, which gets in while the
     * second is counted, records bit 31 and passes a wake on (the readers' chain); the last
     * reader's unlock then wakes once more and finds nobody.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void theLastReaderWakesOneWriterAndAWritersUnlockLetsEveryReaderIn(final Futex futex) throws Exception {
        final Block b = memory.block(0, RwLockLayout.SIZE, 8);
        final RwLock rw = new RwLock(b, RwLockAttr.privateOn(futex));
        final long lock = b.address(RwLockLayout.LOCK);
        final String me = Thread.currentThread().getName();
        final CountDownLatch writerMayUnlock = new CountDownLatch(1);
        final CountDownLatch readersMayUnlock = new CountDownLatch(1);
        assertEquals(0, rw.rdLock());
        assertEquals(0, rw.rdLock());
        final Party w = new Party("W", () -> {
            final int r = rw.wrLock();
            await(writerMayUnlock);
            return r != 0 ? r : rw.unlock();
        }).asleepOn(lock, () -> rw.waiterCount() == 1);
        assertEquals(0x80000002, b.get(RwLockLayout.LOCK));
        assertEquals(0, rw.unlock());
        assertEquals(List.of(), by(me), "a reader that is not the last wakes nobody");
        assertEquals(0, rw.unlock());
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (!rw.isWriteLocked()) {
            assertTrue(System.nanoTime() < end, "the writer never got the lock");
            Thread.onSpinWait();
        }
        final Party r3 = new Party("R3", () -> {
            final int r = rw.rdLock();
            await(readersMayUnlock);
            return r != 0 ? r : rw.unlock();
        }).asleepOn(lock, () -> rw.waiterCount() == 1);
        final Party r4 = new Party("R4", () -> {
            final int r = rw.rdLock();
            await(readersMayUnlock);
            return r != 0 ? r : rw.unlock();
        }).asleepOn(lock, () -> rw.waiterCount() == 2);
        writerMayUnlock.countDown();
        assertEquals(0, w.get());
        while (rw.readerCount() != 2) {
            assertTrue(System.nanoTime() < end + LIVENESS.toNanos(), "both readers must get in: " + rw);
            Thread.onSpinWait();
        }
        readersMayUnlock.countDown();
        assertEquals(0, r3.get());
        assertEquals(0, r4.get());
        assertEquals(0, rw.word());

        final List<FutexTrace.Event> mine = by(me);
        assertEquals(1, mine.size(), mine.toString());
        assertEvent(mine.getFirst(), "wake", lock, 1, 1);
        final List<FutexTrace.Event> writer = by("W");
        assertEquals(2, writer.size(), writer.toString());
        assertLockSleep(futex, writer.get(0), lock, 2);
        final List<FutexTrace.Event> first = by("R3");
        final List<FutexTrace.Event> second = by("R4");
        assertLockSleep(futex, first.getFirst(), lock, RwLockLayout.WRITE_LOCKED);
        assertLockSleep(futex, second.getFirst(), lock, RwLockLayout.WRITE_LOCKED);
        if (rw.sleepProtocol() == SleepProtocol.PARKING) {
            assertEvent(writer.get(1), "wake", lock, 1, 1);
            assertEvent(first.get(1), "wake", lock, 1, 1);
            assertEquals(4, first.size() + second.size(), "two sleeps, the chain's wake and one last wake: " + first + second);
            final FutexTrace.Event last = first.size() == 3 ? first.get(2) : second.get(1);
            assertEvent(last, "wake", lock, 1, 0);
        } else {
            assertEvent(writer.get(1), "wake", lock, RwLockLayout.WRITE_LOCKED, 2);
            assertEquals(1, first.size(), first.toString());
            assertEquals(1, second.size(), second.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aPostWakesAllWhenItSawOneWaiterAndOneWhenItSawMore(final Futex futex) throws Exception {
        final Block b = memory.block(0, SemLayout.SIZE, 4);
        final Sem s = new Sem(b, false, 0, futex);
        final long word = b.address(SemLayout.VALUE);
        final String me = Thread.currentThread().getName();
        final Party a = new Party("A", s::await).asleepOn(word, () -> s.waiterCount() == 1);
        assertEquals(0, s.post());
        assertEquals(0, a.get());
        List<FutexTrace.Event> mine = by(me);
        assertEquals(1, mine.size(), mine.toString());
        assertEvent(mine.getFirst(), "wake", word, -1, 1);

        final Party a2 = new Party("A2", s::await).asleepOn(word, () -> s.waiterCount() == 1);
        final Party b2 = new Party("B2", s::await).asleepOn(word, () -> s.waiterCount() == 2);
        assertEquals(0x80000000, b.get(SemLayout.VALUE));
        assertEquals(0, s.post());
        final long end = System.nanoTime() + LIVENESS.toNanos();
        while (!(a2.result.isDone() || b2.result.isDone()) || s.waiterCount() != 1) {
            assertTrue(System.nanoTime() < end, "no waiter took the permit");
            Thread.onSpinWait();
        }
        assertEquals(0x80000000, b.get(SemLayout.VALUE), "two waiters seen: the bit stays");
        assertEquals(0, s.post());
        assertEquals(0, a2.get());
        assertEquals(0, b2.get());
        mine = by(me);
        assertEquals(3, mine.size(), mine.toString());
        assertEvent(mine.get(1), "wake", word, 1, 1);
        assertEvent(mine.get(2), "wake", word, -1, 1);
        for (final String t : List.of("A", "A2", "B2")) {
            final List<FutexTrace.Event> its = by(t);
            assertEquals(1, its.size(), t + ": " + its);
            assertEvent(its.getFirst(), "wait", word, 0x80000000, 0);
        }
    }
}
