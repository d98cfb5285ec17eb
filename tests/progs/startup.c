// SPDX-License-Identifier: GPL-2.0
/*
 * startup [MS]: a program whose first work is known: main() first spends
 * MS milliseconds of CPU (default 100) in first_work(), then MS more in
 * later_work(), and exits 0. For --wait-for: samples in first_work() are
 * there only if tracing began with the program's start.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The clock is read once every 100000 rounds: samples land here. */
static __attribute__((noinline)) void spin(double secs)
{
	double until = cpu_s() + secs;
	unsigned long i;

	while (cpu_s() < until)
		for (i = 0; i < 100000; i++)
			sink++;
}

static __attribute__((noinline)) void first_work(double secs)
{
	spin(secs);
	sink++; /* not a tail call: first_work stays on the stack */
}

static __attribute__((noinline)) void later_work(double secs)
{
	spin(secs);
	sink++;
}

int main(int argc, char **argv)
{
	double secs = (argc > 1 ? atoi(argv[1]) : 100) / 1e3;

	first_work(secs);
	later_work(secs);
	return 0;
}
