/*
 * A C process that shares primitives with a JVM through a pthread4j sync file.
 *
 * Built against musl (Debian's musl-tools):  musl-gcc -O2 -static -o interop syncfile_interop.c
 *
 * It maps the whole file, finds slots by name in the directory (format version 1, described in
 * org.pthread4j.ipc.SyncFileLayout) and calls musl's own pthread_mutex_*, pthread_cond_*,
 * pthread_rwlock_* on them: the JVM's primitives have musl's x86_64 byte layout, so both sides
 * run the same algorithm on the same words. The slots must exist (the JVM creates them).
 *
 * Usage: interop FILE COMMAND [N]
 *   count N        N times: lock mutex "m", add 1 to the int in raw slot "counter", unlock
 *   pingpong N     N rounds on mutex "m", cond "c" and the int in raw slot "turn": wait for
 *                  turn == 1, set it to 0, signal (the JVM plays the other side)
 *   ping N         the other side: wait for turn == 0, set it to 1, signal; prints
 *                  "round trip NS ns" (mean) before "done", for latency comparisons
 *   rwcount N      N times: wrlock rwlock "rw", add 1 to "counter" non-atomically, unlock
 *   robust-hold    lock robust mutex "r", print "locked TID", then sleep until killed
 *   robust-take    lock robust mutex "r", print the result (EOWNERDEAD expected), make it
 *                  consistent, unlock, print "recovered"
 * Prints "ready" once the slots are found and "done" at the end; exit status 0 on success.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct header {
	char magic[8];
	int32_t version;
	int32_t data_start;
	int64_t total_size;
	int32_t creator_pid;
	int32_t capacity;
	int64_t created_ms;
	int32_t entry_size;
	char reserved[20];
};

struct entry {
	char name[32];
	int32_t state;          /* 0 FREE, 1 READY, 0x40000000|pid CREATING */
	int32_t stamp;
	int32_t type;           /* 1 mutex, 2 cond, 3 rwlock, 4 sem, 5 barrier, 6 once, 7 spin, 8 raw */
	int32_t size;
	int64_t offset;
	int32_t creator_pid;
	int32_t reserved;
};

_Static_assert(sizeof(struct header) == 64, "header is 64 bytes");
_Static_assert(sizeof(struct entry) == 64, "entry is 64 bytes");
_Static_assert(sizeof(pthread_mutex_t) == 40, "musl x86_64 pthread_mutex_t");
_Static_assert(sizeof(pthread_cond_t) == 48, "musl x86_64 pthread_cond_t");
_Static_assert(sizeof(pthread_rwlock_t) == 56, "musl x86_64 pthread_rwlock_t");

enum { FREE = 0, READY = 1 };
enum { T_MUTEX = 1, T_COND = 2, T_RWLOCK = 3, T_RAW = 8 };

static unsigned char *base;
static size_t length;

static void die(const char *what)
{
	printf("error %s\n", what);
	fflush(stdout);
	exit(1);
}

/* The block of the published slot NAME of type TYPE, or exit. */
static void *slot(const char *name, int type)
{
	const struct header *h = (const struct header *)base;
	for (int i = 0; i < h->capacity; i++) {
		const struct entry *e = (const struct entry *)(base + sizeof *h + (size_t)i * sizeof *e);
		if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != READY) break;
		if (strncmp(e->name, name, sizeof e->name)) continue;
		if (e->type != type) die("slot has another type");
		if (e->offset < h->data_start || (uint64_t)e->offset + (uint64_t)e->size > length || e->offset % 8)
			die("slot out of bounds");
		return base + e->offset;
	}
	fprintf(stderr, "no slot '%s'\n", name);
	die("missing slot");
	return 0;
}

static const char *errname(int e)
{
	switch (e) {
	case 0: return "0";
	case EOWNERDEAD: return "EOWNERDEAD";
	case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case EDEADLK: return "EDEADLK";
	default: return "other";
	}
}

