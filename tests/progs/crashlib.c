// SPDX-License-Identifier: GPL-2.0
/*
 * crashlib [segv]: main -> level1 -> level2 -> level3 -> lib_entry ->
 * lib_sum -> lib_walk, the last three in libcrashlib.so, built without
 * frame pointers (tests/progs/lib/crashlib.c), which dereferences a bad
 * pointer: a crash inside a frameless shared library for the crash
 * record's backtrace, checked against gdb's (test_crash.c).
 */
#include <unistd.h>

#include "crashchain.h"

long lib_entry(const void *p, long k);

static const void *volatile bad = (const void *)0xdead0000;

static NOINLINE long level3(long v)
{
	long r = lib_entry(bad, v);

	sink += r;
	return r + v;
}

int main(void)
{
	/* the tracer's start and the debugger's run: a moment to settle */
	usleep(100000);
	sink += level1(1);
	return 0;
}
