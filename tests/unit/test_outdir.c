// SPDX-License-Identifier: GPL-2.0
/* outdir.c: what a directory that can't be made is said to be. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapshot/outdir.h"

/* Missing parents: the user is told to make them. */
static void test_missing_parent(void **state)
{
	char dir[] = "/tmp/ptbpf-outdir-XXXXXX", path[128], want[256], err[512];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a/b/out", dir);
	assert_int_equal(outdir_open(path, -1, -1, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want),
		 "can't create output directory %s: %s/a/b does not exist (mkdir -p %s/a/b first)",
		 path, dir, dir);
	assert_string_equal(err, want);
	assert_int_equal(rmdir(dir), 0);
}

/* A parent that is there but takes no directory (procfs): no mkdir -p advice. */
static void test_parent_refuses(void **state)
{
	char err[512];

	assert_int_equal(outdir_open("/proc/ptbpf-out", -1, -1, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "can't create output directory /proc/ptbpf-out: /proc does not "
				 "take new directories (No such file or directory)");
	assert_null(strstr(err, "mkdir -p"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_parent),
		cmocka_unit_test(test_parent_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
