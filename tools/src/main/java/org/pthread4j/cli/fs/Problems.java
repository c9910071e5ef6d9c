package org.pthread4j.cli.fs;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * What went wrong with a file, in words a person reads: "permission denied", not
 * {@code java.nio.file.AccessDeniedException}.
 */
public final class Problems {
    private Problems() {
    }

    /**
     * {@return the problem in words, without the file's name}
     *
     * @param e what a file operation threw
     */
    public static String words(final IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "exists already";
        }
        if (e instanceof NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof DirectoryNotEmptyException) {
            return "directory not empty";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return lower(f.getReason());
        }
        final String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : lower(m);
    }

    /**
     * {@return the words of an errno value, as {@code strerror} would say them, in lower case}
     *
     * @param errno an errno value of Linux
     */
    public static String errno(final int errno) {
        return switch (errno) {
            case 1 -> "operation not permitted";
            case 2 -> "no such file";
            case 5 -> "input/output error";
            case 6 -> "no such device or address";
            case 13 -> "permission denied";
            case 16 -> "device or resource busy";
            case 19 -> "no such device";
            case 20 -> "not a directory (a component of the path)";
            case 21 -> "is a directory";
            case 23, 24 -> "too many open files";
            case 36 -> "file name too long";
            case 40 -> "too many levels of symbolic links";
            case 75 -> "value too large (file too big)";
            default -> "error " + errno;
        };
    }

    private static String lower(final String s) {
        return s.isEmpty() ? s : s.substring(0, 1).toLowerCase(Locale.ROOT) + s.substring(1);
    }
}
