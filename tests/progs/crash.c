// SPDX-License-Identifier: GPL-2.0
/*
 * crash [MS]: works for MS milliseconds (default 200), then dereferences
 * NULL: a SIGSEGV with the default action.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void work(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* volatile: the compiler may not prove it NULL and drop the store */
static int *volatile bad_ptr;

static __attribute__((noinline)) void crash(void)
{
	*bad_ptr = 42;
}

int main(int argc, char **argv)
{
	work(argc > 1 ? atol(argv[1]) : 200);
	crash();
	return 0;
}
