/*
 * Cross-process condvar ping-pong in C, the baselines of `./pthread4j bench ipc`, against the C
 * library it is built with (glibc with gcc, musl with musl-gcc).
 *
 *   ipc_pingpong fork MILLIS
 *       Two processes (fork) share a MAP_SHARED page holding a PTHREAD_PROCESS_SHARED
 *       pthread_mutex_t, a PTHREAD_PROCESS_SHARED pthread_cond_t (CLOCK_REALTIME), a turn word
 *       and a stop word. A round trip: the parent (ping) locks, waits on the condvar while the
 *       turn is not 0, sets it to 1, signals, unlocks; the child (pong) does the same with the
 *       roles swapped. The parent warms up for a fifth of MILLIS, then counts round trips for
 *       MILLIS and prints ns per round trip. It checks that the child flipped the turn exactly
 *       as often as it did (exit 1 otherwise).
 *
 *   ipc_pingpong file PATH MUTEX_OFFSET COND_OFFSET TURN_OFFSET MILLIS
 *       The ping side only, against a pong played by a JVM on a pthread4j sync file: maps PATH
 *       and uses the mutex, the condvar and the turn word at the given byte offsets, which the
 *       JVM initialized (musl's x86_64 layout, so this mode needs musl: a glibc build refuses
 *       it). Same warm-up and loop; prints ns per round trip and the number of round trips
 *       made in all (warm-up included), for the JVM to check against its own count.
 *
 * Every process here asks the kernel to kill it when its parent dies (PR_SET_PDEATHSIG), so a
 * bench that is stopped or killed leaves no process behind blocked in a condvar wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
	pthread_mutex_t m;
	pthread_cond_t c;
	volatile int turn;
	volatile int stop;
	volatile long pongs;
};

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void check(int r, const char *what)
{
	if (r) {
		fprintf(stderr, "ipc_pingpong: %s: %s\n", what, strerror(r));
		exit(1);
	}
}

/* Dies with the parent; exits at once when the parent is already gone. */
static void die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
}

/* One round trip from the ping side: wait for turn 0, hand the turn to the pong side. */
static void ping(pthread_mutex_t *m, pthread_cond_t *c, volatile int *turn)
{
	check(pthread_mutex_lock(m), "pthread_mutex_lock");
	while (*turn != 0)
		check(pthread_cond_wait(c, m), "pthread_cond_wait");
	*turn = 1;
	check(pthread_cond_signal(c), "pthread_cond_signal");
	check(pthread_mutex_unlock(m), "pthread_mutex_unlock");
}

/* Warms up for a fifth of the budget, then returns ns per round trip over the budget; *rounds
 * gets every round trip made. */
static double measure(pthread_mutex_t *m, pthread_cond_t *c, volatile int *turn, long long budget, long *rounds)
{
	long long t0 = now_ns(), t;
	long warm = 0, count = 0;

	do {
		ping(m, c, turn);
		warm++;
	} while (now_ns() - t0 < budget / 5);
	t0 = now_ns();
	do {
		ping(m, c, turn);
		count++;
		t = now_ns() - t0;
	} while (t < budget);
	*rounds = warm + count;
	return (double)t / count;
}

static int fork_mode(long long budget)
{
	struct shared *s;
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pid_t parent = getpid(), child;
	long rounds;
	double ns;
	int status;

	s = mmap(0, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		perror("ipc_pingpong: mmap");
		return 1;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	check(pthread_mutex_init(&s->m, &ma), "pthread_mutex_init");
	check(pthread_cond_init(&s->c, &ca), "pthread_cond_init");
	s->turn = 0;
	s->stop = 0;
	s->pongs = 0;
	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("ipc_pingpong: fork");
		return 1;
	}
	if (child == 0) {
		/* pong: wait for turn 1, hand it back; leave when told to stop */
		die_with_parent(parent);
		for (;;) {
			check(pthread_mutex_lock(&s->m), "pthread_mutex_lock");
			while (s->turn != 1 && !s->stop)
				check(pthread_cond_wait(&s->c, &s->m), "pthread_cond_wait");
			if (s->turn != 1) {
				check(pthread_mutex_unlock(&s->m), "pthread_mutex_unlock");
				_exit(0);
			}
			s->turn = 0;
			s->pongs++;
			check(pthread_cond_signal(&s->c), "pthread_cond_signal");
			check(pthread_mutex_unlock(&s->m), "pthread_mutex_unlock");
		}
	}
	ns = measure(&s->m, &s->c, &s->turn, budget, &rounds);
	/* Take the last turn back before stopping, so the child's count is exact. */
	check(pthread_mutex_lock(&s->m), "pthread_mutex_lock");
	while (s->turn != 0)
		check(pthread_cond_wait(&s->c, &s->m), "pthread_cond_wait");
	s->stop = 1;
	check(pthread_cond_broadcast(&s->c), "pthread_cond_broadcast");
	check(pthread_mutex_unlock(&s->m), "pthread_mutex_unlock");
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "ipc_pingpong: the pong process failed\n");
		return 1;
	}
	if (s->pongs != rounds) {
		fprintf(stderr, "ipc_pingpong: %ld pings but %ld pongs\n", rounds, s->pongs);
		return 1;
	}
	printf("%.1f\n", ns);
	return 0;
}

static int file_mode(const char *path, long mo, long co, long to, long long budget)
{
#ifdef __GLIBC__
	(void)path; (void)mo; (void)co; (void)to; (void)budget;
	fprintf(stderr, "ipc_pingpong: file mode needs musl's pthread layout (build with musl-gcc)\n");
	return 2;
#else
	struct stat st;
	unsigned char *base;
	long rounds;
	double ns;
	int fd;

	die_with_parent(getppid());
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		perror("ipc_pingpong: open");
		return 1;
	}
	if (mo < 0 || co < 0 || to < 0 || mo + (long)sizeof(pthread_mutex_t) > st.st_size
	    || co + (long)sizeof(pthread_cond_t) > st.st_size || to + (long)sizeof(int) > st.st_size
	    || mo % 8 || co % 8 || to % 4) {
		fprintf(stderr, "ipc_pingpong: offsets out of the file's bounds or misaligned\n");
		return 2;
	}
	base = mmap(0, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		perror("ipc_pingpong: mmap");
		return 1;
	}
	close(fd);
	ns = measure((pthread_mutex_t *)(base + mo), (pthread_cond_t *)(base + co), (volatile int *)(base + to),
		budget, &rounds);
	printf("%.1f %ld\n", ns, rounds);
	return 0;
#endif
}

int main(int argc, char **argv)
{
	long long budget = atoll(argv[argc - 1]) * 1000000LL;

	if (argc == 3 && !strcmp(argv[1], "fork") && budget > 0)
		return fork_mode(budget);
	if (argc == 7 && !strcmp(argv[1], "file") && budget > 0)
		return file_mode(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]), budget);
	fprintf(stderr, "usage: %s fork MILLIS\n"
		"       %s file PATH MUTEX_OFFSET COND_OFFSET TURN_OFFSET MILLIS\n", argv[0], argv[0]);
	return 2;
}
