package org.pthread4j.futex;

import org.pthread4j.internal.ThreadTable;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ThreadTable}: a thread finds its own entry only, and a bad table or entry is refused. */
class ThreadTableTest {
    static final class Mine extends ThreadTable.Entry {
    }

    @Test
    void aThreadFindsTheEntryItStoredAndNothingBefore() {
        final Mine[] table = new Mine[ThreadTable.length(16)];
        assertNull(ThreadTable.get(table));
        final Mine m = new Mine();
        assertEquals(Thread.currentThread().threadId(), m.threadId());
        assertSame(m, ThreadTable.put(table, m));
        assertSame(m, ThreadTable.get(table));
    }

    /** One slot: every thread shares it, and a thread that finds another's entry there gets null, never that entry. */
    @Test
    void aThreadNeverTakesAnotherThreadsEntryForItsOwn() throws Exception {
        final Mine[] table = new Mine[ThreadTable.length(1)];
        final Mine mine = ThreadTable.put(table, new Mine());
        final CompletableFuture<Object[]> other = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            final Mine before = ThreadTable.get(table);
            final Mine its = ThreadTable.put(table, new Mine());
            other.complete(new Object[] {before, its, ThreadTable.get(table)});
        });
        final Object[] seen = other.get(30, TimeUnit.SECONDS);
        assertNull(seen[0], "the other thread found this thread's entry in the shared slot and took it for its own");
        assertSame(seen[1], seen[2]);
        assertNull(ThreadTable.get(table), "the other thread's entry took the slot: a miss, not its entry");
        assertSame(mine, ThreadTable.put(table, mine));
        assertSame(mine, ThreadTable.get(table));
    }

    @Test
    void anEntryMadeByAnotherThreadIsRefusedAndTheSlotKept() throws Exception {
        final Mine[] table = new Mine[ThreadTable.length(4)];
        final Mine mine = ThreadTable.put(table, new Mine());
        final CompletableFuture<Mine> made = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> made.complete(new Mine()));
        final Mine foreign = made.get(30, TimeUnit.SECONDS);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ThreadTable.put(table, foreign));
        assertTrue(e.getMessage().contains("cannot store the entry of thread " + foreign.threadId()), e.getMessage());
        assertSame(mine, ThreadTable.get(table));
    }

    @Test
    void aSizeThatIsNotAPowerOfTwoIsRefused() {
        for (final int bad : new int[] {0, -1, 3, 12, 1 << 25, Integer.MIN_VALUE}) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ThreadTable.length(bad));
            assertTrue(e.getMessage().contains(Integer.toString(bad)), e.getMessage());
        }
        assertEquals(33, ThreadTable.length(1));
        assertEquals(4096 + 32, ThreadTable.length(4096));
    }

    @Test
    void anArrayNotMadeForATableThrowsInsteadOfMisbehaving() {
        final Mine[] tooShort = new Mine[8];
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> ThreadTable.get(tooShort));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> ThreadTable.put(tooShort, new Mine()));
    }
}
