package org.pthread4j;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pthread4j.FutexTraceScenarioTest.Party;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.ForwardingFutex;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/sources.md, "musl: invariants" 1: a releasing operation reads everything it needs before its releasing
 * atomic and afterwards only issues a futex wake, so the thread it releases may free the memory
 * at once (POSIX allows destroying a mutex or read-write lock right after unlocking it, and a
 * semaphore after the last wait: glibc bug 12674, musl commit 88c4e720). Here the backend's
 * wake does not return to the releasing primitive until the woken thread has closed the memory;
 * a release that touched its memory after the wake would throw {@code IllegalStateException}.
 * (That nothing is read between the releasing atomic and the wake is a property of the code's
 * order, not something this test can force.)
 */
class ReleaseThenFreeTest {
    /** A backend whose wakes return only once the watched memory has been closed. */
    static final class WaitForFree extends ForwardingFutex {
        private volatile Memory watched;

        WaitForFree(final Futex delegate) {
            super(delegate);
        }

        @Override
        public int wake(final MemorySegment seg, final long off, final int n, final boolean priv) {
            final int r = delegate.wake(seg, off, n, priv);
            final Memory m = watched;
            if (m != null && r > 0) {
                final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (m.isOpen() && System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
            }
            return r;
        }

        @Override
        public String name() {
            return "wait-for-free(" + delegate.name() + ")";
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aMutexMayBeFreedByTheThreadItsUnlockWoke(final Futex backend) throws Exception {
        final WaitForFree futex = new WaitForFree(backend);
        final Memory memory = Memory.allocate(64);
        futex.watched = memory;
        try {
            final Block b = memory.block(0, MutexLayout.SIZE, 8);
            final Mutex m = new Mutex(b, MutexAttr.builder().futex(futex).build());
            assertEquals(0, m.lock());
            final Party next = new Party("T2", () -> {
                final int r = m.lock() | m.unlock();
                memory.close();
                return r;
            }).asleepOn(b.address(MutexLayout.LOCK), () -> m.waiterCount() == 1);
            assertEquals(0, m.unlock());
            assertEquals(0, next.get());
            assertTrue(!memory.isOpen());
        } finally {
            memory.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aReadWriteLockMayBeFreedByTheWriterTheLastReadersUnlockWoke(final Futex backend) throws Exception {
        final WaitForFree futex = new WaitForFree(backend);
        final Memory memory = Memory.allocate(64);
        futex.watched = memory;
        try {
            final Block b = memory.block(0, RwLockLayout.SIZE, 8);
            final RwLock rw = new RwLock(b, RwLockAttr.privateOn(futex));
            assertEquals(0, rw.rdLock());
            final Party writer = new Party("W", () -> {
                final int r = rw.wrLock() | rw.unlock();
                memory.close();
                return r;
            }).asleepOn(b.address(RwLockLayout.LOCK), () -> rw.waiterCount() == 1);
            assertEquals(0, rw.unlock());
            assertEquals(0, writer.get());
        } finally {
            memory.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.pthread4j.testing.Backends#privateBackends")
    void aSemaphoreMayBeFreedByTheWaiterThatTookThePostedPermit(final Futex backend) throws Exception {
        final WaitForFree futex = new WaitForFree(backend);
        final Memory memory = Memory.allocate(64);
        futex.watched = memory;
        try {
            final Block b = memory.block(0, SemLayout.SIZE, 4);
            final Sem s = new Sem(b, false, 0, futex);
            final Party waiter = new Party("A", () -> {
                final int r = s.await();
                memory.close();
                return r;
            }).asleepOn(b.address(SemLayout.VALUE), () -> s.waiterCount() == 1);
            assertEquals(0, s.post());
            assertEquals(0, waiter.get());
        } finally {
            memory.close();
        }
    }
}
