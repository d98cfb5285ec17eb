// SPDX-License-Identifier: GPL-2.0
/*
 * coreplan.c without any perf event: the scope's pid and flags, the
 * backend (intel-pt refused with a missing PMU, sample without one), the
 * attrs each scope asks for, the ring sizes and their limits, and the state
 * a core starts in. The sysfs root is an empty temporary directory: no
 * intel_pt PMU there.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "collect/coreplan.h"

#define PAGE 4096
#define GARBAGE 0xa5

struct fixture {
	char root[64];
	struct cores_config cfg;
	struct coreplan plan;
	char err[512], notes[1024];
};

static void note(void *ctx, const char *msg)
{
	struct fixture *f = ctx;
	size_t len = strlen(f->notes);

	snprintf(f->notes + len, sizeof(f->notes) - len, "%s\n", msg);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->root, "/tmp/ptbpf-test-plan-XXXXXX");
	if (!mkdtemp(f->root)) {
		free(f);
		return -1;
	}
	cores_config_init(&f->cfg);
	f->cfg.sysfs_root = f->root;
	f->cfg.report = note;
	f->cfg.report_ctx = f;
	memset(&f->plan, GARBAGE, sizeof(f->plan));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = rmdir(f->root);

	free(f);
	return rc;
}

static int make(struct fixture *f, unsigned int nr_online)
{
	f->err[0] = '\0';
	return coreplan_make(&f->cfg, PAGE, nr_online, &f->plan, f->err, sizeof(f->err));
}

/* auto: no intel_pt PMU, so samples, cpu scope, the default sizes */
static void test_auto_sample(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(make(f, 4), 0);
	assert_int_equal(f->plan.backend, BACKEND_SAMPLE);
	assert_int_equal(f->plan.scope, SCOPE_CPU);
	assert_int_equal(f->plan.pid, -1);
	assert_int_equal(f->plan.flags, 0);
	assert_int_equal(f->plan.data_attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_true(f->plan.data_attr.disabled);
	assert_true(f->plan.sb_attr.context_switch);
	assert_false(f->plan.sb_attr.inherit);
	assert_int_equal(f->plan.buf_size, CORES_DEFAULT_BUFFER);
	assert_int_equal(f->plan.sb_size, CORES_DEFAULT_SIDEBAND);
	assert_int_equal(f->plan.page_size, PAGE);
	assert_non_null(strstr(f->notes, "backend: sample (no Intel PT PMU at"));
	assert_false(coreplan_starts_running(&f->plan, &f->cfg));
	f->cfg.start_running = true;
	assert_true(coreplan_starts_running(&f->plan, &f->cfg));
}

static void test_intel_pt_missing(void **state)
{
	struct fixture *f = *state;

	f->cfg.backend = BACKEND_INTEL_PT;
	assert_int_equal(make(f, 1), -ENOENT);
	assert_non_null(strstr(f->err, "backend intel-pt: no Intel PT PMU: "));
	assert_non_null(strstr(f->err, "(use --backend sample)"));
}

static void test_scopes(void **state)
{
	struct fixture *f = *state;
	pid_t tids[2] = { 77, 78 };

	f->cfg.scope = SCOPE_PROCESS;
	assert_int_equal(make(f, 1), -EINVAL);
	assert_string_equal(f->err, "process scope needs the target's threads");
	f->cfg.tids = tids;
	f->cfg.nr_tids = 2;
	f->cfg.enable_on_exec = true;
	assert_int_equal(make(f, 1), 0);
	assert_int_equal(f->plan.pid, 77);
	assert_true(f->plan.data_attr.inherit);
	assert_true(f->plan.data_attr.inherit_thread);
	assert_true(f->plan.data_attr.enable_on_exec);
	assert_true(f->plan.sb_attr.inherit);
	assert_false(f->plan.sb_attr.disabled);
	/* armed for the exec: running without an ioctl of ours */
	assert_true(coreplan_starts_running(&f->plan, &f->cfg));
	/* --follow: a fork inherits them too */
	f->cfg.follow = true;
	assert_int_equal(make(f, 1), 0);
	assert_true(f->plan.sb_attr.inherit);
	assert_true(f->plan.data_attr.inherit);
	assert_false(f->plan.data_attr.inherit_thread);
	assert_false(f->plan.sb_attr.inherit_thread);
	f->cfg.follow = false;

	f->cfg.scope = SCOPE_CGROUP;
	assert_int_equal(make(f, 1), -EINVAL);
	assert_string_equal(f->err, "cgroup scope needs a cgroup");
	f->cfg.scope = SCOPE_AUTO;
	f->cfg.cgroup_fd = 9;
	assert_int_equal(make(f, 1), 0);
	assert_int_equal(f->plan.scope, SCOPE_CGROUP);
	assert_int_equal(f->plan.pid, 9);
	assert_int_equal(f->plan.flags, PERF_FLAG_PID_CGROUP);
	f->cfg.scope = (enum ptbpf_scope)42;
	assert_int_equal(make(f, 1), -EINVAL);
	assert_string_equal(f->err, "unknown scope");
}

static void test_sizes(void **state)
{
	struct fixture *f = *state;

	f->cfg.buffer_size = 3 * PAGE;
	f->cfg.sideband_size = 1;
	assert_int_equal(make(f, 2), 0);
	assert_int_equal(f->plan.buf_size, 4 * PAGE);
	assert_int_equal(f->plan.sb_size, PAGE);
	assert_non_null(strstr(f->notes, "per-core buffer size 12288 rounded "
					 "up to 16 KiB (4 pages)"));
	/* 3 cores of 1 MiB trace, 1 MiB sideband and two pages: 6 MiB */
	f->cfg.buffer_size = 1 << 20;
	f->cfg.sideband_size = 0;
	f->cfg.total_limit = 4 << 20;
	assert_int_equal(make(f, 3), -E2BIG);
	assert_non_null(strstr(f->err, "buffers of 3 cores need 6 MiB, more "
				       "than the limit of 4 MiB: lower "
				       "--buffer-size (now 1 MiB)"));
	assert_int_equal(make(f, 1), 0);
	f->cfg.call_graph = CALLGRAPH_DWARF;
	f->cfg.stack_size = 12;
	assert_int_equal(make(f, 1), -EINVAL);
	assert_string_equal(f->err, "--call-graph: invalid stack size");
}

static void test_round_and_invalid(void **state)
{
	struct fixture *f = *state;
	size_t got = 1;

	assert_int_equal(coreplan_round_size(PAGE + 1, PAGE, &got), 0);
	assert_int_equal(got, 2 * PAGE);
	assert_int_equal(coreplan_make(NULL, PAGE, 1, &f->plan, NULL, 0), -EINVAL);
	assert_int_equal(coreplan_make(&f->cfg, PAGE, 1, NULL, NULL, 0), -EINVAL);
	assert_int_equal(coreplan_make(&f->cfg, 0, 1, &f->plan, NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_auto_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_intel_pt_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scopes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_and_invalid, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
