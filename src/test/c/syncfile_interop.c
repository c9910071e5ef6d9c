/*
 * A C process that shares primitives with a JVM through a pthread4j sync file, on the C
 * library in src/main/c (pthread4j_sync.h): it opens the file, finds or creates slots by name
 * with the JVM's protocol, and calls musl's own pthread_mutex_*, pthread_cond_*,
 * pthread_rwlock_*, sem_* and pthread_barrier_* on them.
 *
 * Built against musl:  musl-gcc -O2 -static -I src/main/c -o interop syncfile_interop.c \
 *                          src/main/c/pthread4j_sync.c
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
 *   make           create FILE if missing (capacity 32) and the slots of the interop set:
 *                  robust errorcheck mutex "m", cond "c" (CLOCK_MONOTONIC), rwlock "rw",
 *                  sem "s" (3), barrier "b" (2), raw "counter" (8 bytes); prints each as
 *                  "slot NAME OFFSET"
 *   find           the same slots, attached (the mutex and cond whatever their attributes):
 *                  "slot NAME OFFSET", then "mutex TYPE ROBUST" (musl's _m_type decoded),
 *                  "cond CLOCK", "sem VALUE" and "barrier COUNT" as musl sees them
 *   race N [gate]  wait for a line on standard input, then open or create FILE (capacity 64)
 *                  and get or create slots s0..sN-1, of the types the JVM's race uses, each
 *                  printed as "slot NAME OFFSET"; with "gate", print "armed" and wait until
 *                  the first word of raw slot "gate" is not 0 instead of reading a line, and
 *                  spend 100 us in each creation's initializer and pause 1 ms after each
 *                  slot, so that racers overlap and take turns
 *   hang NAME      open FILE and start creating raw slot NAME (64 bytes): print "claimed"
 *                  from inside its initializer, then sleep until killed
 *   get NAME       get or create raw slot NAME (64 bytes): "slot NAME OFFSET"
 * Prints "ready" once its slots are found and "done" at the end; exit status 0 on success.
 */
#define _GNU_SOURCE
#include "pthread4j_sync.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static p4j_file *file;

static const char *errname(int e)
{
	switch (e) {
	case 0: return "0";
	case EOWNERDEAD: return "EOWNERDEAD";
	case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case EDEADLK: return "EDEADLK";
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case ENOSPC: return "ENOSPC";
	case EBADMSG: return "EBADMSG";
	case EACCES: return "EACCES";
	case ELOOP: return "ELOOP";
	default: return strerror(e);
	}
}

static void die(const char *what)
{
	printf("error %s: %s\n", what, errname(errno));
	fflush(stdout);
	exit(1);
}

static void check(int r, const char *what)
{
	if (r) {
		errno = r;
		die(what);
	}
}

static void say(const char *s)
{
	puts(s);
	fflush(stdout);
}

static void *need(void *p, const char *what)
{
	if (!p) die(what);
	return p;
}

static void print_slot(const char *name, const void *p)
{
	printf("slot %s %lld\n", name, (long long)p4j_offset(file, p));
	fflush(stdout);
}

static pthread_mutex_t *robust_mutex(const char *name)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	return need(p4j_mutex(file, name, &a), name);
}

/* The interop set: created with attributes (make) or attached whatever they are (find). */
static void interop_set(int create)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_t *m = create ? robust_mutex("m") : need(p4j_mutex(file, "m", 0), "m");
	pthread_cond_t *c = need(p4j_cond(file, "c", create ? &ca : 0), "c");
	pthread_rwlock_t *rw = need(p4j_rwlock(file, "rw"), "rw");
	sem_t *s = need(p4j_sem(file, "s", create ? 3 : 0), "s");
	pthread_barrier_t *b = need(p4j_barrier(file, "b", 2), "b");
	int *counter = need(p4j_raw(file, "counter", 8), "counter");
	print_slot("m", m);
	print_slot("c", c);
	print_slot("rw", rw);
	print_slot("s", s);
	print_slot("b", b);
	print_slot("counter", counter);
	if (!create) {
		const int type = ((volatile int *)m)[0];
		int value;
		check(sem_getvalue(s, &value) ? errno : 0, "sem_getvalue");
		printf("mutex %d %d\ncond %d\nsem %d\nbarrier %d\n", type & 3, (type & 4) != 0, ((volatile int *)c)[4],
			value, (((volatile int *)b)[2] & 0x7fffffff) + 1);
		fflush(stdout);
	}
}

/* Busy for that long inside a creation, so that other racers meet the claim. */
static int spin_init(void *block, void *arg)
{
	(void)block;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < *(long *)arg);
	return 0;
}

