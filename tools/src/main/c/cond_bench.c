/*
 * Seed 002's condvar benchmarks in C, the baselines of `./pthread4j bench cond`, against the
 * C library it is built with (glibc with gcc, musl with musl-gcc).
 *
 *   cond_bench pingpong private|shared MILLIS      Timo Teras's ping-pong, taking turns: two
 *                                                  threads alternate through one mutex and one
 *                                                  condvar with broadcast; prints round trips
 *                                                  (two turns) per second
 *   cond_bench asis private|shared MILLIS          the same test as the seed's code is written
 *                                                  (`while (run == my_id) wait`, then run = the
 *                                                  other id): one thread loops on lock,
 *                                                  broadcast, unlock while the other sleeps in
 *                                                  the wait; prints turns per second
 *   cond_bench cvb2 private|shared ITEMS MILLIS    Rich Felker's cvb2.c: 5 waiters each take
 *                                                  ITEMS items one at a time, made available by
 *                                                  one broadcaster; the program is repeated until
 *                                                  MILLIS have passed; prints ns per item and
 *                                                  wakes per item
 *
 * shared: the mutex and the condvar are PTHREAD_PROCESS_SHARED and live in a MAP_SHARED
 * anonymous mapping (shmem, as a file in /dev/shm), as the Java rows' do. Each mode warms up
 * for a fifth of MILLIS before it measures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define WAITERS 5

struct sync {
	pthread_mutex_t m;
	pthread_cond_t c;
};

static struct sync *s;

/* ping-pong */
static volatile long run = 1, count = 0;
static int alternate;

/* cvb2 */
static int left[WAITERS], avail[WAITERS];
static long wakes;

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(long long ns)
{
	struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void die(const char *what, int r)
{
	fprintf(stderr, "%s: %s\n", what, strerror(r));
	exit(1);
}

static void init(int shared)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	int r;

	if (shared) {
		s = mmap(0, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (s == MAP_FAILED)
			die("mmap", errno);
	} else {
		s = aligned_alloc(64, (sizeof *s + 63) / 64 * 64);
	}
	pthread_mutexattr_init(&ma);
	pthread_condattr_init(&ca);
	if (shared) {
		pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
		pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	}
	if ((r = pthread_mutex_init(&s->m, &ma)))
		die("pthread_mutex_init", r);
	if ((r = pthread_cond_init(&s->c, &ca)))
		die("pthread_cond_init", r);
}

/* Thread 1 waits first; thread 2 takes the first turn. */
static void *turns(void *arg)
{
	long my_id = (long)arg, other = 3 - my_id;
	long wait_while = alternate ? other : my_id;

	do {
		pthread_mutex_lock(&s->m);
		while (run == wait_while)
			pthread_cond_wait(&s->c, &s->m);
		count++;
		if (run)
			run = other;
		pthread_cond_broadcast(&s->c);
		pthread_mutex_unlock(&s->m);
	} while (run);
	return NULL;
}

static double pingpong(long long budget)
{
	pthread_t t1, t2;
	long c0, c1;
	long long t0, t;

	pthread_create(&t1, NULL, turns, (void *)1L);
	pthread_create(&t2, NULL, turns, (void *)2L);
	sleep_ns(budget / 5);
	pthread_mutex_lock(&s->m);
	c0 = count;
	t0 = now_ns();
	pthread_mutex_unlock(&s->m);
	sleep_ns(budget);
	pthread_mutex_lock(&s->m);
	c1 = count;
	t = now_ns() - t0;
	run = 0;
	pthread_cond_broadcast(&s->c);
	pthread_mutex_unlock(&s->m);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	return (c1 - c0) / (alternate ? 2.0 : 1.0) / (t / 1e9);
}

/* cvb2.c's waiter */
static void *tf(void *arg)
{
	int i = (long)arg;
	pthread_mutex_lock(&s->m);
	while (left[i]) {
		while (!avail[i])
			pthread_cond_wait(&s->c, &s->m), wakes++;
		left[i]--;
		avail[i]--;
	}
	pthread_mutex_unlock(&s->m);
	return NULL;
}

/* cvb2.c's main, with ITEMS items per waiter */
static void cvb2_once(int items)
{
	pthread_t td[WAITERS];
	int i, total;

	for (i = 0; i < WAITERS; i++) {
		left[i] = items;
		avail[i] = 0;
	}
	for (i = 0; i < WAITERS; i++)
		pthread_create(td + i, 0, tf, (void *)(long)i);
	pthread_mutex_lock(&s->m);
	for (;;) {
		for (total = i = 0; i < WAITERS; i++)
			total += left[i];
		if (!total)
			break;
		for (i = 0; i < WAITERS; i++)
			avail[i] = 1;
		pthread_cond_broadcast(&s->c);
		pthread_mutex_unlock(&s->m);
		pthread_mutex_lock(&s->m);
	}
	pthread_mutex_unlock(&s->m);
	for (i = 0; i < WAITERS; i++)
		pthread_join(td[i], 0);
}

static void cvb2(int items, long long budget)
{
	long long t0 = now_ns(), t;
	long done = 0;

	do
		cvb2_once(items);
	while (now_ns() - t0 < budget / 5);
	wakes = 0;
	t0 = now_ns();
	do {
		cvb2_once(items);
		done += (long)WAITERS * items;
		t = now_ns() - t0;
	} while (t < budget);
	printf("%.1f %.4f\n", (double)t / done, (double)wakes / done);
}

int main(int argc, char **argv)
{
	int shared, items = 0;
	long long budget;

	if (argc < 4 || (strcmp(argv[2], "private") && strcmp(argv[2], "shared")))
		goto usage;
	shared = !strcmp(argv[2], "shared");
	if (!strcmp(argv[1], "cvb2")) {
		if (argc != 5 || (items = atoi(argv[3])) < 1)
			goto usage;
	} else if (argc != 4 || (strcmp(argv[1], "pingpong") && strcmp(argv[1], "asis"))) {
		goto usage;
	}
	budget = atoll(argv[argc - 1]) * 1000000LL;
	if (budget <= 0)
		goto usage;
	init(shared);
	if (items) {
		cvb2(items, budget);
	} else {
		alternate = !strcmp(argv[1], "pingpong");
		printf("%.1f\n", pingpong(budget));
	}
	return 0;
usage:
	fprintf(stderr, "usage: %s pingpong|asis private|shared MILLIS\n"
		"       %s cvb2 private|shared ITEMS MILLIS\n", argv[0], argv[0]);
	return 2;
}
