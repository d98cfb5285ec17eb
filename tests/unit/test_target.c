// SPDX-License-Identifier: GPL-2.0
/*
 * The thread facts the state scan takes from /proc, over a fake /proc
 * tree: which threads count as live, and which have begun to exit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "target/target.h"
#include "../testio.h"

#define PID 4242

static char root[64];

/* @root/PID/task/TID/stat with state @st and task flags @flags. */
static void fake_thread(int tid, char st, unsigned long flags)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/task/%d", root, PID, tid);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", root, PID, tid);
	f = fopen(path, "w");
	assert_non_null(f);
	/* a comm with ") " in it: the fields are those after the last ')' */
	fprintf(f, "%d (a) b) %c 1 %d %d 0 -1 %lu 0 0 0 0 1 2 0 0 20 0 1 0 100\n", tid, st, PID,
		PID, flags);
	fclose(f);
}

static int setup(void **state)
{
	char path[160];

	snprintf(root, sizeof(root), "/tmp/ptbpf-target-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(path, sizeof(path), "%s/%d", root, PID);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task", root, PID);
	return mkdir(path, 0755);
}

static int teardown(void **state)
{
	rm_tree(root);
	return 0;
}

/*
 * A thread that has set PF_EXITING may already have passed the kernel's
 * exit tracepoint while /proc still lists it as running: exiting.
 */
static void test_exiting(void **state)
{
	fake_thread(10, 'R', 0x00400040); /* PF_FORKNOEXEC | PF_RANDOMIZE */
	fake_thread(11, 'R', 0x00400044); /* the same, and PF_EXITING */
	fake_thread(12, 'T', 0x00400040);
	fake_thread(13, 'Z', 0x00400044);
	assert_false(target_thread_exiting(root, PID, "10"));
	assert_true(target_thread_exiting(root, PID, "11"));
	assert_false(target_thread_exiting(root, PID, "12"));
	assert_true(target_thread_exiting(root, PID, "13"));
	/* no longer in /proc: reaped */
	assert_true(target_thread_exiting(root, PID, "14"));
}

/* The live threads leave out the zombies, not the exiting ones. */
static void test_live_threads(void **state)
{
	pid_t *tids;
	int n;

	fake_thread(20, 'S', 0x00400040);
	fake_thread(21, 'Z', 0x00400044);
	fake_thread(22, 't', 0x00400040);
	n = target_threads(root, PID, &tids);
	assert_int_equal(n, 2);
	assert_true((tids[0] == 20 && tids[1] == 22) || (tids[0] == 22 && tids[1] == 20));
	free(tids);
	assert_int_equal(target_threads(root, PID + 1, &tids), -ESRCH);
}

/* The real /proc: this thread runs, and is not exiting. */
static void test_real_self(void **state)
{
	char tid[16];

	snprintf(tid, sizeof(tid), "%d", getpid());
	assert_false(target_thread_exiting("/proc", getpid(), tid));
	assert_int_equal(target_thread_state("/proc", getpid(), tid), 'R');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exiting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_threads, setup, teardown),
		cmocka_unit_test(test_real_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
