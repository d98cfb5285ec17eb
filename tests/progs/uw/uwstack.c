// SPDX-License-Identifier: GPL-2.0
/*
 * uwstack MODE: the stack walker's corpus (tests/integration/
 * test_uwalk.c stops it under gdb and walks its stack with the CFI
 * tables). Every mode runs main -> uw_a -> uw_b -> uw_c, then:
 *
 *   plain    uw_leaf
 *   recurse  uw_rec x6 -> uw_leaf
 *   qsort    libc's qsort -> its helpers -> uw_cmp -> uw_leaf
 *   signal   raise(SIGUSR1) in libc -> on_usr1, the handler -> uw_leaf
 *   thread   the same path in a second thread (worker -> uw_a ...)
 *   lib      lib_entry -> lib_sum -> lib_walk in libcrashlib.so (-O2,
 *            no frame pointers), called through the program's PLT
 *   dlopen   libuwlib.so dlopen()ed: uwlib_entry -> uwlib_mid ->
 *            uw_cb, back in the program -> uw_leaf
 *   noreturn uw_noreturn, whose last instruction calls uw_exit (which
 *            exits) -> uw_leaf
 *
 * Built at -O0 with frame pointers and at -O2 without (the Makefile);
 * every function is a real frame (NOINLINE) that works after its call,
 * so that no call becomes a jump that leaves no frame.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

/* libcrashlib.so's (tests/progs/lib/crashlib.c), with a list it can walk */
struct lib_node {
	struct lib_node *next;
	long value;
};

long lib_entry(const void *p, long k);

static struct lib_node nodes[3] = { { &nodes[1], 1 }, { &nodes[2], 2 }, { NULL, 3 } };
static const char *mode = "plain";
static volatile long sink;

/* the known leaf every mode but lib ends in */
NOINLINE long uw_leaf(long v)
{
	sink += v;
	return v * 2 + 1;
}

NOINLINE long uw_rec(int n, long v)
{
	long r;

	if (!n)
		return uw_leaf(v);
	r = uw_rec(n - 1, v + 1);
	sink += r;
	return r + 1;
}

/* qsort's comparison: the walk runs through libc's sort to the program */
NOINLINE int uw_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	sink += uw_leaf(x);
	return x < y ? -1 : x > y;
}

NOINLINE long uw_sort(long v)
{
	long a[8] = { 5, 3, 8, 1, 9, 2, 7, v };

	qsort(a, 8, sizeof(a[0]), uw_cmp);
	return a[0] + a[7];
}

NOINLINE void on_usr1(int sig)
{
	sink += uw_leaf(sig);
}

NOINLINE long uw_raise(long v)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	return v + sink;
}

/* libuwlib.so's call back into the program */
NOINLINE long uw_cb(long v)
{
	long r = uw_leaf(v);

	sink += r;
	return r + 1;
}

NOINLINE long uw_dl(long v)
{
	long (*entry)(long (*cb)(long), long v);
	char path[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	void *lib;

	if (n <= 0)
		return -1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libuwlib.so");
	lib = dlopen(path, RTLD_NOW);
	entry = lib ? (long (*)(long (*)(long), long))dlsym(lib, "uwlib_entry") : NULL;
	if (!entry) {
		fprintf(stderr, "uwstack: %s\n", dlerror());
		exit(1);
	}
	return entry(uw_cb, v) + 1;
}

/* it never returns: the call to it can be its caller's last byte */
NOINLINE __attribute__((noreturn)) void uw_exit(long v)
{
	sink += uw_leaf(v);
	exit(0);
}

/*
 * It ends in that call: its return address is past its own last byte (on
 * the next function's first, or on padding without CFI), and only the
 * call's own byte, the return address less one, finds its row.
 */
NOINLINE void uw_noreturn(long v)
{
	volatile long pad[4] = { v, v + 1 };

	sink += pad[0];
	uw_exit(v + pad[1]);
}

/* a frame with room of its own: the CFA is not the entry's rsp + 8 */
NOINLINE long uw_c(long v)
{
	volatile long pad[6] = { v, v + 1 };
	long r;

	if (!strcmp(mode, "recurse"))
		r = uw_rec(6, v);
	else if (!strcmp(mode, "qsort"))
		r = uw_sort(v);
	else if (!strcmp(mode, "signal"))
		r = uw_raise(v);
	else if (!strcmp(mode, "lib"))
		r = lib_entry(nodes, v);
	else if (!strcmp(mode, "dlopen"))
		r = uw_dl(v);
	else if (!strcmp(mode, "noreturn"))
		uw_noreturn(v), r = 0;
	else
		r = uw_leaf(v);
	sink += r + pad[0] + pad[1];
	return r + 1;
}

NOINLINE long uw_b(long v)
{
	long r = uw_c(v + 1);

	sink += r;
	return r * 3;
}

NOINLINE long uw_a(long v)
{
	long r = uw_b(v + 1);

	sink += r;
	return r - 1;
}

static void *worker(void *arg)
{
	sink += uw_a((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		mode = argv[1];
	if (!strcmp(mode, "thread")) {
		if (pthread_create(&t, NULL, worker, (void *)1))
			return 1;
		pthread_join(t, NULL);
		return 0;
	}
	sink += uw_a(1);
	return 0;
}
