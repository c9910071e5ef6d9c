/*
 * The C rows of `./pthread4j bench latency`: pthread_mutex_lock/unlock (glibc's, or musl's when
 * built with musl-gcc) under the same two phases as the Java rows.
 *
 *   lock_latency THREADS MILLIS
 *
 * Contention (half of MILLIS, after a warm-up of a tenth): THREADS threads take one mutex in a
 * loop; each acquisition is timed from just before pthread_mutex_lock to just after it returns,
 * the critical section runs INSIDE steps of a multiply-add chain on a shared word, and the thread
 * then runs OUTSIDE steps on a word of its own before it locks again. Handoff (the other half):
 * the main thread holds the mutex while one waiter calls pthread_mutex_lock; once the waiter has
 * been asleep in the kernel (state S in /proc/self/task/TID/stat) for ASLEEP_US, the main thread
 * reads the clock and unlocks, and the waiter reads the clock when its lock returns; round after
 * round. The last line holds: wait p50, p99, p99.9 and max, handoff p50, p99 and max (ns), the
 * least and the most acquisitions any thread made as shares of an equal split (1.0 each when
 * all made as many), and the acquisitions of all threads in thousands per second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define INSIDE 30
#define OUTSIDE 60
#define ASLEEP_US 100

static _Alignas(64) pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(64) uint64_t shared_word = 1;
static _Alignas(64) atomic_int stop;
static _Alignas(64) atomic_int measuring;
static pthread_barrier_t start_barrier;

struct samples {
	uint64_t *v;
	size_t n, cap;
};

struct worker {
	pthread_t thread;
	int index;
	struct samples waits;
	long count;
	uint64_t sink;
};

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

static uint64_t steps(uint64_t x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static void add(struct samples *s, long long v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 65536;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v) {
			perror("realloc");
			exit(1);
		}
	}
	s->v[s->n++] = v < 0 ? 0 : (uint64_t)v;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The smallest value that at least p percent of the samples do not exceed (HdrHistogram's). */
static double percentile(struct samples *s, double p)
{
	size_t k;
	if (s->n == 0)
		return 0;
	k = (size_t)((p / 100.0) * s->n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > s->n)
		k = s->n;
	return (double)s->v[k - 1];
}

static void *contender(void *arg)
{
	struct worker *w = arg;
	uint64_t local = w->index + 1;
	long n = 0;

	pthread_barrier_wait(&start_barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		long long t0 = now_ns(), t1;
		pthread_mutex_lock(&mutex);
		t1 = now_ns();
		shared_word = steps(shared_word, INSIDE);
		pthread_mutex_unlock(&mutex);
		if (atomic_load_explicit(&measuring, memory_order_relaxed)) {
			add(&w->waits, t1 - t0);
			n++;
		}
		local = steps(local, OUTSIDE);
	}
	w->count = n;
	w->sink = local;
	return NULL;
}

static _Alignas(64) atomic_int go, announced, done, waiter_tid;
static _Alignas(64) atomic_llong returned;

static void *waiter(void *arg)
{
	(void)arg;
	atomic_store(&waiter_tid, (int)syscall(SYS_gettid));
	for (int r = 1;; r++) {
		while (atomic_load(&go) < r) {
			if (atomic_load(&stop))
				return NULL;
		}
		atomic_store(&announced, r);
		pthread_mutex_lock(&mutex);
		atomic_store(&returned, now_ns());
		pthread_mutex_unlock(&mutex);
		atomic_store(&done, r);
	}
}

static int asleep(int tid)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] == 'S';
}

int main(int argc, char **argv)
{
	int threads, i, rounds = 0;
	long long budget, t0, elapsed, end;
	long total = 0, least = -1, most = 0;
	struct worker *workers;
	struct samples waits = { 0 }, handoffs = { 0 };
	pthread_t wt;

	if (argc != 3) {
		fprintf(stderr, "usage: %s THREADS MILLIS\n", argv[0]);
		return 2;
	}
	threads = atoi(argv[1]);
	budget = atoll(argv[2]) * 1000000LL;
	if (threads < 1 || budget <= 0) {
		fprintf(stderr, "THREADS and MILLIS must be positive\n");
		return 2;
	}

	workers = calloc(threads, sizeof(*workers));
	pthread_barrier_init(&start_barrier, NULL, threads + 1);
	for (i = 0; i < threads; i++) {
		workers[i].index = i;
		if (pthread_create(&workers[i].thread, NULL, contender, &workers[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&start_barrier);
	sleep_ns(budget / 10);
	atomic_store(&measuring, 1);
	t0 = now_ns();
	sleep_ns(budget / 2);
	atomic_store(&stop, 1);
	elapsed = now_ns() - t0;
	for (i = 0; i < threads; i++) {
		pthread_join(workers[i].thread, NULL);
		total += workers[i].count;
		if (least < 0 || workers[i].count < least)
			least = workers[i].count;
		if (workers[i].count > most)
			most = workers[i].count;
		for (size_t k = 0; k < workers[i].waits.n; k++)
			add(&waits, (long long)workers[i].waits.v[k]);
	}
	qsort(waits.v, waits.n, sizeof(*waits.v), cmp);

	atomic_store(&stop, 0);
	if (pthread_create(&wt, NULL, waiter, NULL)) {
		perror("pthread_create");
		return 1;
	}
	end = now_ns() + budget / 2;
	do {
		long long released, deadline;
		rounds++;
		pthread_mutex_lock(&mutex);
		atomic_store(&go, rounds);
		while (atomic_load(&announced) != rounds)
			;
		sleep_ns(ASLEEP_US * 1000LL);
		deadline = now_ns() + 10000000000LL;
		while (!asleep(atomic_load(&waiter_tid))) {
			if (now_ns() > deadline) {
				fprintf(stderr, "the waiter did not go to sleep within 10 s\n");
				return 1;
			}
			sleep_ns(20000);
		}
		released = now_ns();
		pthread_mutex_unlock(&mutex);
		while (atomic_load(&done) != rounds)
			;
		add(&handoffs, atomic_load(&returned) - released);
	} while (now_ns() < end || rounds < 3);
	atomic_store(&stop, 1);
	pthread_join(wt, NULL);
	qsort(handoffs.v, handoffs.n, sizeof(*handoffs.v), cmp);

	printf("%.0f %.0f %.0f %.0f %.0f %.0f %.0f %.4f %.4f %.1f\n",
	       percentile(&waits, 50), percentile(&waits, 99), percentile(&waits, 99.9),
	       waits.n ? (double)waits.v[waits.n - 1] : 0.0,
	       percentile(&handoffs, 50), percentile(&handoffs, 99),
	       handoffs.n ? (double)handoffs.v[handoffs.n - 1] : 0.0,
	       total ? (double)least * threads / total : 1.0, total ? (double)most * threads / total : 1.0,
	       total / (elapsed / 1e6));
	return 0;
}
