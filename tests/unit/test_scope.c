// SPDX-License-Identifier: GPL-2.0
/* scope.c: which scope a run gets, and why auto falls back. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>

#include "collect/scope.h"

struct plan_case {
	struct scope_request req;
	int ret;
	enum ptbpf_scope want;
	const char *why; /* a part of the reason, "" for none */
};

static const struct plan_case cases[] = {
	/* auto: process for a command, whatever the CPU count */
	{ { SCOPE_AUTO, true, false, 0, 256, 0, 0 }, 0, SCOPE_PROCESS, "" },
	/* auto, --pid: process up to the limit (4 x 2 x 2 = 16 events) */
	{ { SCOPE_AUTO, false, false, 4, 2, 16, 0 }, 0, SCOPE_PROCESS, "" },
	/* one more thread: cpu, and says why */
	{ { SCOPE_AUTO, false, false, 5, 2, 16, 0 },
	  0,
	  SCOPE_CPU,
	  "cpu: 5 threads x 2 CPUs x 2 needs 20 events, over the limit of 16 (--max-events)" },
	/* the default limit */
	{ { SCOPE_AUTO, false, false, 1100, 64, 0, 0 },
	  0,
	  SCOPE_CPU,
	  "1100 threads x 64 CPUs x 2 needs 140800 events, over the limit of 16384" },
	/* --no-pause is the old behaviour: cpu */
	{ { SCOPE_AUTO, false, true, 1, 2, 0, 0 }, 0, SCOPE_CPU, "--no-pause" },
	{ { SCOPE_CPU, false, true, 1, 2, 0, 0 }, 0, SCOPE_CPU, "" },
	{ { SCOPE_CPU, false, false, 100000, 2, 0, 0 }, 0, SCOPE_CPU, "" },
	/* explicit scopes never fall back: they fail */
	{ { SCOPE_PROCESS, false, false, 5, 2, 16, 0 },
	  -EINVAL,
	  SCOPE_AUTO,
	  "--scope process: 5 threads x 2 CPUs x 2 needs 20 events" },
	{ { SCOPE_PROCESS, false, true, 1, 2, 0, 0 },
	  -EINVAL,
	  SCOPE_AUTO,
	  "--no-pause only applies to --scope cpu" },
	{ { SCOPE_CGROUP, true, true, 0, 2, 0, 0 }, -EINVAL, SCOPE_AUTO, "in cgroup scope" },
	{ { SCOPE_CGROUP, false, false, 100000, 2, 0, 0 }, 0, SCOPE_CGROUP, "" },
	{ { SCOPE_PROCESS, true, false, 0, 4096, 0, 0 }, 0, SCOPE_PROCESS, "" },
	/* `ulimit -n 256`: the descriptor limit is named, not --max-events */
	{ { SCOPE_AUTO, false, false, 61, 2, 0, 256 },
	  0,
	  SCOPE_CPU,
	  "cpu: 61 threads x 2 CPUs x 2 needs 244 events, over the 0 descriptors left by the "
	  "limit of 256 open files (RLIMIT_NOFILE, ulimit -n; 256 kept for the rest)" },
	{ { SCOPE_PROCESS, false, false, 61, 2, 0, 256 },
	  -EINVAL,
	  SCOPE_AUTO,
	  "--scope process: 61 threads x 2 CPUs x 2 needs 244 events, over the 0 descriptors "
	  "left by the limit of 256 open files (RLIMIT_NOFILE" },
	/* a larger one, under --max-events: --max-events is named */
	{ { SCOPE_PROCESS, false, false, 61, 2, 100, 1024 },
	  -EINVAL,
	  SCOPE_AUTO,
	  "needs 244 events, over the limit of 100 (--max-events)" },
	{ { SCOPE_AUTO, false, false, 61, 2, 0, 1024 }, 0, SCOPE_PROCESS, "" },
};

static void test_plan(void **state)
{
	enum ptbpf_scope got;
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct plan_case *c = &cases[i];
		int ret;

		got = SCOPE_AUTO;
		memset(why, 'x', sizeof(why));
		ret = scope_plan(&c->req, &got, why, sizeof(why));
		if (ret != c->ret || (!ret && got != c->want) ||
		    (*c->why ? !strstr(why, c->why) : why[0] != '\0'))
			fail_msg("case %zu: ret %d scope %s why '%.120s'", i, ret, scope_name(got),
				 why);
	}
}

static void test_names(void **state)
{
	enum ptbpf_scope s = SCOPE_CPU;
	static const char *const all[] = { "auto", "process", "cgroup", "cpu" };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		assert_int_equal(scope_parse(all[i], &s), 0);
		assert_int_equal(s, (enum ptbpf_scope)i);
		assert_string_equal(scope_name(s), all[i]);
	}
	assert_int_equal(scope_parse("threads", &s), -EINVAL);
	assert_int_equal(scope_parse(NULL, &s), -EINVAL);
	assert_int_equal(scope_parse("cpu", NULL), -EINVAL);
	assert_string_equal(scope_name((enum ptbpf_scope)9), "?");
	assert_int_equal(scope_events(1100, 64), 140800);
}

static void test_null(void **state)
{
	struct scope_request req = { 0 };
	enum ptbpf_scope s;
	char why[8];

	assert_int_equal(scope_plan(NULL, &s, why, sizeof(why)), -EINVAL);
	assert_int_equal(scope_plan(&req, NULL, why, sizeof(why)), -EINVAL);
	assert_int_equal(scope_plan(&req, &s, NULL, 8), -EINVAL);
	assert_int_equal(scope_plan(&req, &s, why, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
