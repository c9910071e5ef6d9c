package org.pthread4j.ipc;

import org.pthread4j.BarrierLayout;
import org.pthread4j.CondLayout;
import org.pthread4j.MutexLayout;
import org.pthread4j.OnceLayout;
import org.pthread4j.RwLockLayout;
import org.pthread4j.SemLayout;
import org.pthread4j.internal.ThreadIds;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Decodes the words of a slot into the state a person wants to see: who holds a mutex and
 * whether that thread still lives, how many wait on a condvar, readers and writer of a rwlock,
 * a semaphore's value. Pure reading: it is given words read without any lock, each exact at
 * the moment it was read. Offsets and bits come from the primitives' layout classes, which
 * name musl's fields ({@code pthread_impl.h}).
 */
final class SlotStates {
    /** A decoded state: one line for people, named values for machines. */
    record State(String summary, Map<String, Object> fields) {
    }

    private static final int OWNER_MASK = MutexLayout.OWNER_MASK;
    private static final int OWNER_DIED = MutexLayout.OWNER_DIED;

    private SlotStates() {
    }

    /**
     * {@return its state}
     *
     * @param type  the slot's type
     * @param words the block's first words (all of them for the primitives)
     */
    static State decode(final SlotType type, final int[] words) {
        return switch (type) {
            case MUTEX -> mutex(words);
            case COND -> cond(words);
            case RWLOCK -> rwlock(words);
            case SEM -> sem(words);
            case BARRIER -> barrier(words);
            case ONCE -> once(words[0]);
            case SPIN -> spin(words[0]);
            case DOORBELL -> doorbell(words);
            case RAW -> raw(words);
        };
    }

    private static Map<String, Object> map() {
        return new LinkedHashMap<>();
    }

    private static int word(final int[] w, final int offset) {
        return w[offset / 4];
    }

    /** {@code _m_type}, {@code _m_lock}, {@code _m_waiters}, {@code _m_count}. */
    private static State mutex(final int[] w) {
        final int type = word(w, MutexLayout.TYPE);
        final int lock = word(w, MutexLayout.LOCK);
        final int waiters = word(w, MutexLayout.WAITERS);
        final int recursion = word(w, MutexLayout.COUNT);
        final boolean tracked = (type & MutexLayout.OWNER_TRACKED_MASK) != 0;
        final boolean robust = (type & MutexLayout.ROBUST) != 0;
        final boolean recursive = (type & MutexLayout.KIND_MASK) == MutexLayout.RECURSIVE;
        final String kind = switch (type & MutexLayout.KIND_MASK) {
            case MutexLayout.RECURSIVE -> "recursive";
            case MutexLayout.ERRORCHECK -> "errorcheck";
            case MutexLayout.NORMAL -> "normal";
            default -> "kind" + (type & MutexLayout.KIND_MASK);
        };
        final Map<String, Object> f = map();
        f.put("kind", kind);
        f.put("robust", robust);
        f.put("pshared", (type & MutexLayout.PSHARED) != 0);
        final boolean fair = (type & MutexLayout.FAIR) != 0;
        if (fair) {
            f.put("fair", true);
            f.put("ticket", word(w, MutexLayout.TICKET) & 0x3fffffff);
            f.put("serving", word(w, MutexLayout.SERVING) & 0x3fffffff);
        }
        final String state;
        final int owner = lock & OWNER_MASK;
        final Map<String, Object> alive = map();
        String who = "";
        if (lock == 0) {
            state = "free";
        } else if (!tracked) {
            state = "locked";
            who = "locked (no owner recorded)";
        } else if (owner == OWNER_MASK) {
            state = "unrecoverable";
            who = "unrecoverable";
        } else if ((lock & OWNER_DIED) != 0) {
            state = owner == 0 ? "owner-died" : "inconsistent";
            who = owner == 0 ? "owner died (the next locker gets EOWNERDEAD)"
                : "held by " + thread(owner, alive) + " after EOWNERDEAD, not yet consistent";
        } else {
            state = "held";
            who = "held by " + thread(owner, alive);
        }
        f.put("state", state);
        if (!alive.isEmpty()) {
            f.put("owner", owner);
            f.putAll(alive);
        }
        f.put("waiters", waiters);
        f.put("waitersBit", lock < 0);
        if (recursive) {
            f.put("count", recursion);
        }
        final StringBuilder s = new StringBuilder(kind).append(robust ? " robust" : "").append(fair ? " fair" : "")
            .append(", ");
        s.append(lock == 0 ? "free" : who);
        s.append(", ").append(waiters).append(waiters == 1 ? " waiter" : " waiters");
        if (recursive && lock != 0) {
            s.append(", recursion count ").append(recursion);
        }
        return new State(s.toString(), f);
    }

    private static String thread(final int id, final Map<String, Object> f) {
        if (!ThreadIds.isKernelTid(id)) {
            f.put("ownerAlive", null);
            return "virtual thread id " + id;
        }
        final Liveness.Status st = Liveness.status(id);
        f.put("ownerAlive", st == Liveness.Status.UNKNOWN ? null : st == Liveness.Status.ALIVE);
        return "tid " + id + " (" + st.name().toLowerCase(Locale.ROOT) + ")";
    }