static void check(int r, const char *what)
{
	if (r) {
		printf("error %s: %s (%d)\n", what, errname(r), r);
		fflush(stdout);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s FILE COMMAND [N]\n", argv[0]);
		return 2;
	}
	const long n = argc > 3 ? atol(argv[3]) : 0;
	const int fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) die("open");
	struct stat st;
	if (fstat(fd, &st)) die("fstat");
	length = (size_t)st.st_size;
	if (length < sizeof(struct header)) die("file too short");
	base = mmap(0, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) die("mmap");
	close(fd);
	const struct header *h = (const struct header *)base;
	if (memcmp(h->magic, "PT4JSYNC", 8) || h->version != 1 || h->entry_size != 64
	    || (uint64_t)h->total_size != length)
		die("not a version 1 sync file");

	const char *cmd = argv[2];
	if (!strcmp(cmd, "count")) {
		pthread_mutex_t *m = slot("m", T_MUTEX);
		volatile int *counter = slot("counter", T_RAW);
		puts("ready");
		fflush(stdout);
		for (long i = 0; i < n; i++) {
			check(pthread_mutex_lock(m), "lock");
			*counter = *counter + 1;
			check(pthread_mutex_unlock(m), "unlock");
		}
	} else if (!strcmp(cmd, "pingpong")) {
		pthread_mutex_t *m = slot("m", T_MUTEX);
		pthread_cond_t *c = slot("c", T_COND);
		volatile int *turn = slot("turn", T_RAW);
		puts("ready");
		fflush(stdout);
		for (long i = 0; i < n; i++) {
			check(pthread_mutex_lock(m), "lock");
			while (*turn != 1) check(pthread_cond_wait(c, m), "wait");
			*turn = 0;
			check(pthread_cond_signal(c), "signal");
			check(pthread_mutex_unlock(m), "unlock");
		}
	} else if (!strcmp(cmd, "ping")) {
		pthread_mutex_t *m = slot("m", T_MUTEX);
		pthread_cond_t *c = slot("c", T_COND);
		volatile int *turn = slot("turn", T_RAW);
		puts("ready");
		fflush(stdout);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long i = 0; i < n; i++) {
			check(pthread_mutex_lock(m), "lock");
			while (*turn != 0) check(pthread_cond_wait(c, m), "wait");
			*turn = 1;
			check(pthread_cond_signal(c), "signal");
			check(pthread_mutex_unlock(m), "unlock");
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		const double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
		printf("round trip %.0f ns\n", n ? ns / n : 0.0);
	} else if (!strcmp(cmd, "rwcount")) {
		pthread_rwlock_t *rw = slot("rw", T_RWLOCK);
		volatile int *counter = slot("counter", T_RAW);
		puts("ready");
		fflush(stdout);
		for (long i = 0; i < n; i++) {
			check(pthread_rwlock_wrlock(rw), "wrlock");
			*counter = *counter + 1;
			check(pthread_rwlock_unlock(rw), "unlock");
			check(pthread_rwlock_rdlock(rw), "rdlock");
			check(pthread_rwlock_unlock(rw), "unlock");
		}
	} else if (!strcmp(cmd, "robust-hold")) {
		pthread_mutex_t *r = slot("r", T_MUTEX);
		puts("ready");
		fflush(stdout);
		const int e = pthread_mutex_lock(r);
		if (e && e != EOWNERDEAD) check(e, "lock");
		printf("locked %ld\n", (long)syscall(SYS_gettid));
		fflush(stdout);
		for (;;) pause();
	} else if (!strcmp(cmd, "robust-take")) {
		pthread_mutex_t *r = slot("r", T_MUTEX);
		puts("ready");
		fflush(stdout);
		const int e = pthread_mutex_lock(r);
		printf("lock %s\n", errname(e));
		fflush(stdout);
		if (e == EOWNERDEAD) check(pthread_mutex_consistent(r), "consistent");
		else if (e) return 1;
		check(pthread_mutex_unlock(r), "unlock");
		puts("recovered");
	} else {
		die("unknown command");
	}
	puts("done");
	fflush(stdout);
	return 0;
}
