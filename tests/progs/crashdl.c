// SPDX-License-Identifier: GPL-2.0
/*
 * crashdl [segv]: main -> level1 -> level2 -> level3, which dlopen()s
 * libcrashlib.so (next to this program) and calls its lib_entry at once:
 * lib_sum -> lib_walk follow a bad pointer microseconds after the library
 * was mapped. No /proc reading can have seen it: only the kernel's MMAP2
 * record names its frames (test_crash.c, against gdb).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crashchain.h"

static NOINLINE long level3(long v)
{
	char path[PATH_MAX], *slash;
	long (*entry)(const void *p, long k);
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	void *lib;
	long r;

	if (n <= 0)
		return -1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libcrashlib.so");
	lib = dlopen(path, RTLD_NOW);
	entry = lib ? (long (*)(const void *, long))dlsym(lib, "lib_entry") : NULL;
	if (!entry) {
		fprintf(stderr, "crashdl: %s\n", dlerror());
		return -1;
	}
	r = entry((const void *)0xdead0000, v);
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
