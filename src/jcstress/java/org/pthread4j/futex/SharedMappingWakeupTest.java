package org.pthread4j.futex;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;
import org.pthread4j.memory.Block;
import org.pthread4j.memory.Memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The shared flag is right: one file mapped twice in this JVM gives two addresses for one word.
 * A waiter sleeping through one mapping must be woken by a wake through the other, which only
 * shared (file-keyed) futex operations achieve; a private flag on either side would leave the
 * waiter asleep.
 */
@JCStressTest(Mode.Termination)
@Description("Wait through mapping A, store and wake through mapping B, shared futex operations.")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "woken across mappings")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the two mappings did not meet: a wrong private flag")
@State
public class SharedMappingWakeupTest {
    private static final int WORDS = 1 << 16;
    private static final Memory A;
    private static final Memory B;
    private static final AtomicLong NEXT = new AtomicLong();

    static {
        try {
            final Path file = Files.createTempFile(Path.of(Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" : "/tmp"),
                "pthread4j-jcstress", ".words");
            file.toFile().deleteOnExit();
            Files.write(file, new byte[WORDS * 4]);
            A = Memory.map(file);
            B = Memory.map(file);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private final long off = (NEXT.getAndIncrement() % WORDS) * 4;
    private final MemorySegment a = A.segment();
    private final MemorySegment b = B.segment();

    public SharedMappingWakeupTest() {
        Block.INT.setVolatile(a, off, 0);
    }

    @Actor
    public void waiter() {
        while ((int) Block.INT.getVolatile(a, off) == 0) {
            Futexes.linux().wait(a, off, 0, false);
        }
    }

    @Signal
    public void waker() {
        Block.INT.setVolatile(b, off, 1);
        Futexes.linux().wake(b, off, 1, false);
    }
}
