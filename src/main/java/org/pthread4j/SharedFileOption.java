package org.pthread4j;

/**
 * Options of the calls that open or create the file of a shared object: a sync file
 * ({@code org.pthread4j.ipc.SyncFile}) or a named semaphore
 * ({@link Sem#open(String, int, SharedFileOption...)}).
 *
 * <p>By default such a file is used only when nobody but the calling user can write it: it
 * must be owned by the process's effective user and must not be writable by its group or by
 * others (after the umask, for a file being created). A user who can write the file can
 * rewrite every lock word in it: store an owner that never unlocks, mark a robust mutex
 * unrecoverable for ever, or hand out permits of a semaphore. musl and glibc check neither
 * owner nor mode; this library refuses, and this option is how a caller says that the other
 * users who can write the file are trusted.
 */
public enum SharedFileOption {
    /**
     * Accept a file owned by another user, or writable by its group or by every user: those
     * users can then corrupt or forge every lock word in it (deadlock, {@code ENOTRECOVERABLE},
     * a lock taken away from its holder), and an owner can change the mode at any time. Use
     * it only when every such user is trusted, as for a file shared by a group of cooperating
     * services.
     */
    ALLOW_WRITES_BY_OTHER_USERS
}