/* The types and sizes the JVM's race (SyncFileChild) gives slot sK. */
static void race_slot(int k, long spin_ns)
{
	static const int types[] = {P4J_MUTEX, P4J_COND, P4J_RWLOCK, P4J_SEM, P4J_BARRIER, P4J_ONCE, P4J_SPIN, P4J_RAW,
		P4J_DOORBELL};
	static const int sizes[] = {40, 48, 56, 32, 32, 4, 4, 0, 8};
	const int t = k % 9;
	const size_t size = types[t] == P4J_RAW ? (size_t)(8 + 8 * (k % 5)) : (size_t)sizes[t];
	char name[16];
	snprintf(name, sizeof name, "s%d", k);
	print_slot(name, need(p4j_slot(file, name, types[t], size, spin_init, &spin_ns), name));
}

static int hang(void *block, void *arg)
{
	(void)block;
	(void)arg;
	say("claimed");
	for (;;) pause();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s FILE COMMAND [N]\n", argv[0]);
		return 2;
	}
	const char *cmd = argv[2];
	const long n = argc > 3 ? atol(argv[3]) : 0;
	if (!strcmp(cmd, "race")) {
		const int gated = argc > 4 && !strcmp(argv[4], "gate");
		char line[16];
		if (!gated && !fgets(line, sizeof line, stdin)) die("no go line");
		file = need(p4j_open(argv[1], O_CREAT, 0600, 64, 0), "open");
		if (gated) {
			volatile int *gate = need(p4j_raw(file, "gate", 8), "gate");
			say("armed");
			while (!__atomic_load_n(gate, __ATOMIC_SEQ_CST)) sched_yield();
		}
		for (long k = 0; k < n; k++) {
			race_slot((int)k, gated ? 100000 : 0);
			if (gated) nanosleep(&(struct timespec){0, 1000000}, 0);
		}
		say("raced");
		return 0;
	}
	file = need(p4j_open(argv[1], strcmp(cmd, "make") ? 0 : O_CREAT, 0600, 32, 0), "open");
	if (!strcmp(cmd, "count")) {
		pthread_mutex_t *m = robust_mutex("m");
		volatile int *counter = need(p4j_raw(file, "counter", 8), "counter");
		say("ready");
		for (long i = 0; i < n; i++) {
			check(pthread_mutex_lock(m), "lock");
			*counter = *counter + 1;
			check(pthread_mutex_unlock(m), "unlock");
		}
	} else if (!strcmp(cmd, "pingpong") || !strcmp(cmd, "ping")) {
		const int ping = !strcmp(cmd, "ping");
		pthread_mutex_t *m = robust_mutex("m");
		pthread_cond_t *c = need(p4j_cond(file, "c", 0), "c");
		volatile int *turn = need(p4j_raw(file, "turn", 8), "turn");
		say("ready");
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long i = 0; i < n; i++) {
			check(pthread_mutex_lock(m), "lock");
			while (*turn != (ping ? 0 : 1)) check(pthread_cond_wait(c, m), "wait");
			*turn = ping;
			check(pthread_cond_signal(c), "signal");
			check(pthread_mutex_unlock(m), "unlock");
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (ping) {
			const double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
			printf("round trip %.0f ns\n", n ? ns / n : 0.0);
		}
	} else if (!strcmp(cmd, "rwcount")) {
		pthread_rwlock_t *rw = need(p4j_rwlock(file, "rw"), "rw");
		volatile int *counter = need(p4j_raw(file, "counter", 8), "counter");
		say("ready");
		for (long i = 0; i < n; i++) {
			check(pthread_rwlock_wrlock(rw), "wrlock");
			*counter = *counter + 1;
			check(pthread_rwlock_unlock(rw), "unlock");
			check(pthread_rwlock_rdlock(rw), "rdlock");
			check(pthread_rwlock_unlock(rw), "unlock");
		}
	} else if (!strcmp(cmd, "robust-hold")) {
		pthread_mutex_t *r = robust_mutex("r");
		say("ready");
		const int e = pthread_mutex_lock(r);
		if (e && e != EOWNERDEAD) check(e, "lock");
		printf("locked %ld\n", (long)syscall(SYS_gettid));
		fflush(stdout);
		for (;;) pause();
	} else if (!strcmp(cmd, "robust-take")) {
		pthread_mutex_t *r = robust_mutex("r");
		say("ready");
		const int e = pthread_mutex_lock(r);
		printf("lock %s\n", errname(e));
		fflush(stdout);
		if (e == EOWNERDEAD) check(pthread_mutex_consistent(r), "consistent");
		else if (e) return 1;
		check(pthread_mutex_unlock(r), "unlock");
		say("recovered");
	} else if (!strcmp(cmd, "make") || !strcmp(cmd, "find")) {
		interop_set(!strcmp(cmd, "make"));
	} else if (!strcmp(cmd, "hang")) {
		p4j_slot(file, argv[3], P4J_RAW, 64, hang, 0);
		die("hang returned");
	} else if (!strcmp(cmd, "get")) {
		print_slot(argv[3], need(p4j_raw(file, argv[3], 64), argv[3]));
	} else {
		printf("error unknown command %s\n", cmd);
		return 2;
	}
	check(p4j_close(file) ? errno : 0, "close");
	say("done");
	return 0;
}
