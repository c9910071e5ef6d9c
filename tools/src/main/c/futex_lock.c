/*
 * Seed 000's lock/unlock stress in C, the baseline of `./pthread4j bench lock`.
 *
 *   futex_lock wait THREADS MILLIS      the seed's 3-state futex lock (0 unlocked, 1 locked,
 *                                       2 locked with possible waiters) with FUTEX_WAIT and
 *                                       its cmpxchg unlock
 *   futex_lock pthread THREADS MILLIS   pthread_mutex_lock/unlock on a default mutex (glibc's,
 *                                       or musl's when built with musl-gcc)
 *
 * THREADS threads lock and unlock one lock in a loop; after a warm-up of a fifth of MILLIS
 * the main thread measures the iterations done in MILLIS and prints, on its last line, Kiter/s
 * (all threads together), then the least and the most iterations any one thread did as shares
 * of an equal split (1.0 each when every thread did as many). The seed's FUTEX_SET_WAIT variant is not here: that operation
 * never entered Linux (pthread4j's parking backend has it: see the Java rows).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#if __has_include(<linux/futex.h>)
#include <linux/futex.h>
#else /* musl-gcc sees no kernel headers */
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Alignas(64) atomic_int test_futex;
static _Alignas(64) pthread_mutex_t test_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(64) atomic_int stop;
static pthread_barrier_t start_barrier;
static int use_pthread;

struct worker {
	pthread_t thread;
	long start_count; /* iterations when measuring began */
	_Alignas(64) atomic_long count;
};

static long sys_futex(atomic_int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static int cmpxchg(atomic_int *ptr, int old, int new)
{
	atomic_compare_exchange_strong(ptr, &old, new);
	return old;
}

/* The seed's futex_wait_lock. */
static void futex_wait_lock(atomic_int *ptr)
{
	int status = atomic_load(ptr);
	if (status == 0)
		status = cmpxchg(ptr, 0, 1);
	while (status != 0) {
		if (status == 1)
			status = cmpxchg(ptr, 1, 2);
		if (status != 0) {
			sys_futex(ptr, FUTEX_WAIT_PRIVATE, 2);
			status = atomic_load(ptr);
		}
		if (status == 0)
			status = cmpxchg(ptr, 0, 2);
	}
}

/* The seed's futex_cmpxchg_unlock. */
static void futex_cmpxchg_unlock(atomic_int *ptr)
{
	int status = atomic_load(ptr);
	if (status == 1)
		status = cmpxchg(ptr, 1, 0);
	if (status == 2) {
		cmpxchg(ptr, 2, 0);
		sys_futex(ptr, FUTEX_WAKE_PRIVATE, 1);
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	long n = 0;

	pthread_barrier_wait(&start_barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (use_pthread) {
			pthread_mutex_lock(&test_mutex);
			pthread_mutex_unlock(&test_mutex);
		} else {
			futex_wait_lock(&test_futex);
			futex_cmpxchg_unlock(&test_futex);
		}
		n++;
		if ((n & 63) == 0)
			atomic_store_explicit(&w->count, n, memory_order_relaxed);
	}
	atomic_store(&w->count, n);
	return NULL;
}

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

int main(int argc, char **argv)
{
	int threads, i;
	long long budget, t0, elapsed;
	long total = 0, least = -1, most = 0, n;
	struct worker *workers;

	if (argc != 4 || (strcmp(argv[1], "wait") && strcmp(argv[1], "pthread"))) {
		fprintf(stderr, "usage: %s wait|pthread THREADS MILLIS\n", argv[0]);
		return 2;
	}
	use_pthread = strcmp(argv[1], "pthread") == 0;
	threads = atoi(argv[2]);
	budget = atoll(argv[3]) * 1000000LL;
	if (threads < 1 || budget <= 0) {
		fprintf(stderr, "THREADS and MILLIS must be positive\n");
		return 2;
	}
	workers = aligned_alloc(64, sizeof(*workers) * threads);
	memset(workers, 0, sizeof(*workers) * threads);
	pthread_barrier_init(&start_barrier, NULL, threads + 1);
	for (i = 0; i < threads; i++) {
		if (pthread_create(&workers[i].thread, NULL, worker_fn, &workers[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&start_barrier);
	sleep_ns(budget / 5);
	for (i = 0; i < threads; i++)
		workers[i].start_count = atomic_load(&workers[i].count);
	t0 = now_ns();
	sleep_ns(budget);
	elapsed = now_ns() - t0;
	for (i = 0; i < threads; i++) {
		n = atomic_load(&workers[i].count) - workers[i].start_count;
		total += n;
		if (least < 0 || n < least)
			least = n;
		if (n > most)
			most = n;
	}
	atomic_store(&stop, 1);
	for (i = 0; i < threads; i++)
		pthread_join(workers[i].thread, NULL);
	printf("%.1f %.4f %.4f\n", total / (elapsed / 1e6),
	       total ? (double)least * threads / total : 1.0, total ? (double)most * threads / total : 1.0);
	return 0;
}
