// SPDX-License-Identifier: GPL-2.0
/*
 * libcrashlib.so, the project's own shared library without frame pointers
 * (-O2 -fomit-frame-pointer, as distributions build theirs): lib_entry ->
 * lib_sum -> lib_walk, which follows a bad pointer. tests/progs/crashlib
 * calls it at the end of a known call path: the crash record's backtrace
 * runs through a library that only its CFI unwinds.
 */
#define NOINLINE __attribute__((noinline, noclone, visibility("default")))

struct lib_node {
	struct lib_node *next;
	long value;
};

static volatile long lib_sink;

NOINLINE long lib_walk(const struct lib_node *n)
{
	long sum = 0;

	while (n) {
		sum += n->value;
		n = n->next;
	}
	return sum;
}

/* work after each call: no call becomes a jump that leaves no frame */
NOINLINE long lib_sum(const struct lib_node *n, long k)
{
	long r = lib_walk(n);

	lib_sink += r;
	return r * k + 1;
}

NOINLINE long lib_entry(const void *p, long k)
{
	long r = lib_sum(p, k + 1);

	lib_sink += r;
	return r + k;
}
