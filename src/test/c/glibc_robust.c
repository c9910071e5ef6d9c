/*
 * A glibc robust mutex for RobustListGlibcTest, loaded into the JVM through FFM: native code
 * on a JVM thread locks it, and glibc links it into the robust list glibc registered for that
 * thread (futex_offset -32).
 *
 * Built with the system's gcc (glibc):  gcc -O2 -shared -fPIC -o libglibc_robust.so glibc_robust.c
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <time.h>

size_t glibc_robust_size(void)
{
	return sizeof(pthread_mutex_t);
}

/* Initializes a robust, process-private mutex; 0 or an errno. */
int glibc_robust_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int e = pthread_mutexattr_init(&a);
	if (!e) e = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (!e) e = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return e;
}

int glibc_robust_lock(pthread_mutex_t *m)
{
	return pthread_mutex_lock(m);
}

/* pthread_mutex_timedlock with a deadline MS milliseconds from now on CLOCK_REALTIME. */
int glibc_robust_timedlock(pthread_mutex_t *m, long ms)
{
	struct timespec at;
	clock_gettime(CLOCK_REALTIME, &at);
	at.tv_sec += ms / 1000;
	at.tv_nsec += (ms % 1000) * 1000000L;
	if (at.tv_nsec >= 1000000000L) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000L;
	}
	return pthread_mutex_timedlock(m, &at);
}

int glibc_robust_consistent(pthread_mutex_t *m)
{
	return pthread_mutex_consistent(m);
}

int glibc_robust_unlock(pthread_mutex_t *m)
{
	return pthread_mutex_unlock(m);
}
