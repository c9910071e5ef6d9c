package org.pthread4j;

import org.pthread4j.futex.Errno;

import java.io.Serial;

/**
 * A call that in C returns a pointer or {@code -1} and sets {@code errno} failed: this carries
 * the errno, so a Java caller of, for example, {@link Sem#open(String, int, int, int, SharedFileOption...)} gets the
 * same answer as a C caller of {@code sem_open}.
 *
 * <p>Operations that in C return an errno directly return it as an {@code int} instead; this
 * exception exists only where Java cannot return one (a factory that returns an object).
 */
public final class ErrnoException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The errno, one of {@link Errno}'s constants. */
    private final int errno;

    /**
     * Creates the exception.
     *
     * @param errno  the errno, positive
     * @param detail what failed, for the message
     */
    public ErrnoException(final int errno, final String detail) {
        super(Errno.name(errno) + ": " + detail);
        this.errno = errno;
    }

    /**
     * Creates the exception with its cause.
     *
     * @param errno  the errno, positive
     * @param detail what failed, for the message
     * @param cause  the underlying failure
     */
    public ErrnoException(final int errno, final String detail, final Throwable cause) {
        super(Errno.name(errno) + ": " + detail, cause);
        this.errno = errno;
    }

    /** {@return the errno, one of {@link Errno}'s constants} */
    public int errno() {
        return errno;
    }
}
