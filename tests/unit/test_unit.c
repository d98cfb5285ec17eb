// SPDX-License-Identifier: GPL-2.0
/*
 * unit.c: a unit's name to its cgroup and main process, through a made-up
 * `systemctl show` (PTBPF_SYSTEMCTL, a script this test writes), its
 * cgroup.procs read from a made-up directory, and which process roots the
 * run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/unit.h"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/ptbpf-test-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	unsetenv("PTBPF_SYSTEMCTL");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

/* A systemctl that prints @out and exits with @status. */
static void fake_systemctl(const char *out, int status)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/systemctl", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nprintf '%s'\nexit %d\n", out, status);
	fclose(f);
	assert_int_equal(chmod(path, 0700), 0);
	setenv("PTBPF_SYSTEMCTL", path, 1);
}

struct resolve_case {
	const char *out;
	int status;
	int ret;
	const char *cg; /* when ret is 0 */
	pid_t main_pid;
	const char *msg; /* part of the error line when ret is not 0 */
};

static const struct resolve_case cases[] = {
	{ "MainPID=42\\nControlGroup=/system.slice/a.service\\n", 0, 0,
	  "/mnt/system.slice/a.service", 42, NULL },
	/* the order systemctl prints them in does not matter */
	{ "ControlGroup=/system.slice/a.service\\nMainPID=0\\n", 0, 0,
	  "/mnt/system.slice/a.service", 0, NULL },
	/* a unit that is not running has an empty ControlGroup= */
	{ "MainPID=0\\nControlGroup=\\n", 0, -ESRCH, NULL, 0,
	  "unit a.service has no cgroup: it is not running" },
	{ "MainPID=0\\n", 0, -ESRCH, NULL, 0, "has no cgroup" },
	{ "", 1, -EIO, NULL, 0, "show failed: it said no" },
};

static void test_resolve(void **state)
{
	char cg[256], err[256];
	pid_t main_pid;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct resolve_case *c = &cases[i];

		fake_systemctl(c->out, c->status);
		memset(cg, 'x', sizeof(cg));
		cg[sizeof(cg) - 1] = 0;
		main_pid = -7;
		err[0] = 0;
		ret = unit_resolve("a.service", "/mnt", cg, sizeof(cg), &main_pid, err,
				   sizeof(err));
		if (ret != c->ret)
			fail_msg("case %zu: %d, want %d (%s)", i, ret, c->ret, err);
		if (!ret) {
			assert_string_equal(cg, c->cg);
			assert_int_equal(main_pid, c->main_pid);
		} else if (!strstr(err, c->msg)) {
			fail_msg("case %zu: '%s' has no '%s'", i, err, c->msg);
		}
	}
}

/* No such program: one line that says so. */
static void test_resolve_no_program(void **state)
{
	char cg[256], err[256], path[128];
	pid_t main_pid;

	snprintf(path, sizeof(path), "%s/none", dir);
	setenv("PTBPF_SYSTEMCTL", path, 1);
	assert_int_equal(unit_resolve("a.service", "/mnt", cg, sizeof(cg), &main_pid, err,
				      sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "no such program"));
}

/*
 * Without PTBPF_SYSTEMCTL: systemctl, and systemd must run. Where it does
 * not (this project's VMs), the error says so.
 */
static void test_resolve_no_systemd(void **state)
{
	char cg[256], err[256];
	pid_t main_pid;
	int ret;

	unsetenv("PTBPF_SYSTEMCTL");
	ret = unit_resolve("ptbpf-no-such.service", "/mnt", cg, sizeof(cg), &main_pid, err,
			   sizeof(err));
	if (access(UNIT_SYSTEMD_RUNTIME, F_OK)) {
		assert_int_equal(ret, -ENOSYS);
		assert_non_null(strstr(err, "--unit needs systemd"));
	} else {
		assert_int_equal(ret, -ESRCH); /* no such unit: no cgroup */
	}
	assert_int_equal(unit_resolve(NULL, "/mnt", cg, sizeof(cg), &main_pid, err, sizeof(err)),
			 -EINVAL);
}

static void test_procs(void **state)
{
	char path[128];
	pid_t *pids = (pid_t *)1;
	FILE *f;

	/* no cgroup.procs: the error, nothing allocated */
	assert_int_equal(unit_procs(dir, &pids), -ENOENT);
	assert_null(pids);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(unit_procs(dir, &pids), 0);
	free(pids);
	f = fopen(path, "w");
	fprintf(f, "17\n4\n99\n");
	fclose(f);
	assert_int_equal(unit_procs(dir, &pids), 3);
	assert_int_equal(pids[0], 17);
	assert_int_equal(pids[2], 99);
	/* the main process when it is there, else the first */
	assert_int_equal(unit_pick(pids, 3, 4), 4);
	assert_int_equal(unit_pick(pids, 3, 5), 17);
	assert_int_equal(unit_pick(pids, 3, 0), 17);
	assert_int_equal(unit_pick(pids, 0, 4), 0);
	free(pids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_no_program, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_no_systemd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_procs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
