// SPDX-License-Identifier: GPL-2.0
/*
 * hotcall N: calls hot() N times and prints the mean ns a call took;
 * hotcall 0: waits (pause()) for a signal, an idle --trigger-on target.
 * For `make bench` trigger: the cost of a --trigger-on point to a process
 * that calls the function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void hot(void)
{
	sink++;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	long n, i;

	if (argc < 2)
		return 2;
	n = atol(argv[1]);
	if (n <= 0) {
		pause();
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		hot();
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
