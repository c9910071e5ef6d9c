/*
 * A musl-linked player for MutexMuslInteropTest: uses process-shared mutexes that live in a
 * mapped file (initialized by the JVM, or by this process), as musl's own code does.
 *
 * usage: mutex_player FILE COMMAND ...
 *   init OFFSET TYPE ROBUST        pthread_mutex_init at OFFSET (pshared), print "ready"
 *   count OFFSET COUNTER THREADS N THREADS threads each do N x { lock; (*COUNTER)++; unlock },
 *                                  print "done" or "error ..."
 *   hold OFFSET...                 lock each, print "locked TID", then wait until killed
 *   lock OFFSET                    lock, print the result (0, EOWNERDEAD, ...); after EOWNERDEAD
 *                                  also make it consistent; then unlock and print "unlocked R"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static char *base;
static pthread_mutex_t *mutex;
static volatile int *counter;
static int iterations;
static volatile int failure;

static void *counting(void *arg)
{
	(void)arg;
	for (int i = 0; i < iterations; i++) {
		int r = pthread_mutex_lock(mutex);
		if (r) { failure = r; return 0; }
		(*counter)++;
		r = pthread_mutex_unlock(mutex);
		if (r) { failure = 1000 + r; return 0; }
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s FILE init|count|hold|lock ...\n", argv[0]);
		return 2;
	}
	int fd = open(argv[1], O_RDWR);
	if (fd < 0) { perror("open"); return 2; }
	base = mmap(0, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) { perror("mmap"); return 2; }
	const char *cmd = argv[2];
	if (!strcmp(cmd, "init") && argc == 6) {
		pthread_mutexattr_t a;
		pthread_mutexattr_init(&a);
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
		pthread_mutexattr_settype(&a, atoi(argv[4]));
		pthread_mutexattr_setrobust(&a, atoi(argv[5]));
		pthread_mutex_init((void *)(base + atoi(argv[3])), &a);
		printf("ready\n");
		return 0;
	}
	if (!strcmp(cmd, "count") && argc == 7) {
		mutex = (void *)(base + atoi(argv[3]));
		counter = (void *)(base + atoi(argv[4]));
		int threads = atoi(argv[5]);
		iterations = atoi(argv[6]);
		pthread_t t[64];
		printf("ready\n");
		fflush(stdout);
		for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, counting, 0);
		for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
		if (failure) printf("error %d\n", failure); else printf("done\n");
		return 0;
	}
	if (!strcmp(cmd, "hold")) {
		for (int i = 3; i < argc; i++) {
			int r = pthread_mutex_lock((void *)(base + atoi(argv[i])));
			if (r) { printf("error %d\n", r); return 1; }
		}
		printf("locked %ld\n", (long)syscall(SYS_gettid));
		fflush(stdout);
		for (;;) pause();
	}
	if (!strcmp(cmd, "lock") && argc == 4) {
		pthread_mutex_t *m = (void *)(base + atoi(argv[3]));
		int r = pthread_mutex_lock(m);
		printf("%d\n", r);
		if (r == EOWNERDEAD) pthread_mutex_consistent(m);
		if (r == 0 || r == EOWNERDEAD) printf("unlocked %d\n", pthread_mutex_unlock(m));
		return 0;
	}
	fprintf(stderr, "bad command\n");
	return 2;
}
