// SPDX-License-Identifier: GPL-2.0
/*
 * A known call graph for --trigger-on: trigger N FIRST_MS GAP_MS [thread].
 * main -> mid -> leaf, N times: the first call FIRST_MS after the start,
 * then every GAP_MS; before each call mid burns the CPU for 20 ms (so the
 * samples right before a hit are mid's). With "thread", a second thread
 * makes the calls and the main thread waits for it. Prints "leaf TID" on
 * stdout at each call, then exits 0. Also twin(), local in this file and
 * in twin/twin.c: a name --trigger-on finds twice.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static unsigned int n_calls, first_ms, gap_ms;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_until(double t)
{
	double now;

	while ((now = now_ms()) < t)
		usleep((useconds_t)((t - now) * 1000));
}

__attribute__((noinline)) void leaf(void)
{
	printf("leaf %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
}

__attribute__((noinline)) void mid(void)
{
	double end = now_ms() + 20;

	while (now_ms() < end)
		sink++;
	leaf();
}

static __attribute__((noinline)) void twin(void)
{
	sink += 2;
}

void twin_other(void); /* twin/twin.c */

static void *calls(void *arg)
{
	double t0 = *(double *)arg;
	unsigned int i;

	for (i = 0; i < n_calls; i++) {
		sleep_until(t0 + first_ms + (double)i * gap_ms - 20);
		mid();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double t0 = now_ms();
	pthread_t th;

	if (argc < 4) {
		fprintf(stderr, "usage: trigger N FIRST_MS GAP_MS [thread]\n");
		return 2;
	}
	n_calls = (unsigned int)strtoul(argv[1], NULL, 10);
	first_ms = (unsigned int)strtoul(argv[2], NULL, 10);
	gap_ms = (unsigned int)strtoul(argv[3], NULL, 10);
	twin();
	twin_other();
	if (argc > 4) {
		if (pthread_create(&th, NULL, calls, &t0))
			return 1;
		pthread_join(th, NULL);
	} else {
		calls(&t0);
	}
	return 0;
}
