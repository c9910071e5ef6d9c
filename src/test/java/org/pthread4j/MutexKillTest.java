package org.pthread4j;

import org.pthread4j.futex.Errno;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.pthread4j.MutexTestSupport.Other;
import org.pthread4j.memory.Memory;
import org.pthread4j.testing.ChildJvm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pthread4j.MutexTestSupport.LIVENESS;
import static org.pthread4j.MutexTestSupport.get;
import static org.pthread4j.MutexTestSupport.inMillis;

/**
 * {@code kill -9} of a second JVM that holds process-shared robust mutexes in a mapped file:
 * the kernel walks the dead process's robust lists, so a locker of this JVM that was already
 * asleep, and a new one, both get EOWNERDEAD.
 */
class MutexKillTest {
    private static Path sharedFile() throws Exception {
        final Path shm = Path.of("/dev/shm");
        final Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        final Path f = Files.createTempFile(dir, "pthread4j-mutex-", ".bin");
        Files.write(f, new byte[4096]);
        return f;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {MutexAttr.NORMAL, MutexAttr.RECURSIVE, MutexAttr.ERRORCHECK})
    void killedJvmsRobustMutexesGiveEOWNERDEADToSleepingAndNewLockers(final int kind) throws Exception {
        final Path file = sharedFile();
        try (Memory mem = Memory.map(file, 4096); Other waiterThread = new Other()) {
            final MutexAttr robust = MutexAttr.builder().type(kind).robust(true).pshared(true).build();
            final Mutex asleep = new Mutex(mem.block(0, MutexLayout.SIZE, 8), robust);
            final Mutex later = new Mutex(mem.block(64, MutexLayout.SIZE, 8), robust);
            final Mutex stalled = new Mutex(mem.block(128, MutexLayout.SIZE, 8),
                MutexAttr.builder().type(MutexAttr.ERRORCHECK).pshared(true).build());
            try (ChildJvm child = ChildJvm.start(RobustChild.class, file.toString(), "0", "64", "128")) {
                assertEquals("results 000", child.expectLine(LIVENESS));
                final String locked = child.expectLine(LIVENESS);
                assertTrue(locked.startsWith("locked "), locked);
                final int childTid = Integer.parseInt(locked.substring(7));
                assertEquals(childTid, asleep.ownerId());
                assertEquals(childTid, later.ownerId());
                assertEquals(Errno.EBUSY, asleep.tryLock());
                final Future<Integer> waiter = waiterThread.submit(() -> asleep.timedLock(inMillis(LIVENESS.toMillis())));
                MutexTestSupport.awaitWaiters(asleep, 1);
                final long killed = System.nanoTime();
                child.kill9();
                assertEquals(Errno.EOWNERDEAD, (int) get(waiter), "the locker asleep at the kill");
                final long wokenMicros = (System.nanoTime() - killed) / 1000;
                assertEquals(Errno.EOWNERDEAD, later.timedLock(inMillis(LIVENESS.toMillis())), "a new locker");
                System.out.println("kill -9 (" + MutexTestSupport.kindName(kind) + "): sleeping locker got EOWNERDEAD "
                    + wokenMicros + " us after the kill was sent");
            }
            // Recovered: consistent + unlock, then it works again.
            assertEquals(0, (int) waiterThread.call(asleep::consistent));
            assertEquals(0, (int) waiterThread.call(asleep::unlock));
            assertEquals(0, asleep.lock());
            assertEquals(0, asleep.unlock());
            // Not recovered: unlock without consistent, then unrecoverable for everyone.
            assertEquals(0, later.unlock());
            assertEquals(Errno.ENOTRECOVERABLE, later.lock());
            assertEquals(Errno.ENOTRECOVERABLE, (int) waiterThread.call(later::tryLock));
            // Not robust: the kernel marked it, and it stays locked for ever.
            assertEquals(MutexLayout.OWNER_DIED, stalled.block().get(MutexLayout.LOCK));
            assertEquals(Errno.EBUSY, stalled.tryLock());
            assertEquals(Errno.ETIMEDOUT, stalled.timedLock(inMillis(20)));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
