package org.pthread4j.cli.workload;

import org.pthread4j.futex.Errno;
import org.pthread4j.cli.bench.Fixture;
import org.pthread4j.futex.Futex;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Seed 003's swap test: two threads, each with its own word. A round trip is one
 * {@code swapOp} by the measuring thread: set its own word to WAITING, set the partner's to
 * WAKEUP, wake the partner, and sleep until its own word is WAKEUP again, which the partner
 * does by the same steps in the other direction. The figure is ns per round trip. Both threads
 * are platform threads, or both virtual threads (the measuring loop then runs in a virtual thread
 * started for each trial).
 */
abstract class PingPong implements Fixture {
    /** The seed's FUTEX_WAITING. */
    static final int WAITING = 0;
    /** The seed's FUTEX_WAKEUP. */
    static final int WAKEUP = 1;

    private final Thread partner;
    private final boolean virtual;
    private volatile boolean stop;
    private volatile Throwable failure;

    PingPong() {
        this(false);
    }

    PingPong(final boolean virtual) {
        this.virtual = virtual;
        this.partner = (virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon())
            .name("bench-pingpong-partner").unstarted(this::partnerLoop);
    }

    /** Starts the partner; called at the end of a subclass constructor. */
    final void start() {
        partner.start();
    }

    /** The measuring thread's half of a round trip. */
    abstract void mainOp();

    /** The partner's half: wake the measuring thread, then sleep until woken. */
    abstract void partnerOp();

    /** The partner's first sleep, until the first round trip wakes it. */
    abstract void partnerFirstWait();

    /** Wakes the partner for good after {@link #stop} was set. */
    abstract void releasePartner();

    /** Wakes the measuring thread after a partner failure. */
    abstract void releaseMain();

    private void partnerLoop() {
        try {
            partnerFirstWait();
            while (!stop) {
                partnerOp();
            }
        } catch (final Throwable t) {
            failure = t;
            stop = true;
            releaseMain();
        }
    }

    @Override
    public double[] trial(final long budgetNanos) throws InterruptedException {
        if (!virtual) {
            return new double[] {loop(budgetNanos)};
        }
        final double[] figure = new double[1];
        final Throwable[] thrown = new Throwable[1];
        final Thread main = Thread.ofVirtual().name("bench-pingpong-main").start(() -> {
            try {
                figure[0] = loop(budgetNanos);
            } catch (final Throwable t) {
                thrown[0] = t;
            }
        });
        main.join();
        if (thrown[0] instanceof RuntimeException e) {
            throw e;
        }
        if (thrown[0] != null) {
            throw new IllegalStateException("the measuring thread failed: " + thrown[0], thrown[0]);
        }
        return figure;
    }

    private double loop(final long budgetNanos) {
        final long t0 = System.nanoTime();
        long count = 0;
        long elapsed;
        do {
            mainOp();
            count++;
            elapsed = System.nanoTime() - t0;
        } while (elapsed < budgetNanos && !stop);
        if (failure != null) {
            throw new IllegalStateException("partner thread failed: " + failure, failure);
        }
        return (double) elapsed / count;
    }

    @Override
    public void close() {
        stop = true;
        releasePartner();
        Threads.join(partner, 10_000);
    }

    /** The round trip on futex words, as wake + wait or as the swap operation. */
    static final class OnFutex extends PingPong {
        private static final long MAIN = 0;
        private static final long PARTNER = 64;

        private final Futex futex;
        private final boolean useSwap;
        private final Memory memory;
        private final MemorySegment seg;

        OnFutex(final Futex futex, final boolean useSwap, final boolean virtual) {
            super(virtual);
            this.futex = futex;
            this.useSwap = useSwap;
            this.memory = Memory.allocate(128);
            this.seg = memory.segment();
            start();
        }

        private void op(final long self, final long other) {
            Block.INT.setVolatile(seg, self, WAITING);
            Block.INT.setVolatile(seg, other, WAKEUP);
            if (useSwap) {
                check(futex.swap(seg, self, WAITING, seg, other, true));
            } else {
                final int r = futex.wake(seg, other, 1, true);
                if (r < 0) {
                    throw new IllegalStateException("wake returned " + Errno.name(-r));
                }
            }
            await(self);
        }

        private void await(final long self) {
            while ((int) Block.INT.getVolatile(seg, self) == WAITING) {
                check(futex.wait(seg, self, WAITING, true));
            }
        }

        private static void check(final int r) {
            if (r != 0 && r != Errno.EAGAIN) {
                throw new IllegalStateException("wait returned " + Errno.name(r));
            }
        }

        @Override
        void mainOp() {
            op(MAIN, PARTNER);
        }

        @Override
        void partnerOp() {
            op(PARTNER, MAIN);
        }

        @Override
        void partnerFirstWait() {
            await(PARTNER);
        }

        @Override
        void releasePartner() {
            Block.INT.setVolatile(seg, PARTNER, WAKEUP);
            futex.wake(seg, PARTNER, 1, true);
        }

        @Override
        void releaseMain() {
            Block.INT.setVolatile(seg, MAIN, WAKEUP);
            futex.wake(seg, MAIN, 1, true);
        }

        @Override
        public void close() {
            super.close();
            memory.close();
        }
    }

    /** The reference: the same round trip with {@link LockSupport#park()} and {@link LockSupport#unpark}. */
    static final class OnLockSupport extends PingPong {
        private final AtomicInteger mainWord = new AtomicInteger();
        private final AtomicInteger partnerWord = new AtomicInteger();
        private volatile Thread mainThread;
        private volatile Thread partnerThread;

        OnLockSupport(final boolean virtual) {
            super(virtual);
            start();
        }

        private void op(final AtomicInteger self, final AtomicInteger other, final Thread otherThread) {
            self.set(WAITING);
            other.set(WAKEUP);
            LockSupport.unpark(otherThread);
            while (self.get() == WAITING) {
                LockSupport.park(this);
            }
        }

        @Override
        void mainOp() {
            mainThread = Thread.currentThread();
            while (partnerThread == null) {
                Thread.onSpinWait();
            }
            op(mainWord, partnerWord, partnerThread);
        }

        @Override
        void partnerOp() {
            op(partnerWord, mainWord, mainThread);
        }

        @Override
        void partnerFirstWait() {
            partnerThread = Thread.currentThread();
            while (partnerWord.get() == WAITING) {
                LockSupport.park(this);
            }
        }

        @Override
        void releasePartner() {
            partnerWord.set(WAKEUP);
            final Thread t = partnerThread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }

        @Override
        void releaseMain() {
            mainWord.set(WAKEUP);
            final Thread t = mainThread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }
}
