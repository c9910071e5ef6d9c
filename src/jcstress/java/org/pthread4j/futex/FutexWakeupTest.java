package org.pthread4j.futex;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;
import org.pthread4j.memory.Block;

import java.lang.foreign.MemorySegment;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * No lost wakeup: a waiter that saw the word at 0 and a waker that sets it to 1 and then wakes
 * always meet, whatever the interleaving of the compare, the enqueue, the store and the wake.
 */
public class FutexWakeupTest {
    /** A zeroed word of its own for each state, freed by the GC with the state. */
    static MemorySegment freshWord() {
        return java.lang.foreign.Arena.ofAuto().allocate(4, 4);
    }

    abstract static class Base {
        final MemorySegment word = freshWord();
        final Futex futex;

        Base(final Futex futex) {
            this.futex = futex;
        }

        void await() {
            while ((int) Block.INT.getVolatile(word, 0L) == 0) {
                futex.wait(word, 0, 0, true);
            }
        }

        void release() {
            Block.INT.setVolatile(word, 0L, 1);
            futex.wake(word, 0, 1, true);
        }

        /** Sets the word, moves its sleeper to {@code target}, wakes there, then on the word. */
        void releaseThroughRequeue(final MemorySegment target) {
            Block.INT.setVolatile(word, 0L, 1);
            futex.requeue(word, 0, 0, 1, target, 0, true);
            futex.wake(target, 0, 1, true);
            futex.wake(word, 0, 1, true);
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Parking backend: set the word, then wake; the waiter must terminate.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup")
    @State
    public static class Parking extends Base {
        public Parking() {
            super(Futexes.parking());
        }

        @Actor
        public void waiter() {
            await();
        }

        @Signal
        public void waker() {
            release();
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Kernel backend, private flag: set the word, then wake; the waiter must terminate.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup")
    @State
    public static class Linux extends Base {
        public Linux() {
            super(Futexes.linux());
        }

        @Actor
        public void waiter() {
            await();
        }

        @Signal
        public void waker() {
            release();
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Kernel backend with the private flag refused (musl's fallback path).")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup")
    @State
    public static class LinuxNoPrivate extends Base {
        public LinuxNoPrivate() {
            super(Futexes.linuxNoPrivate());
        }

        @Actor
        public void waiter() {
            await();
        }

        @Signal
        public void waker() {
            release();
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Parking backend, requeue: the waiter is moved to a second word, and a wake there reaches it.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup through requeue")
    @State
    public static class ParkingRequeue extends Base {
        final MemorySegment target = freshWord();

        public ParkingRequeue() {
            super(Futexes.parking());
        }

        @Actor
        public void waiter() {
            await();
        }

        @Signal
        public void waker() {
            releaseThroughRequeue(target);
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Kernel backend, requeue: the waiter is moved to a second word, and a wake there reaches it.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup through requeue")
    @State
    public static class LinuxRequeue extends Base {
        final MemorySegment target = freshWord();

        public LinuxRequeue() {
            super(Futexes.linux());
        }

        @Actor
        public void waiter() {
            await();
        }

        @Signal
        public void waker() {
            releaseThroughRequeue(target);
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Parking backend, set-and-wait: the waiter sets 1 -> 2 and sleeps; the waker's swap to 0 wakes it.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup in set-and-wait")
    @State
    public static class ParkingSetWait extends Base {
        public ParkingSetWait() {
            super(Futexes.parking());
            Block.INT.setVolatile(word, 0L, 1); // "locked"
        }

        @Actor
        public void waiter() {
            int v;
            while ((v = (int) Block.INT.getVolatile(word, 0L)) != 0) {
                futex.setWait(word, 0, 1, 2, true, org.pthread4j.futex.Timespec.CLOCK_MONOTONIC, null, false);
            }
        }

        @Signal
        public void waker() {
            // an unlock of seed 000's 3-state lock: swap to 0, wake if it was contended
            if ((int) Block.INT.getAndSet(word, 0L, 0) == 2) {
                futex.wake(word, 0, 1, true);
            }
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Parking backend, set-bit-and-wait (seed 000 for lock words): the waiter sets bit 31 into"
        + " whatever busy value the word holds and sleeps; the unlocker first moves the word to another"
        + " busy value (a new holder), then releases it and wakes if the swap returned the bit. The"
        + " waiter must terminate.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken, or never slept")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup")
    @State
    public static class ParkingSetBitWait extends Base {
        public ParkingSetBitWait() {
            super(Futexes.parking());
            Block.INT.setVolatile(word, 0L, 5); // held by "5"
        }

        @Actor
        public void waiter() {
            while (((int) Block.INT.getVolatile(word, 0L) & 0x7fffffff) != 0) {
                futex.setBitWait(word, 0, 0x80000000, 1, false, true, org.pthread4j.futex.Timespec.CLOCK_MONOTONIC, null,
                    false);
            }
        }

        @Signal
        public void waker() {
            // the holder hands the lock to "7" keeping the bit, then "7" unlocks
            int v;
            do {
                v = (int) Block.INT.getVolatile(word, 0L);
            } while ((int) Block.INT.compareAndExchange(word, 0L, v, 7 | (v & 0x80000000)) != v);
            if ((int) Block.INT.getAndSet(word, 0L, 0) < 0) {
                futex.wake(word, 0, 1, true);
            }
        }
    }
    /**
     * Runs a waiter's body on a virtual thread and joins it: on the kernel backends a virtual
     * thread waits in the JVM's table, not in {@code FUTEX_WAIT}, and the waker's wake must find
     * it there. An interrupt of the actor (the harness's, at the end) does not end the join.
     */
    static void onVirtualThread(final Runnable body) {
        final Thread v = Thread.ofVirtual().start(body);
        boolean interrupted = false;
        for (;;) {
            try {
                v.join();
                break;
            } catch (final InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Kernel backend, a virtual waiter (parked in the JVM's table): set the word, then wake.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup")
    @State
    public static class LinuxVirtual extends Base {
        public LinuxVirtual() {
            super(Futexes.linux());
        }

        @Actor
        public void waiter() {
            onVirtualThread(this::await);
        }

        @Signal
        public void waker() {
            release();
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Kernel backend with the private flag refused, a virtual waiter: set the word, then wake.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup")
    @State
    public static class LinuxNoPrivateVirtual extends Base {
        public LinuxNoPrivateVirtual() {
            super(Futexes.linuxNoPrivate());
        }

        @Actor
        public void waiter() {
            onVirtualThread(this::await);
        }

        @Signal
        public void waker() {
            release();
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Kernel backend, a virtual waiter moved by a requeue to a second word: a wake there reaches it.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup through requeue")
    @State
    public static class LinuxVirtualRequeue extends Base {
        final MemorySegment target = freshWord();

        public LinuxVirtualRequeue() {
            super(Futexes.linux());
        }

        @Actor
        public void waiter() {
            onVirtualThread(this::await);
        }

        @Signal
        public void waker() {
            releaseThroughRequeue(target);
        }
    }

    @JCStressTest(Mode.Termination)
    @Description("Kernel backend, a shared word, a virtual waiter (parked in the JVM's table in slices):"
        + " set the word, then wake.")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wakeup")
    @State
    public static class LinuxSharedVirtual extends Base {
        public LinuxSharedVirtual() {
            super(Futexes.linux());
        }

        @Actor
        public void waiter() {
            onVirtualThread(() -> {
                while ((int) Block.INT.getVolatile(word, 0L) == 0) {
                    futex.wait(word, 0, 0, false);
                }
            });
        }

        @Signal
        public void waker() {
            Block.INT.setVolatile(word, 0L, 1);
            futex.wake(word, 0, 1, false);
        }
    }
}
