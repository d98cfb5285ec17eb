// SPDX-License-Identifier: GPL-2.0
/*
 * callstack [MS]: a known call path for the call-stack tests. main() calls
 * build(), which spends MS milliseconds of CPU time (default 200) in
 * crunch(); then walk_and_crash(), which spends MS more in crunch() and
 * dereferences NULL: a SIGSEGV with the default action. Samples in crunch() tell the two
 * phases apart only by their callers.
 *
 * Built twice: with frame pointers (callstack) and without
 * (callstack-nofp, for --call-graph dwarf).
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
/* volatile: the compiler may not prove it NULL and drop the store */
static int *volatile bad_ptr;

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Plain user-space work for @ms of its own CPU time (not wall time: the
 * samples of it do not shrink with the machine's load); the clock is read
 * rarely so samples land here.
 */
static __attribute__((noinline)) void crunch(long ms)
{
	struct timespec t0;
	int i;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (i = 0; i < 100000; i++)
			sink += i;
	} while (elapsed_ms(&t0) < ms);
}

static __attribute__((noinline)) void build(long ms)
{
	crunch(ms);
	sink++; /* no tail call: build stays on the stack */
}

static __attribute__((noinline)) void walk_and_crash(long ms)
{
	crunch(ms);
	*bad_ptr = 42;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 200;

	build(ms);
	walk_and_crash(ms);
	return 0;
}
