// SPDX-License-Identifier: GPL-2.0
/*
 * ticker [N [MS]]: N times (default 1000000), burns MS milliseconds of CPU
 * (default 20) in burn(), then calls report(iter): a function for a
 * debugger's breakpoint with work between its hits. Exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void burn(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* a breakpoint's home: `break report if iter < 0` never holds */
__attribute__((noinline)) void report(long iter)
{
	sink += iter;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	long ms = argc > 2 ? atol(argv[2]) : 20;
	long iter;

	for (iter = 0; iter < n; iter++) {
		burn(ms);
		report(iter);
	}
	return 0;
}
