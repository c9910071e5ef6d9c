package org.pthread4j.juc;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.MemoryAddress;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import org.pthread4j.Cond;
import org.pthread4j.futex.Errno;

/**
 * The JFR event of a wait on a {@link PthreadCondition}: the pthread4j counterpart of
 * {@code jdk.JavaMonitorWait}, with the 20 ms threshold of the JDK's default settings. It times
 * the condvar's wait only (release, sleep, relock), after the adapter's checks.
 */
@Name(ConditionWaitEvent.NAME)
@Label("pthread4j Condition Wait")
@Category({"Java Application", "pthread4j"})
@Description("A thread waiting on a pthread4j condition (PthreadLock's, or a PthreadReadWriteLock write lock's)")
@Threshold("20 ms")
@StackTrace(true)
final class ConditionWaitEvent extends Event {
    /** The event's name in recordings. */
    static final String NAME = "org.pthread4j.ConditionWait";

    @Label("Primitive")
    @Description("PthreadCondition")
    String primitive;

    @Label("Name")
    @Description("The lock the condition belongs to: its class and identity hash")
    String name;

    @Label("Address")
    @Description("Native address of the condition's pthread_cond_t")
    @MemoryAddress
    long address;

    @Label("Backend")
    @Description("The futex backend the condition sleeps on: parking, linux or linux-noprivate")
    String backend;

    @Label("Timed Out")
    @Description("Whether the wait ended because its time ran out")
    boolean timedOut;

    /** {@return an event whose timing has begun, before the condvar's wait} */
    static ConditionWaitEvent start() {
        final ConditionWaitEvent e = new ConditionWaitEvent();
        e.begin();
        return e;
    }

    /**
     * Ends the timing after the condvar's wait and commits the event if it is enabled and the
     * wait passed the threshold.
     *
     * @param lock the lock the condition belongs to, for its name
     * @param cond the condvar
     * @param r    the wait's result
     */
    void done(final Object lock, final Cond cond, final int r) {
        end();
        if (shouldCommit()) {
            primitive = "PthreadCondition";
            name = ContendedAcquireEvent.nameOf(lock);
            address = cond.block().segment().address();
            backend = cond.futex().name();
            timedOut = r == Errno.ETIMEDOUT;
            commit();
        }
    }
}
