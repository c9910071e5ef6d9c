/*
 * pthread4j_sync: pthread4j sync files for C programs linked against musl.
 *
 * A sync file is a file (usually in /dev/shm) of named, process-shared synchronization objects
 * with musl's x86_64 byte layout, shared by JVMs (org.pthread4j.ipc.SyncFile) and C programs.
 * This library opens or creates one and finds or creates a slot by name with the same atomic
 * protocol as the JVM, so a C program gets a pthread_mutex_t *, pthread_cond_t *,
 * pthread_rwlock_t *, sem_t * or pthread_barrier_t * that musl's own functions work on, while
 * JVMs work on the same words. The file format (version 1) is described in
 * org.pthread4j.ipc.SyncFileLayout; the protocol in org.pthread4j.ipc.SyncFile.
 *
 * Build:  make            (libpthread4j_sync.a with musl-gcc)
 * Use:    musl-gcc -O2 -static -I src/main/c prog.c src/main/c/pthread4j_sync.c
 *
 * Every function is thread-safe. Functions that return a pointer return NULL and set errno on
 * failure; p4j_close returns 0 or -1 and sets errno.
 *
 *   EINVAL     a bad name (1 to 31 of A-Z a-z 0-9 _ . -), size, capacity, value or attribute
 *   ENOTSUP    a mutex attribute the JVM side does not support (priority inheritance)
 *   EEXIST     p4j_open: O_CREAT|O_EXCL and the path exists; a slot: the name exists as another
 *              type or size, or (when attributes are given) with other attributes
 *   ENOSPC     the directory or the data area is full
 *   ETIMEDOUT  a live process has been creating an entry for longer than 10 s
 *   EBADMSG    not a sync file, a newer format version, corrupt, or truncated
 *   ELOOP      the path is a symbolic link (never followed)
 *   EACCES     permission denied; or the file is owned by another user, or its group or others
 *              may write it, and P4J_ALLOW_WRITES_BY_OTHER_USERS was not given
 *   ENOENT     p4j_open without O_CREAT and the file does not exist
 */
#ifndef PTHREAD4J_SYNC_H
#define PTHREAD4J_SYNC_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a slot holds: the type code of its directory entry (org.pthread4j.ipc.SlotType). */
enum {
	P4J_MUTEX = 1,     /* pthread_mutex_t, 40 bytes */
	P4J_COND = 2,      /* pthread_cond_t, 48 bytes */
	P4J_RWLOCK = 3,    /* pthread_rwlock_t, 56 bytes */
	P4J_SEM = 4,       /* sem_t, 32 bytes */
	P4J_BARRIER = 5,   /* pthread_barrier_t, 32 bytes */
	P4J_ONCE = 6,      /* pthread_once_t, 4 bytes */
	P4J_SPIN = 7,      /* pthread_spinlock_t, 4 bytes */
	P4J_RAW = 8,       /* raw bytes of any size of at least 4 */
	P4J_DOORBELL = 9,  /* org.pthread4j.ipc.FutexDoorbell, 8 bytes */
};

/* The longest slot name. */
#define P4J_MAX_NAME 31
/* The most directory entries a file may have. */
#define P4J_MAX_CAPACITY 65536

/*
 * A flag of p4j_open, beside O_CREAT and O_EXCL: accept a file owned by another user, or
 * writable by its group or by every user (and create one whose mode, after the umask, allows
 * that). Those users can corrupt or forge every lock word in it. Without it such a file is
 * refused with EACCES, as the JVM refuses it without SharedFileOption.ALLOW_WRITES_BY_OTHER_USERS.
 */
#define P4J_ALLOW_WRITES_BY_OTHER_USERS 0x40000000

typedef struct p4j_file p4j_file;

/*
 * Opens a sync file, or with O_CREAT creates it when it does not exist (O_CREAT|O_EXCL: only
 * creates). A link at the path is never followed. A new file has CAPACITY directory entries
 * (1 to P4J_MAX_CAPACITY) and DATA_BYTES bytes for the slots' blocks (0: 64 per entry, as the
 * JVM's default), MODE filtered by the umask; it is written to a temporary file and linked to
 * the path, so no process sees half a header. An existing file is validated and keeps its own
 * capacity, size and mode. Processes racing to create: one creates, the others open it.
 */
p4j_file *p4j_open(const char *path, int oflag, mode_t mode, unsigned capacity, size_t data_bytes);

/* Unmaps the file. Pointers into it must not be used afterwards, nor may a mutex of it be held. */
int p4j_close(p4j_file *f);

/*
 * Gets or creates a slot, atomically across processes and JVMs: every caller that asks for
 * NAME gets the same block. A new block is zeroed and passed to INIT (when not NULL), whose
 * nonzero result abandons the creation and is the errno; only then is the slot published. An
 * existing slot must have the same TYPE and SIZE.
 */
void *p4j_slot(p4j_file *f, const char *name, int type, size_t size, int (*init)(void *block, void *arg),
	void *arg);

/* A published slot without creating it (NULL and ENOENT when there is none); *type and *size when not NULL. */
void *p4j_find(p4j_file *f, const char *name, int *type, size_t *size);

/*
 * A mutex. With ATTR NULL: attaches to an existing mutex whatever its attributes, or creates a
 * NORMAL one (as SyncFile.mutex(name)). With ATTR: creates with those attributes, or attaches to
 * an existing one that has the same type and robustness (EEXIST otherwise). Always
 * process-shared, whatever ATTR says.
 */
pthread_mutex_t *p4j_mutex(p4j_file *f, const char *name, const pthread_mutexattr_t *attr);

/*
 * The mutex of SyncFile.lock(name): creates a RECURSIVE, robust, process-shared mutex, or
 * attaches to an existing owner-tracked one (EEXIST for a NORMAL one, which records no owner).
 */
pthread_mutex_t *p4j_lock(p4j_file *f, const char *name);

/*
 * A condition variable, process-shared. With ATTR NULL: attaches whatever its clock, or
 * creates one on CLOCK_REALTIME. With ATTR: its clock, or EEXIST for an existing one on
 * another clock.
 */
pthread_cond_t *p4j_cond(p4j_file *f, const char *name, const pthread_condattr_t *attr);

/* A process-shared rwlock. */
pthread_rwlock_t *p4j_rwlock(p4j_file *f, const char *name);

/* A process-shared semaphore; VALUE is used only when it is new, as sem_open's. */
sem_t *p4j_sem(p4j_file *f, const char *name, unsigned value);

/* A process-shared barrier of COUNT parties; an existing one must have the same count (EEXIST). */
pthread_barrier_t *p4j_barrier(p4j_file *f, const char *name, unsigned count);

/* A raw block of SIZE bytes (at least 4), zeroed when new. */
void *p4j_raw(p4j_file *f, const char *name, size_t size);

/* The byte offset of a pointer into the file (as SlotInfo.offset() and inspect show it). */
int64_t p4j_offset(const p4j_file *f, const void *p);

#ifdef __cplusplus
}
#endif

#endif
