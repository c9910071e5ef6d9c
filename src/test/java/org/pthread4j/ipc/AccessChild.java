package org.pthread4j.ipc;

import org.pthread4j.ErrnoException;
import org.pthread4j.OpenFlags;
import org.pthread4j.Sem;
import org.pthread4j.SharedFileOption;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A child JVM that creates one shared file under the umask its launcher set, for
 * {@link SharedFileAccessTest}. Arguments: {@code sync PATH MODE [allow]} (a sync file) or
 * {@code sem NAME MODE [allow]} (a named semaphore), MODE in octal, {@code allow} for
 * {@link SharedFileOption#ALLOW_WRITES_BY_OTHER_USERS}. Prints {@code created PERMISSIONS} or
 * {@code refused MESSAGE}.
 */
public final class AccessChild {
    private AccessChild() {
    }

    /** @param args what to create */
    public static void main(final String[] args) throws Exception {
        final int mode = Integer.parseInt(args[2], 8);
        final SharedFileOption[] options = args.length > 3 && args[3].equals("allow")
            ? new SharedFileOption[] {SharedFileOption.ALLOW_WRITES_BY_OTHER_USERS} : new SharedFileOption[0];
        final Path file;
        try {
            if (args[0].equals("sync")) {
                file = Path.of(args[1]);
                SyncFile.create(file, 2, 128, PosixFilePermissions.fromString(perms(mode)), options).close();
            } else {
                file = Path.of("/dev/shm/" + args[1]);
                Sem.open(args[1], OpenFlags.O_CREAT | OpenFlags.O_EXCL, mode, 1, options).close();
            }
        } catch (final IOException | ErrnoException e) {
            System.out.println("refused " + e.getMessage());
            return;
        }
        System.out.println("created " + PosixFilePermissions.toString(Files.getPosixFilePermissions(file,
            LinkOption.NOFOLLOW_LINKS)));
    }

    private static String perms(final int mode) {
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            s.append((mode & (0400 >> i)) != 0 ? "rwxrwxrwx".charAt(i) : '-');
        }
        return s.toString();
    }
}