    /** {@code _c_shared} (a pointer, -1 when shared), {@code _c_seq}, {@code _c_waiters}, {@code _c_clock}. */
    private static State cond(final int[] w) {
        final boolean shared = word(w, CondLayout.SHARED) == -1 && word(w, CondLayout.SHARED + 4) == -1;
        final int clock = word(w, CondLayout.CLOCK);
        final int seq = word(w, CondLayout.SEQ);
        final Map<String, Object> f = map();
        f.put("pshared", shared);
        f.put("clock", clock == 1 ? "monotonic" : clock == 0 ? "realtime" : Integer.toString(clock));
        if (shared) {
            final int waiters = word(w, CondLayout.WAITERS) & ~CondLayout.WAITERS_DESTROY;
            f.put("waiters", waiters);
            f.put("seq", seq);
            return new State(waiters + (waiters == 1 ? " waiter" : " waiters") + ", seq " + seq + ", clock "
                + f.get("clock"), f);
        }
        f.put("waiters", null);
        return new State("process-private (its waiter list lives in one process's memory)", f);
    }

    /** {@code _rw_lock}, {@code _rw_waiters}, {@code _rw_shared}. */
    private static State rwlock(final int[] w) {
        final int lock = word(w, RwLockLayout.LOCK);
        final int waiters = word(w, RwLockLayout.WAITERS);
        final int held = lock & RwLockLayout.COUNT_MASK;
        final Map<String, Object> f = map();
        f.put("pshared", word(w, RwLockLayout.SHARED) != 0);
        final String s;
        if (held == RwLockLayout.WRITE_LOCKED) {
            f.put("state", "write-locked");
            f.put("readers", 0);
            s = "write-locked";
        } else if (held == 0) {
            f.put("state", "free");
            f.put("readers", 0);
            s = "free";
        } else {
            f.put("state", "read-locked");
            f.put("readers", held);
            s = held + (held == 1 ? " reader" : " readers");
        }
        f.put("waiters", waiters);
        f.put("waitersBit", lock < 0);
        return new State(s + ", " + waiters + (waiters == 1 ? " waiter" : " waiters"), f);
    }

    /** {@code __val[0]} value and waiters bit, {@code __val[1]} waiter count, {@code __val[2]} privacy. */
    private static State sem(final int[] w) {
        final int val = word(w, SemLayout.VALUE);
        final int value = val & SemLayout.SEM_VALUE_MAX;
        final int waiters = word(w, SemLayout.WAITERS);
        final Map<String, Object> f = map();
        f.put("value", value);
        f.put("waiters", waiters);
        f.put("waitersBit", (val & SemLayout.WAITERS_BIT) != 0);
        f.put("pshared", word(w, SemLayout.FLAGS) != SemLayout.PRIVATE);
        return new State("value " + value + ", " + waiters + (waiters == 1 ? " waiter" : " waiters"), f);
    }

    /** {@code _b_lock}, {@code _b_limit}, {@code _b_count}, {@code _b_waiters2}. */
    private static State barrier(final int[] w) {
        final int limit = word(w, BarrierLayout.LIMIT);
        final boolean shared = (limit & BarrierLayout.PSHARED) != 0;
        final int count = (limit & ~BarrierLayout.PSHARED) + 1;
        final int arrived = word(w, BarrierLayout.COUNT);
        final int waiting = word(w, BarrierLayout.WAITERS2);
        final Map<String, Object> f = map();
        f.put("pshared", shared);
        f.put("count", count);
        if (shared) {
            f.put("arrived", arrived);
            f.put("waiters", waiting);
            f.put("entryLocked", word(w, BarrierLayout.LOCK) != 0);
            return new State("count " + count + ", " + arrived + " arrived in this cycle, " + waiting + " waiting", f);
        }
        return new State("count " + count + ", process-private", f);
    }

    private static State once(final int w) {
        final String s = switch (w) {
            case OnceLayout.NOT_RUN -> "not run";
            case OnceLayout.RUNNING -> "running";
            case OnceLayout.DONE -> "done";
            case OnceLayout.RUNNING_WAITERS -> "running, with waiters";
            default -> String.format("bad word 0x%08x", w);
        };
        final Map<String, Object> f = map();
        f.put("state", s);
        return new State(s, f);
    }

    private static State spin(final int w) {
        final Map<String, Object> f = map();
        f.put("locked", w != 0);
        return new State(w == 0 ? "free" : "locked", f);
    }

    private static State doorbell(final int[] w) {
        final Map<String, Object> f = map();
        f.put("seq", w[0]);
        f.put("sleepers", w[1]);
        return new State("seq " + w[0] + ", " + w[1] + (w[1] == 1 ? " sleeper" : " sleepers"), f);
    }

    private static State raw(final int[] w) {
        final StringBuilder hex = new StringBuilder();
        for (final int x : w) {
            if (!hex.isEmpty()) {
                hex.append(' ');
            }
            hex.append(String.format("%08x", x));
        }
        final Map<String, Object> f = map();
        f.put("words", hex.toString());
        return new State("words " + hex, f);
    }
}
