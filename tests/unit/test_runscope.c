// SPDX-License-Identifier: GPL-2.0
/*
 * runscope.c: a run's scope planned from the options and the target (this
 * process, read from /proc), and what is said of it. Cgroup scope needs
 * the BPF side: the integration tests have it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <stdio.h>

#include "collect/runscope.h"

/* What runscope_report() said, one line each. */
static char said[1024];

static void note(void *ctx, const char *msg)
{
	size_t len = strlen(said);

	snprintf(said + len, sizeof(said) - len, "%s\n", msg);
}

static const int one_cpu[] = { 0 };

/* --scope cpu: asked, planned, said; nothing to bind. */
static void test_cpu(void **state)
{
	struct runscope s;
	char err[256] = "";

	runscope_init(&s);
	assert_int_equal(runscope_plan(&s,
				       &(struct runscope_req){
					       .scope = SCOPE_CPU,
					       .pid = getpid(),
					       .cpus = one_cpu,
					       .nr_cpus = 1,
				       },
				       err, sizeof(err)),
			 0);
	assert_int_equal(s.kind, SCOPE_CPU);
	assert_string_equal(s.why, "");
	assert_int_equal(s.cgroup_fd, -1);
	assert_int_equal(runscope_bind(&s, NULL, err, sizeof(err)), 0);
	said[0] = '\0';
	runscope_report(&s, NULL, note, NULL);
	assert_string_equal(said, "scope: cpu (every task on each traced CPU)\n");
	runscope_close(&s);
}

/* Auto over --max-events falls back to cpu, and says why. */
static void test_auto_falls_back(void **state)
{
	struct runscope s;
	char err[256] = "";

	runscope_init(&s);
	assert_int_equal(runscope_plan(&s,
				       &(struct runscope_req){
					       .scope = SCOPE_AUTO,
					       .pid = getpid(),
					       .cpus = one_cpu,
					       .nr_cpus = 1,
					       .max_events = 1,
				       },
				       err, sizeof(err)),
			 0);
	assert_int_equal(s.kind, SCOPE_CPU);
	assert_non_null(strstr(s.why, "over the limit of 1 (--max-events)"));
	/* the threads were read for the plan: this process's */
	assert_true(s.threads.nr_tids >= 1);
	assert_int_equal(s.threads.tids[0], getpid());
	said[0] = '\0';
	runscope_report(&s, NULL, note, NULL);
	assert_non_null(strstr(said, "scope: cpu (every task on each traced CPU)\n"
				     "scope fell back to cpu: "));
	runscope_close(&s);
	assert_int_equal(s.threads.nr_tids, 0);
}

/* A request that can't be met is the run's one error line. */
static void test_refused(void **state)
{
	struct runscope s;
	char err[256] = "";

	runscope_init(&s);
	assert_int_equal(runscope_plan(&s,
				       &(struct runscope_req){
					       .scope = SCOPE_PROCESS,
					       .pid = getpid(),
					       .no_pause = true,
				       },
				       err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--no-pause only applies to --scope cpu"));
	runscope_close(&s);
}

/* A launched command: its one thread, the others inherit. */
static void test_launch(void **state)
{
	struct runscope s;
	char err[256] = "";

	runscope_init(&s);
	assert_int_equal(runscope_plan(&s,
				       &(struct runscope_req){
					       .scope = SCOPE_AUTO,
					       .pid = getpid(),
					       .launch = true,
				       },
				       err, sizeof(err)),
			 0);
	assert_int_equal(s.kind, SCOPE_PROCESS);
	assert_int_equal(s.threads.nr_tids, 1);
	/* nothing bound late: the kernel's inheritance covers it */
	assert_int_equal(runscope_bind(&s, NULL, err, sizeof(err)), 0);
	runscope_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu),
		cmocka_unit_test(test_auto_falls_back),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_launch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
