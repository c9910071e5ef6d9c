/*
 * Seed 003's swap test in C, the baseline of `./pthread4j bench futex`.
 *
 *   futex_swap swap MILLIS   two threads, each with its own futex word: set own word to
 *                            WAITING, set the other's to WAKEUP, FUTEX_WAKE it, FUTEX_WAIT on
 *                            own word (the seed's SWAP_WAKE_WAIT; the kernel has no
 *                            FUTEX_SWAP). Prints ns per round trip.
 *   futex_swap wake MILLIS   FUTEX_WAKE on a private word nobody waits on. Prints ns per wake.
 *
 * Each mode runs untimed for a fifth of MILLIS (warm-up), then measures for MILLIS and prints
 * one number on its last line. Private futexes (FUTEX_PRIVATE_FLAG), as in the seed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FUTEX_WAITING 0
#define FUTEX_WAKEUP 1

static _Alignas(64) atomic_int futex_main;
static _Alignas(64) atomic_int futex_other;
static atomic_int stop;

static long sys_futex(atomic_int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The seed's futex_swap_op(SWAP_WAKE_WAIT, this, that), waiting in a loop against spurious wakes. */
static void swap_op(atomic_int *this, atomic_int *that)
{
	atomic_store(this, FUTEX_WAITING);
	atomic_store(that, FUTEX_WAKEUP);
	sys_futex(that, FUTEX_WAKE_PRIVATE, 1);
	while (atomic_load(this) == FUTEX_WAITING)
		sys_futex(this, FUTEX_WAIT_PRIVATE, FUTEX_WAITING);
}

static void *other_thread(void *arg)
{
	(void)arg;
	while (atomic_load(&futex_other) == FUTEX_WAITING)
		sys_futex(&futex_other, FUTEX_WAIT_PRIVATE, FUTEX_WAITING);
	while (!atomic_load(&stop))
		swap_op(&futex_other, &futex_main);
	return NULL;
}

static double swap_bench(long long budget)
{
	pthread_t thread;
	long long t0, elapsed, warm_end;
	long count = 0;

	if (pthread_create(&thread, NULL, other_thread, NULL)) {
		perror("pthread_create");
		exit(1);
	}
	warm_end = now_ns() + budget / 5;
	while (now_ns() < warm_end)
		swap_op(&futex_main, &futex_other);
	t0 = now_ns();
	do {
		swap_op(&futex_main, &futex_other);
		count++;
		elapsed = now_ns() - t0;
	} while (elapsed < budget);
	/* The other thread sleeps on its word: send it the final wake. */
	atomic_store(&stop, 1);
	atomic_store(&futex_other, FUTEX_WAKEUP);
	sys_futex(&futex_other, FUTEX_WAKE_PRIVATE, 1);
	pthread_join(thread, NULL);
	return (double)elapsed / count;
}

static double wake_bench(long long budget)
{
	static atomic_int word;
	long long t0, elapsed, warm_end;
	long count = 0;
	int i;

	warm_end = now_ns() + budget / 5;
	while (now_ns() < warm_end)
		sys_futex(&word, FUTEX_WAKE_PRIVATE, 1);
	t0 = now_ns();
	do {
		for (i = 0; i < 256; i++) {
			if (sys_futex(&word, FUTEX_WAKE_PRIVATE, 1) < 0) {
				perror("futex wake");
				exit(1);
			}
		}
		count += 256;
		elapsed = now_ns() - t0;
	} while (elapsed < budget);
	return (double)elapsed / count;
}

int main(int argc, char **argv)
{
	long long budget;

	if (argc != 3 || (strcmp(argv[1], "swap") && strcmp(argv[1], "wake"))) {
		fprintf(stderr, "usage: %s swap|wake MILLIS\n", argv[0]);
		return 2;
	}
	budget = atoll(argv[2]) * 1000000LL;
	if (budget <= 0) {
		fprintf(stderr, "MILLIS must be positive\n");
		return 2;
	}
	printf("%.1f\n", strcmp(argv[1], "swap") == 0 ? swap_bench(budget) : wake_bench(budget));
	return 0;
}
