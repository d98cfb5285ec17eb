// SPDX-License-Identifier: GPL-2.0
/*
 * crashpath MODE: dies of a fatal signal at the end of a known call path,
 * for the crash record's backtrace to be checked against gdb's.
 *
 *   segv    main -> level1 -> level2 -> level3 -> walk_list: a bad pointer
 *   strlen  main -> level1 -> level2 -> level3 -> strlen(NULL), in libc
 *   abort   main -> level1 -> level2 -> level3 -> check: a failed assert()
 *   thread  a second thread: worker -> level1 -> ... -> walk_list
 *   wait    main -> level1 -> level2 -> level3 -> nap: sleeps until a
 *           signal comes from outside (kill -SEGV)
 *
 * Each level does work after its call, so no call becomes a jump (a tail
 * call leaves no frame, for gdb or anyone). Built with and without frame
 * pointers, at -O0 and -O2 (the Makefile).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crashchain.h"

struct node {
	struct node *next;
	long value;
};

static const char *mode = "segv";
/* volatile: the compiler may not prove what they hold */
static const char *volatile null_str;
static struct node *volatile bad_node = (struct node *)0xdead0000;

static NOINLINE long walk_list(struct node *n)
{
	long sum = 0;

	while (n) {
		sum += n->value;
		n = n->next;
	}
	return sum;
}

static NOINLINE long check(long v)
{
	assert(v < 0 && "the value is negative");
	return v;
}

static NOINLINE long nap(long v)
{
	for (;;)
		pause();
	return v;
}

static NOINLINE long level3(long v)
{
	long r;

	if (!strcmp(mode, "strlen"))
		r = (long)strlen(null_str);
	else if (!strcmp(mode, "abort"))
		r = check(v);
	else if (!strcmp(mode, "wait"))
		r = nap(v);
	else
		r = walk_list(bad_node);
	sink += r;
	return r + v;
}

static void *worker(void *arg)
{
	sink += level1((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		mode = argv[1];
	/* the tracer's start and the debugger's run: a moment to settle */
	usleep(100000);
	if (!strcmp(mode, "thread")) {
		if (pthread_create(&t, NULL, worker, (void *)1))
			return 1;
		pthread_join(t, NULL);
		return 0;
	}
	sink += level1(1);
	return 0;
}
