// SPDX-License-Identifier: GPL-2.0
/*
 * procset.c: the followed processes' readings, over the real /proc: a
 * child of this test is read while it lives, keeps its reading once it is
 * gone, and the set makes room by forgetting gone processes first.
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

#include "proc/procset.h"
#include "testio.h"

static void test_reading_outlives_process(void **state)
{
	struct procset ps;
	pid_t pid = paused_child();
	unsigned int maps;

	memset(&ps, 0, sizeof(ps));
	assert_int_equal(procset_add(&ps, (__u32)pid), 0);
	assert_int_equal(procset_add(&ps, (__u32)pid), 0); /* once */
	assert_int_equal(ps.n, 1);
	/* nothing read before the first refresh */
	assert_int_equal(ps.v[0].nr_maps, 0);
	procset_refresh(&ps, "/proc");
	maps = ps.v[0].nr_maps;
	assert_true(maps > 0);
	assert_int_equal(ps.v[0].pid, (__u32)pid);
	assert_true(ps.v[0].nr_threads == 1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* gone, and read again: the last reading with maps stays */
	procset_refresh(&ps, "/proc");
	assert_int_equal(ps.v[0].nr_maps, maps);
	procset_gone(&ps, (__u32)pid);
	assert_false(ps.live[0]);
	procset_refresh(&ps, "/proc");
	assert_int_equal(ps.v[0].nr_maps, maps);
	procset_free(&ps);
	assert_int_equal(ps.n, 0);
}

/* Full: a gone process makes room; only live ones: -ENOSPC. */
static void test_room(void **state)
{
	struct procset ps;
	unsigned int i;

	memset(&ps, 0, sizeof(ps));
	for (i = 1; i <= PROCSET_MAX; i++)
		assert_int_equal(procset_add(&ps, 4000000 + i), 0);
	assert_int_equal(procset_add(&ps, 4100000), -ENOSPC);
	procset_gone(&ps, 4000007);
	assert_int_equal(procset_add(&ps, 4100000), 0);
	assert_int_equal(ps.n, PROCSET_MAX);
	assert_int_equal(ps.v[ps.n - 1].pid, 4100000);
	for (i = 0; i < ps.n; i++)
		assert_int_not_equal(ps.v[i].pid, 4000007);
	procset_free(&ps);
}

static void test_null(void **state)
{
	assert_int_equal(procset_add(NULL, 1), -EINVAL);
	procset_gone(NULL, 1);
	procset_refresh(NULL, "/proc");
	procset_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reading_outlives_process),
		cmocka_unit_test(test_room),
		cmocka_unit_test(test_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
