package org.pthread4j.futex;

/**
 * The errno values every primitive returns, with Linux's numbers (the same on x86_64 and
 * aarch64), so a result reads exactly like musl's. {@code 0} means success.
 *
 * <p>Operations that count (a futex wake, a requeue) return a count {@code >= 0} or a negated
 * errno; every other operation returns {@code 0} or a positive errno.
 */
public final class Errno {
    /** Operation not permitted: unlock of a mutex the caller does not own. */
    public static final int EPERM = 1;
    /** No such file or directory: a named semaphore or sync file that does not exist. */
    public static final int ENOENT = 2;
    /** Interrupted: the waiting thread was interrupted ({@link Thread#interrupt()}). */
    public static final int EINTR = 4;
    /** I/O error: a file operation failed for a reason no other errno here names. */
    public static final int EIO = 5;
    /** Try again: a futex word did not hold the expected value; a trywait found no permit. */
    public static final int EAGAIN = 11;
    /** Permission denied. */
    public static final int EACCES = 13;
    /** Bad address: the kernel could not read a futex word. */
    public static final int EFAULT = 14;
    /** Busy: trylock on a held lock. */
    public static final int EBUSY = 16;
    /** Exists: O_CREAT|O_EXCL on a name that exists. */
    public static final int EEXIST = 17;
    /** Is a directory: a named object's path names a directory. */
    public static final int EISDIR = 21;
    /** Invalid argument: a bad deadline, a bad attribute, an operation the object refuses. */
    public static final int EINVAL = 22;
    /** Too many open files: the per-process limit of named semaphore references is reached. */
    public static final int EMFILE = 24;
    /** Deadlock: relock of an ERRORCHECK mutex by its owner. */
    public static final int EDEADLK = 35;
    /** Name too long. */
    public static final int ENAMETOOLONG = 36;
    /** Not implemented: what an old kernel answers to a futex call with the private flag. */
    public static final int ENOSYS = 38;
    /** Too many levels of symbolic links: a named object's path is a symbolic link (O_NOFOLLOW). */
    public static final int ELOOP = 40;
    /** Value too large: a semaphore post at SEM_VALUE_MAX. */
    public static final int EOVERFLOW = 75;
    /** Timed out: the deadline passed. */
    public static final int ETIMEDOUT = 110;
    /** Owner died: the lock is yours, but its previous owner died holding it. */
    public static final int EOWNERDEAD = 130;
    /** Not recoverable: a robust mutex was unlocked without {@code consistent} after EOWNERDEAD. */
    public static final int ENOTRECOVERABLE = 131;

    private Errno() {
    }

    /**
     * The symbolic name of an errno value ({@code "EBUSY"}), {@code "0"} for success.
     *
     * @param errno a positive errno, or a negated one as counting operations return it
     * @return its name, or {@code "errno N"} for a value this class does not name
     */
    public static String name(final int errno) {
        return switch (Math.abs(errno)) {
            case 0 -> "0";
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case EAGAIN -> "EAGAIN";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case EISDIR -> "EISDIR";
            case EINVAL -> "EINVAL";
            case EMFILE -> "EMFILE";
            case EDEADLK -> "EDEADLK";
            case ENAMETOOLONG -> "ENAMETOOLONG";
            case ENOSYS -> "ENOSYS";
            case ELOOP -> "ELOOP";
            case EOVERFLOW -> "EOVERFLOW";
            case ETIMEDOUT -> "ETIMEDOUT";
            case EOWNERDEAD -> "EOWNERDEAD";
            case ENOTRECOVERABLE -> "ENOTRECOVERABLE";
            default -> "errno " + Math.abs(errno);
        };
    }
}
