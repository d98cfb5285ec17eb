// SPDX-License-Identifier: GPL-2.0
/*
 * cpupresent.c against a fake sysfs tree: an `online` file that says 0 is
 * offline, a missing one (cpu0) or one that can't be read is online, and a
 * CPU without a directory is named as missing in one line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "collect/cpupresent.h"

struct fixture {
	char root[64];
};

/* <root>/devices/system/cpu/cpu@cpu, with `online` holding @online. */
static void add_cpu(const char *root, int cpu, const char *online)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/devices/system", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/devices/system/cpu", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d", root, cpu);
	assert_int_equal(mkdir(path, 0700), 0);
	if (!online)
		return;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/online", root, cpu);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(online, f);
	fclose(f);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->root, "/tmp/ptbpf-test-cpup-XXXXXX");
	if (!mkdtemp(f->root)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	int rc;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	rc = system(cmd);
	free(f);
	return rc ? -1 : 0;
}

static void test_offline(void **state)
{
	struct fixture *f = *state;
	static const int cpus[] = { 0, 1, 2, 3, 7 };

	add_cpu(f->root, 0, NULL); /* cpu0: no online file */
	add_cpu(f->root, 1, "1\n");
	add_cpu(f->root, 2, "0\n");
	add_cpu(f->root, 3, ""); /* empty: can't tell, so online */
	assert_false(cpupresent_offline(f->root, 0));
	assert_false(cpupresent_offline(f->root, 1));
	assert_true(cpupresent_offline(f->root, 2));
	assert_false(cpupresent_offline(f->root, 3));
	/* no such CPU: perf_event_open() has the last word */
	assert_false(cpupresent_offline(f->root, 7));
	assert_int_equal(cpupresent_count_online(f->root, cpus, 5), 4);
	/* NULL: CPUs 0 .. n - 1 */
	assert_int_equal(cpupresent_count_online(f->root, NULL, 3), 2);
	assert_int_equal(cpupresent_count_online(f->root, cpus, 0), 0);
}

static void test_missing(void **state)
{
	struct fixture *f = *state;
	char err[160];

	add_cpu(f->root, 0, NULL);
	memset(err, 'x', sizeof(err));
	err[sizeof(err) - 1] = '\0';
	assert_false(cpupresent_missing(f->root, 0, err, sizeof(err)));
	assert_int_equal(err[0], 'x'); /* left alone */
	assert_true(cpupresent_missing(f->root, 9, err, sizeof(err)));
	assert_non_null(strstr(err, "cpu 9 does not exist (--cpus; "));
	assert_non_null(strstr(err, "configured)"));
	/* no buffer: the answer all the same */
	assert_true(cpupresent_missing(f->root, 9, NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_offline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
