// SPDX-License-Identifier: GPL-2.0
/* Thread names from the BPF events (threadnames.c), in memory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proc/threadnames.h"

static void test_note_and_merge(void **state)
{
	struct snap_thread live_v[] = { { 10, "main" }, { 12, "live-now" } };
	struct snap_process live = { .nr_threads = 2, .threads = live_v };
	struct threadnames t = { 0 };
	struct snap_thread *out;
	unsigned int n = 999;

	assert_int_equal(threadnames_note(&t, 11, "worker"), 0);
	assert_int_equal(threadnames_note(&t, 12, "old-name"), 0);
	assert_int_equal(threadnames_note(&t, 13, "a-very-long-thread-name"), 0);
	/* a second note of 11 (its exit, after a rename) replaces the first */
	assert_int_equal(threadnames_note(&t, 11, "renamed"), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(threadnames_merge(&t, &live, &out, &n), 0);
	/* /proc's threads first, with its names; then the gone ones */
	assert_int_equal(n, 4);
	assert_int_equal(out[0].tid, 10);
	assert_int_equal(out[1].tid, 12);
	assert_string_equal(out[1].comm, "live-now");
	assert_int_equal(out[2].tid, 13);
	assert_string_equal(out[2].comm, "a-very-long-thr");
	assert_int_equal(out[3].tid, 11);
	assert_string_equal(out[3].comm, "renamed");
	free(out);
	threadnames_free(&t);
	assert_int_equal(t.n, 0);
	assert_null(t.v);
}

/* Full: the least recently noted thread is forgotten first. */
static void test_bounded(void **state)
{
	struct snap_process none = { 0 };
	struct threadnames t = { .max = 3 };
	struct snap_thread *out;
	unsigned int n;

	threadnames_note(&t, 1, "a");
	threadnames_note(&t, 2, "b");
	threadnames_note(&t, 3, "c");
	threadnames_note(&t, 1, "a2"); /* 1 is now the newest */
	threadnames_note(&t, 4, "d"); /* 2 goes */
	assert_int_equal(threadnames_merge(&t, &none, &out, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].tid, 3);
	assert_int_equal(out[1].tid, 1);
	assert_string_equal(out[1].comm, "a2");
	assert_int_equal(out[2].tid, 4);
	free(out);
	threadnames_free(&t);
}

static void test_null(void **state)
{
	struct threadnames t = { 0 };
	struct snap_process p = { 0 };
	struct snap_thread *out;
	unsigned int n;

	assert_int_equal(threadnames_note(NULL, 1, "x"), -EINVAL);
	assert_int_equal(threadnames_note(&t, 1, NULL), -EINVAL);
	assert_int_equal(threadnames_merge(NULL, &p, &out, &n), -EINVAL);
	assert_int_equal(threadnames_merge(&t, NULL, &out, &n), -EINVAL);
	assert_int_equal(threadnames_merge(&t, &p, NULL, &n), -EINVAL);
	assert_int_equal(threadnames_merge(&t, &p, &out, NULL), -EINVAL);
	threadnames_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_note_and_merge),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
