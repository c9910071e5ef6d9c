package org.pthread4j.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pthread4j.CondAttr;
import org.pthread4j.Mutex;
import org.pthread4j.MutexAttr;
import org.pthread4j.SpinLock;
import org.pthread4j.futex.Timespec;
import org.pthread4j.memory.Block;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Attaching by name whatever the attributes (issue 21, item 2): {@code mutex(name)} and
 * {@code cond(name)} open what another process created and report its attributes; a create
 * with conflicting attributes is refused, naming both; and every primitive shows its block.
 */
class SyncFileAttachTest {
    private static final MutexAttr ROBUST_ERRORCHECK = MutexAttr.builder().type(MutexAttr.ERRORCHECK).robust(true)
        .build();

    @TempDir
    Path dir;

    @Test
    void mutexByNameAttachesToARobustErrorcheckMutexAnotherOpenerCreatedAndReportsItsAttributes() throws IOException {
        final Path p = dir.resolve("f");
        try (SyncFile creator = SyncFile.create(p, 8); SyncFile opener = SyncFile.open(p)) {
            final Mutex made = creator.mutex("orders.lock", ROBUST_ERRORCHECK);
            final Mutex found = opener.mutex("orders.lock");
            assertEquals(MutexAttr.ERRORCHECK, found.attr().type());
            assertTrue(found.attr().robust());
            assertTrue(found.attr().pshared());
            assertEquals(made.bits(), found.bits());
            assertEquals(0, found.lock());
            assertEquals(made.ownerId(), found.ownerId(), "one mutex, two views");
            assertEquals(0, found.unlock());
        }
    }

    @Test
    void aCreateWithConflictingAttributesIsRefusedAndAnOpenIsNot() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("f"), 8)) {
            f.mutex("m", ROBUST_ERRORCHECK);
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.mutex("m", MutexAttr.DEFAULT));
            assertTrue(e.getMessage().contains("'m' exists as") && e.getMessage().contains("ERRORCHECK"), e.getMessage());
            assertEquals(MutexAttr.ERRORCHECK, f.mutex("m").attr().type());
            assertEquals(MutexAttr.ERRORCHECK, f.mutex("m", ROBUST_ERRORCHECK).attr().type(), "the same attributes");
        }
    }

    @Test
    void mutexByNameCreatesANormalProcessSharedMutexWhenTheNameIsNew() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("f"), 8)) {
            final Mutex m = f.mutex("fresh");
            assertEquals(MutexAttr.NORMAL, m.attr().type());
            assertTrue(m.attr().pshared());
            assertFalse(m.attr().robust());
        }
    }

    @Test
    void condByNameAttachesWhateverItsClock() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("f"), 8)) {
            f.cond("c", CondAttr.builder().clock(Timespec.CLOCK_MONOTONIC).build());
            assertEquals(Timespec.CLOCK_MONOTONIC, f.cond("c").clock());
            final IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> f.cond("c", CondAttr.DEFAULT));
            assertTrue(e.getMessage().contains("exists with clock"), e.getMessage());
            assertEquals(Timespec.CLOCK_REALTIME, f.cond("new").clock(), "a new one uses POSIX's default clock");
        }
    }

    @Test
    void everyPrimitiveShowsTheBlockItLivesIn() throws IOException {
        try (SyncFile f = SyncFile.create(dir.resolve("f"), 16)) {
            final List<Function<SyncFile, Block>> blocks = List.of(
                s -> s.mutex("m").block(), s -> s.cond("c").block(), s -> s.rwlock("rw").block(),
                s -> s.sem("s", 0).block(), s -> s.barrier("b", 2).block(), s -> s.once("o").block(),
                s -> s.doorbell("d").block());
            final List<String> names = List.of("m", "c", "rw", "s", "b", "o", "d");
            for (int i = 0; i < names.size(); i++) {
                final Block b = blocks.get(i).apply(f);
                assertEquals(f.find(names.get(i)).orElseThrow().offset(), b.offsetInMemory(), names.get(i));
            }
            final Block spin = f.slot("spin", SlotType.SPIN, SlotType.SPIN.size());
            assertSame(spin, new SpinLock(spin).block());
        }
    }
}
