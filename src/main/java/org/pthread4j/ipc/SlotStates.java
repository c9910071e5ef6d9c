package org.pthread4j.ipc;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Decodes the words of a slot into the state a person wants to see: who holds a mutex and
 * whether that thread still lives, how many wait on a condvar, readers and writer of a rwlock,
 * a semaphore's value. Pure reading: it is given words read without any lock, each exact at
 * the moment it was read. Word indexes are those of musl's x86_64 types (pthread_impl.h).
 */
final class SlotStates {
    /** A decoded state: one line for people, named values for machines. */
    record State(String summary, Map<String, Object> fields) {
    }

    private static final int OWNER_MASK = 0x3fff_ffff;
    private static final int OWNER_DIED = 0x4000_0000;
    private static final int VIRTUAL_BASE = 1 << 29;

    private SlotStates() {
    }

    /**
     * @param type  the slot's type
     * @param words the block's first words (all of them for the primitives)
     * @return its state
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

    /** _m_type [0], _m_lock [1], _m_waiters [2], _m_count [5]. */
    private static State mutex(final int[] w) {
        final int type = w[0];
        final int lock = w[1];
        final int waiters = w[2];
        final boolean tracked = (type & 15) != 0;
        final boolean robust = (type & 4) != 0;
        final String kind = switch (type & 3) {
            case 1 -> "recursive";
            case 2 -> "errorcheck";
            case 3 -> "kind3";
            default -> "normal";
        };
        final Map<String, Object> f = map();
        f.put("kind", kind);
        f.put("robust", robust);
        f.put("pshared", (type & 128) != 0);
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
        if ((type & 3) == 1) {
            f.put("count", w[5]);
        }
        final StringBuilder s = new StringBuilder(kind).append(robust ? " robust" : "").append(", ");
        s.append(lock == 0 ? "free" : who);
        s.append(", ").append(waiters).append(waiters == 1 ? " waiter" : " waiters");
        if ((type & 3) == 1 && lock != 0) {
            s.append(", recursion count ").append(w[5]);
        }
        return new State(s.toString(), f);
    }

    private static String thread(final int id, final Map<String, Object> f) {
        if (id >= VIRTUAL_BASE) {
            f.put("ownerAlive", null);
            return "virtual thread id " + id;
        }
        final Liveness.Status st = Liveness.status(id);
        f.put("ownerAlive", st == Liveness.Status.UNKNOWN ? null : st == Liveness.Status.ALIVE);
        return "tid " + id + " (" + st.name().toLowerCase(Locale.ROOT) + ")";
    }

    /** _c_shared [0..1] (pointer, -1 when shared), _c_seq [2], _c_waiters [3], _c_clock [4]. */
    private static State cond(final int[] w) {
        final boolean shared = w[0] == -1 && w[1] == -1;
        final Map<String, Object> f = map();
        f.put("pshared", shared);
        f.put("clock", w[4] == 1 ? "monotonic" : w[4] == 0 ? "realtime" : Integer.toString(w[4]));
        if (shared) {
            final int waiters = w[3] & 0x7fff_ffff;
            f.put("waiters", waiters);
            f.put("seq", w[2]);
            return new State(waiters + (waiters == 1 ? " waiter" : " waiters") + ", seq " + w[2] + ", clock "
                + f.get("clock"), f);
        }
        f.put("waiters", null);
        return new State("process-private (its waiter list lives in one process's memory)", f);
    }

    /** _rw_lock [0], _rw_waiters [1], _rw_shared [2]. */
    private static State rwlock(final int[] w) {
        final int lock = w[0];
        final int waiters = w[1];
        final int held = lock & 0x7fff_ffff;
        final Map<String, Object> f = map();
        f.put("pshared", w[2] != 0);
        final String s;
        if (held == 0x7fff_ffff) {
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

    /** __val[0] value and waiters bit, __val[1] waiter count, __val[2] 128 when private. */
    private static State sem(final int[] w) {
        final int value = w[0] & 0x7fff_ffff;
        final Map<String, Object> f = map();
        f.put("value", value);
        f.put("waiters", w[1]);
        f.put("waitersBit", w[0] < 0);
        f.put("pshared", w[2] == 0);
        return new State("value " + value + ", " + w[1] + (w[1] == 1 ? " waiter" : " waiters"), f);
    }

    /** _b_lock [0], _b_waiters [1], _b_limit [2], _b_count [3], _b_waiters2 [4]. */
    private static State barrier(final int[] w) {
        final int limit = w[2];
        final boolean shared = limit < 0;
        final int count = (limit & 0x7fff_ffff) + 1;
        final Map<String, Object> f = map();
        f.put("pshared", shared);
        f.put("count", count);
        if (shared) {
            f.put("arrived", w[3]);
            f.put("waiters", w[4]);
            f.put("entryLocked", w[0] != 0);
            return new State("count " + count + ", " + w[3] + " arrived in this cycle, " + w[4] + " waiting", f);
        }
        return new State("count " + count + ", process-private", f);
    }

    private static State once(final int w) {
        final String s = switch (w) {
            case 0 -> "not run";
            case 1 -> "running";
            case 2 -> "done";
            case 3 -> "running, with waiters";
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
