// SPDX-License-Identifier: GPL-2.0
/*
 * proccache.c: the snapshot writer's readings of /proc, over the real
 * /proc: the target's reading with maps outlives it, an exited thread
 * keeps the name the events gave it, a followed child is read once told
 * of and kept once gone, and what a snapshot borrows is handed back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/proccache.h"
#include "testio.h"

/* A snapshot with no cores: nothing of the kernel's to merge. */
static void fill(struct proccache *pc, struct snapshot *snap, struct snap_thread **threads)
{
	memset(snap, 0, sizeof(*snap));
	proccache_fill(pc, snap, threads);
}

static void test_target_outlives_itself(void **state)
{
	struct snap_thread *threads;
	struct proccache pc;
	struct snapshot snap;
	pid_t pid = paused_child();
	unsigned int maps, i;
	bool named = false;

	proccache_init(&pc, NULL, (uint32_t)pid);
	fill(&pc, &snap, &threads);
	maps = snap.proc.nr_maps;
	assert_true(maps > 0);
	assert_int_equal(snap.proc.pid, (uint32_t)pid);
	proccache_put(&snap);
	assert_int_equal(snap.proc.nr_maps, 0);
	free(threads);
	/* a thread the events named, gone before /proc was read */
	proccache_note_thread(&pc, 7777777, "gone-thread");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	proccache_refresh(&pc);
	fill(&pc, &snap, &threads);
	assert_int_equal(snap.proc.nr_maps, maps);
	for (i = 0; i < snap.proc.nr_threads; i++)
		named |= snap.proc.threads[i].tid == 7777777 &&
			 !strcmp(snap.proc.threads[i].comm, "gone-thread");
	assert_true(named);
	proccache_put(&snap);
	free(threads);
	proccache_free(&pc);
}

static void test_followed(void **state)
{
	struct snap_thread *threads;
	struct proccache pc;
	struct snapshot snap;
	pid_t child = paused_child();

	proccache_init(&pc, "/proc", (uint32_t)getpid());
	assert_int_equal(proccache_follow(&pc, (uint32_t)child, false), 0);
	fill(&pc, &snap, &threads);
	assert_int_equal(snap.nr_more, 1);
	assert_int_equal(snap.more[0].pid, (uint32_t)child);
	assert_true(snap.more[0].nr_maps > 0);
	proccache_put(&snap);
	assert_null(snap.more);
	free(threads);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(proccache_follow(&pc, (uint32_t)child, true), 0);
	fill(&pc, &snap, &threads);
	assert_int_equal(snap.nr_more, 1);
	assert_true(snap.more[0].nr_maps > 0);
	proccache_put(&snap);
	free(threads);
	proccache_free(&pc);
}

static void test_null(void **state)
{
	proccache_note_thread(NULL, 1, "x");
	assert_int_equal(proccache_follow(NULL, 1, false), -EINVAL);
	proccache_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_outlives_itself),
		cmocka_unit_test(test_followed),
		cmocka_unit_test(test_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
