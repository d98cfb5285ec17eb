// SPDX-License-Identifier: GPL-2.0
/* The tracer's clocks: see clock.h. */
#include <time.h>

#include "clock.h"

uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void clock_pair(uint64_t *real, uint64_t *mono)
{
	struct timespec a, r, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*real = (uint64_t)r.tv_sec * 1000000000ULL + r.tv_nsec;
	*mono = ((uint64_t)a.tv_sec * 1000000000ULL + a.tv_nsec) / 2 +
		((uint64_t)b.tv_sec * 1000000000ULL + b.tv_nsec) / 2;
}
