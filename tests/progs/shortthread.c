// SPDX-License-Identifier: GPL-2.0
/*
 * shortthread [MS]: a thread names itself "shortlived", works MS
 * milliseconds of its own CPU time (default 100) and exits; then the main
 * thread works MS more and dereferences NULL. CPU time, not wall time: the
 * samples of it do not shrink with the load of the machine. The fatal snapshot holds samples of a thread
 * that /proc no longer shows.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static volatile unsigned long sink;
static int *volatile bad_ptr;

static __attribute__((noinline)) void spin(long ms)
{
	struct timespec t0, t;
	int i;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void *short_main(void *arg)
{
	prctl(PR_SET_NAME, "shortlived");
	spin((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 100;
	pthread_t t;

	if (pthread_create(&t, NULL, short_main, (void *)ms))
		return 1;
	pthread_join(t, NULL);
	spin(ms);
	*bad_ptr = 42;
	return 0;
}
