/*
 * musl's own named semaphores against the JVM's: sem_open, sem_post, sem_wait, sem_getvalue,
 * sem_close and sem_unlink on a name the JVM opens with org.pthread4j.Sem.open.
 *
 * Built against musl:  musl-gcc -O2 -static -o sem_interop sem_interop.c
 *
 * Usage: sem_interop NAME OP [ARG] OP [ARG] ...  runs each operation in order and prints one
 * line for it:
 *   create V   sem_open(NAME, O_CREAT|O_EXCL, 0600, V)   "create ok"
 *   open       sem_open(NAME, 0)                          "open ok"
 *   post N     N times sem_post                           "post ok"
 *   wait N     N times sem_wait (sleeps while the value is 0)  "wait ok"
 *   trywait    sem_trywait                                "trywait ok" or "trywait EAGAIN"
 *   value      sem_getvalue                               "value V"
 *   ready      prints "ready" (the JVM knows the next operation is about to run)
 *   close      sem_close                                  "close ok"
 *   unlink     sem_unlink(NAME)                           "unlink ok"
 * A failure prints "error OP ERRNO-NAME" and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *errname(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	case EAGAIN: return "EAGAIN";
	case ELOOP: return "ELOOP";
	default: return strerror(e);
	}
}

static void fail(const char *op)
{
	printf("error %s %s\n", op, errname(errno));
	fflush(stdout);
	exit(1);
}

static void say(const char *s)
{
	puts(s);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s NAME OP [ARG] ...\n", argv[0]);
		return 2;
	}
	const char *name = argv[1];
	sem_t *sem = SEM_FAILED;
	for (int i = 2; i < argc; i++) {
		const char *op = argv[i];
		if (!strcmp(op, "create")) {
			sem = sem_open(name, O_CREAT | O_EXCL, 0600, (unsigned)atoi(argv[++i]));
			if (sem == SEM_FAILED) fail(op);
			say("create ok");
		} else if (!strcmp(op, "open")) {
			sem = sem_open(name, 0);
			if (sem == SEM_FAILED) fail(op);
			say("open ok");
		} else if (!strcmp(op, "post")) {
			for (int n = atoi(argv[++i]); n > 0; n--)
				if (sem_post(sem)) fail(op);
			say("post ok");
		} else if (!strcmp(op, "wait")) {
			for (int n = atoi(argv[++i]); n > 0; n--)
				while (sem_wait(sem))
					if (errno != EINTR) fail(op);
			say("wait ok");
		} else if (!strcmp(op, "trywait")) {
			if (!sem_trywait(sem)) say("trywait ok");
			else if (errno == EAGAIN) say("trywait EAGAIN");
			else fail(op);
		} else if (!strcmp(op, "value")) {
			int v;
			if (sem_getvalue(sem, &v)) fail(op);
			printf("value %d\n", v);
			fflush(stdout);
		} else if (!strcmp(op, "ready")) {
			say("ready");
		} else if (!strcmp(op, "close")) {
			if (sem_close(sem)) fail(op);
			say("close ok");
		} else if (!strcmp(op, "unlink")) {
			if (sem_unlink(name)) fail(op);
			say("unlink ok");
		} else {
			printf("error unknown operation %s\n", op);
			return 2;
		}
	}
	return 0;
}
