// SPDX-License-Identifier: GPL-2.0
/*
 * libuwlib.so, the stack walker's dlopen()ed library (tests/progs/uw/
 * uwstack.c, mode dlopen): uwlib_entry -> uwlib_mid -> the program's
 * callback, so the walk crosses from the program into the library and
 * back. Built -O2 without frame pointers and without unwind tables
 * (-fno-asynchronous-unwind-tables): its functions' CFI is in
 * .debug_frame alone, which the tables read where .eh_frame has none.
 */
#define NOINLINE __attribute__((noinline, noclone, visibility("default")))

static volatile long uwlib_sink;

/* a few values kept across the call: pushes the CFI must follow */
NOINLINE long uwlib_mid(long (*cb)(long), long v)
{
	long a = v * 3, b = v ^ 5, c = v + 7;
	long r = cb(v + 1);

	uwlib_sink += a + b + c;
	return r + a * b - c;
}

/* work after each call: no call becomes a jump that leaves no frame */
NOINLINE long uwlib_entry(long (*cb)(long), long v)
{
	long r = uwlib_mid(cb, v + 1);

	uwlib_sink += r;
	return r + 1;
}
