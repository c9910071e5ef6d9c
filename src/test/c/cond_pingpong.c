/*
 * A musl-linked player for CondPingPong's file layout (mutex at 0, condvar at 64, turn word at
 * 128, round counter at 132), for CondMuslInteropTest.
 *
 * usage: cond_pingpong FILE PLAYER ROUNDS signal|broadcast [init-normal|init-errorcheck]
 *
 * With an init argument it initializes the process-shared mutex and condvar (CLOCK_MONOTONIC)
 * itself, for the JVM to attach; without, it uses the ones the JVM initialized. Prints "ready",
 * plays, prints "done ROUNDS" or "error ...".
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: %s FILE PLAYER ROUNDS signal|broadcast [init-normal|init-errorcheck]\n", argv[0]);
		return 2;
	}
	int fd = open(argv[1], O_RDWR);
	if (fd < 0) { perror("open"); return 2; }
	char *p = mmap(0, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) { perror("mmap"); return 2; }
	int me = atoi(argv[2]), rounds = atoi(argv[3]), sig = !strcmp(argv[4], "signal");
	pthread_mutex_t *m = (void *)p;
	pthread_cond_t *c = (void *)(p + 64);
	volatile int *turn = (void *)(p + 128), *count = (void *)(p + 132);
	clockid_t clk = CLOCK_REALTIME;

	if (argc > 5) {
		pthread_mutexattr_t ma;
		pthread_condattr_t ca;
		pthread_mutexattr_init(&ma);
		pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
		if (!strcmp(argv[5], "init-errorcheck"))
			pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
		pthread_condattr_init(&ca);
		pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_mutex_init(m, &ma);
		pthread_cond_init(c, &ca);
		clk = CLOCK_MONOTONIC;
	}
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < rounds; i++) {
		int r = pthread_mutex_lock(m);
		if (r) { printf("error round %d lock %d\n", i, r); return 1; }
		while (*turn != me) {
			struct timespec ts;
			clock_gettime(clk, &ts);
			ts.tv_sec += 60;
			r = pthread_cond_timedwait(c, m, &ts);
			if (r) { printf("error round %d timedwait %d\n", i, r); return 1; }
		}
		*turn = 1 - me;
		*count = *count + 1;
		r = sig ? pthread_cond_signal(c) : pthread_cond_broadcast(c);
		if (r) { printf("error round %d wake %d\n", i, r); return 1; }
		r = pthread_mutex_unlock(m);
		if (r) { printf("error round %d unlock %d\n", i, r); return 1; }
	}
	printf("done %d\n", rounds);
	fflush(stdout);
	return 0;
}
