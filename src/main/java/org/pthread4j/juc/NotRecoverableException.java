package org.pthread4j.juc;

import java.io.Serial;

/**
 * Thrown by an acquisition of a robust {@link PthreadLock} that became permanently unusable
 * (musl's {@code ENOTRECOVERABLE}): an owner acquired it after a previous owner died and
 * unlocked it without {@linkplain PthreadLock#markConsistent() marking it consistent}. The lock
 * has <b>not</b> been acquired, and never will be again; its memory must be initialized anew.
 */
public class NotRecoverableException extends IllegalStateException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception for a lock that can never be acquired again.
     *
     * @param what the lock (in the message)
     */
    public NotRecoverableException(final Object what) {
        super("ENOTRECOVERABLE: " + what + " was unlocked after its owner died without being marked consistent;"
            + " it can never be acquired again");
    }
}
