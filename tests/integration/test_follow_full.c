// SPDX-License-Identifier: GPL-2.0
/*
 * --follow's limit on a real kernel: 4,200 processes alive at once, past
 * PTBPF_MAX_FOLLOW (4,096). A binary of its own: on a loaded machine the
 * forks, and ptbpf reading each new process, take minutes, within
 * tests/run.sh's time for one binary. Needs root, as every integration test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "integ.h"

struct fx {
	char *dir;
	char out[128], log[128];
	pid_t ptbpf, target;
	struct held held;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = fx_dir(f->out, sizeof(f->out), f->log, sizeof(f->log));
	if (!f->dir)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fx_show_log(f->log);
	if (f->ptbpf > 0)
		kill_wait(f->ptbpf);
	/* its children read EOF once it is gone, and exit */
	kill_wait(f->target);
	fx_dir_remove(f->dir);
	free(f);
	return 0;
}

/* Waits for ptbpf's own end; checks it held nothing after. */
static int finish(struct fx *f, double secs)
{
	int st = wait_exit(f->ptbpf, secs);

	if (st < 0)
		fail_msg("ptbpf did not end: %s", slurp(f->log));
	f->ptbpf = 0;
	assert_int_equal(held_left(&f->held), 0);
	return st;
}

/*
 * --follow past its limit of PTBPF_MAX_FOLLOW (4,096) processes at once:
 * the forks it has no room for are a warning event ("follow_full", with
 * how many) and a line, not silence.
 */
static void test_follow_full(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PTBPF_BIN, "-b", "sample",	     "-t",   "none", "--follow", "-o",
			 f->out,    "--", PROGS "manyforks", "4200", NULL };
	char reason[32] = "";
	double end;
	char *log;
	int i, n;

	need_root();
	f->ptbpf = spawn(argv, f->log);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
	assert_true(held_add(&f->held, f->ptbpf) > 0);
	f->target = (pid_t)event_field(f->out, "start", 0, "pid");
	/*
	 * forks on a loaded machine take their time: a generous deadline,
	 * and a slow look (the file grows to thousands of lines)
	 */
	for (end = mono_s() + 420; mono_s() < end && !count_events(f->out, "warning");)
		msleep(250);
	if (!count_events(f->out, "warning"))
		fail_msg("no warning after %d forks", count_events(f->out, "fork"));
	n = count_events(f->out, "warning");
	for (i = 0; i < n; i++)
		if (!event_str(f->out, "warning", i, "reason", reason, sizeof(reason)) &&
		    !strcmp(reason, "follow_full"))
			break;
	assert_string_equal(reason, "follow_full");
	assert_int_equal(event_field(f->out, "warning", i, "limit"), 4096);
	assert_true(event_field(f->out, "warning", i, "total") >= 1);
	/* the line is written by ptbpf's writer thread, after the event: waited for */
	for (end = mono_s() + 60;; msleep(50)) {
		log = slurp(f->log);
		if ((log && strstr(log, "processes followed at once, the limit")) || mono_s() > end)
			break;
		free(log);
	}
	assert_non_null(log);
	if (!strstr(log, "processes followed at once, the limit"))
		fail_msg("no line on the limit: %s", log);
	free(log);
	kill(f->ptbpf, SIGINT);
	/* ended and held nothing; 4,200 reaps may outlast --grace: any status */
	finish(f, 120);
	f->target = 0; /* reaped by ptbpf */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_follow_full, setup, teardown),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
