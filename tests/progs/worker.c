// SPDX-License-Identifier: GPL-2.0
/*
 * worker MS: hashes strings in checksum() under compute() for MS
 * milliseconds (default 1000) of wall time, then exits 0. Known function
 * names for perf report, and a target that ends on its own with status 0.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static __attribute__((noinline)) unsigned long checksum(const char *s, size_t n)
{
	unsigned long h = 5381;

	while (n--)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static __attribute__((noinline)) void compute(void)
{
	static const char text[] = "the quick brown fox jumps over the dog";
	int i;

	for (i = 0; i < 1000; i++)
		sink += checksum(text, sizeof(text) - 1);
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed_ms(&t0) < ms)
		compute();
	return 0;
}
