// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy BYTES: median ns of one memcpy of BYTES from a filled buffer into
 * a pre-faulted one (as a snapshot's staging copy is), over 7 copies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 0;
	unsigned long long v[7];
	char *src, *dst;

	if (!n)
		return 2;
	src = malloc(n);
	dst = malloc(n);
	if (!src || !dst)
		return 1;
	memset(src, 0x5a, n);
	memset(dst, 0, n);
	for (int i = 0; i < 7; i++) {
		unsigned long long t0 = now_ns();

		memcpy(dst, src, n);
		v[i] = now_ns() - t0;
		/* keep the copy from being optimised out */
		src[i % n] = dst[(i * 7919) % n] + 1;
	}
	qsort(v, 7, sizeof(v[0]), cmp);
	printf("%llu\n", v[3]);
	free(src);
	free(dst);
	return 0;
}
