/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call path the crash programs share (crashpath, crashlib, crashdl):
 * main -> level1 -> level2 -> level3, where the program's own level3()
 * goes on to its crash. test_crash.c finds these names in the backtraces
 * of ptbpf and gdb, so each is a real frame: never inlined or cloned
 * (NOINLINE), and each does work after its call, so no call becomes a
 * jump (a tail call leaves no frame, for gdb or anyone).
 */
#ifndef PTBPF_CRASHCHAIN_H
#define PTBPF_CRASHCHAIN_H

#define NOINLINE __attribute__((noinline, noclone))

static volatile long sink;

/* The including program's: the end of the path. */
static NOINLINE long level3(long v);

static NOINLINE long level2(long v)
{
	long r = level3(v + 1);

	sink += r;
	return r + 1;
}

static NOINLINE long level1(long v)
{
	long r = level2(v + 1);

	sink += r;
	return r + 1;
}

#endif /* PTBPF_CRASHCHAIN_H */
