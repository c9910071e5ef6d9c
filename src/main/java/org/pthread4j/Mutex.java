package org.pthread4j;

import org.pthread4j.futex.Futex;
import org.pthread4j.futex.Futexes;
import org.pthread4j.futex.ThreadIds;
import org.pthread4j.memory.Block;

import static org.pthread4j.MutexLayout.*;

/**
 * Interim stand-in for the mutex branch's {@code Mutex}: musl's lock/timedlock/trylock/unlock
 * word protocol for the non-robust kinds, enough for the condition variable to be built and
 * tested against. Replaced wholesale when the mutex lands.
 */
public final class Mutex {
    private final Block block;
    private final Futex futex;
    private final boolean priv;
    private final int type;

    /**
     * @param block 40 bytes
     * @param attr  attributes
     */
    public Mutex(final Block block, final MutexAttr attr) {
        this.block = block;
        block.clear();
        int t = attr.type() | (attr.robust() ? ROBUST : 0) | (attr.pshared() ? PSHARED : 0);
        block.set(TYPE, t);
        this.type = t;
        this.priv = !attr.pshared();
        this.futex = priv ? (attr.futex() != null ? attr.futex() : Futexes.defaultPrivate()) : Futexes.shared();
    }

    private Mutex(final Block block) {
        this.block = block;
        this.type = block.get(TYPE);
        this.priv = (type & PSHARED) == 0;
        this.futex = priv ? Futexes.defaultPrivate() : Futexes.shared();
    }

    /** @param block an initialized block @return a view */
    public static Mutex attach(final Block block) {
        return new Mutex(block);
    }

    Block block() {
        return block;
    }

    Futex futex() {
        return futex;
    }

    boolean priv() {
        return priv;
    }

    int type() {
        return type;
    }

    /** @return 0 or an errno */
    public int lock() {
        if ((type & 15) == NORMAL && block.cas(LOCK, 0, Errno.EBUSY) == 0) {
            return 0;
        }
        return timedlock(Timespec.CLOCK_REALTIME, null, false);
    }

    /** @return 0, EINTR or an errno */
    public int lockInterruptibly() {
        return timedlock(Timespec.CLOCK_REALTIME, null, true);
    }

    /** @param at deadline @return 0 or an errno */
    public int timedlock(final Timespec at) {
        return timedlock(Timespec.CLOCK_REALTIME, at, false);
    }

    /** @return 0 or EBUSY */
    public int trylock() {
        if ((type & 15) == NORMAL) {
            return block.cas(LOCK, 0, Errno.EBUSY) & Errno.EBUSY;
        }
        final int tid = ThreadIds.current();
        final int old = block.get(LOCK);
        final int own = old & OWNER_MASK;
        if (own == tid && (type & KIND_MASK) == RECURSIVE) {
            final int c = block.get(COUNT);
            if (c < 0 || c == Integer.MAX_VALUE) {
                return Errno.EAGAIN;
            }
            block.set(COUNT, c + 1);
            return 0;
        }
        if (own == 0x3fffffff) {
            return Errno.ENOTRECOVERABLE;
        }
        if (own != 0 || old != 0) {
            return Errno.EBUSY;
        }
        if (block.cas(LOCK, old, tid) != old) {
            return Errno.EBUSY;
        }
        return 0;
    }

    /**
     * @param clock clock of {@code at}
     * @param at deadline or null
     * @param interruptible whether an interrupt ends the wait
     * @return 0 or an errno
     */
    public int timedlock(final int clock, final Timespec at, final boolean interruptible) {
        if ((type & 15) == NORMAL && block.cas(LOCK, 0, Errno.EBUSY) == 0) {
            return 0;
        }
        int r = trylock();
        if (r != Errno.EBUSY) {
            return r;
        }
        int spins = 100;
        while (spins-- > 0 && block.get(LOCK) != 0 && block.get(WAITERS) == 0) {
            Thread.onSpinWait();
        }
        while ((r = trylock()) == Errno.EBUSY) {
            r = block.get(LOCK);
            final int own = r & OWNER_MASK;
            if (own == 0 && r == 0) {
                continue;
            }
            if ((type & KIND_MASK) == ERRORCHECK && own == ThreadIds.current()) {
                return Errno.EDEADLK;
            }
            block.getAndAdd(WAITERS, 1);
            final int t = r | WAITERS_BIT;
            block.cas(LOCK, r, t);
            r = futex.timedWait(block.segment(), LOCK, t, priv, clock, at, interruptible);
            block.getAndAdd(WAITERS, -1);
            if (r == Errno.EAGAIN) {
                r = 0;
            }
            if (r != 0) {
                break;
            }
        }
        return r;
    }

    /** @return 0 or EPERM */
    public int unlock() {
        final int waiters = block.get(WAITERS);
        if ((type & 15) != NORMAL) {
            final int old = block.get(LOCK);
            if ((old & OWNER_MASK) != ThreadIds.current()) {
                return Errno.EPERM;
            }
            if ((type & KIND_MASK) == RECURSIVE && block.get(COUNT) != 0) {
                block.set(COUNT, block.get(COUNT) - 1);
                return 0;
            }
        }
        final int cont = block.getAndSet(LOCK, 0);
        if (waiters != 0 || cont < 0) {
            futex.wake(block.segment(), LOCK, 1, priv);
        }
        return 0;
    }

    /** @return whether the caller owns it (owner-tracked kinds) */
    public boolean isHeldByCurrentThread() {
        return (block.get(LOCK) & OWNER_MASK) == ThreadIds.current();
    }

    /** @return the owner id or 0 */
    public int ownerId() {
        return block.get(LOCK) & OWNER_MASK;
    }
}
