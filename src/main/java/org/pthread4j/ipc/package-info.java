/**
 * Shared-memory IPC: files of named, process-shared primitives ({@link org.pthread4j.ipc.SyncFile})
 * that two JVMs, or a JVM and a C program linked against musl, map and block on together; the
 * file format ({@link org.pthread4j.ipc.SyncFileLayout}), its validation
 * ({@link org.pthread4j.ipc.SyncFileFormatException}) and the read-only inspector behind
 * {@code ./pthread4j inspect}.
 */
package org.pthread4j.ipc;
