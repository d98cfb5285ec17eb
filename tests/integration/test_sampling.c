// SPDX-License-Identifier: GPL-2.0
/*
 * The sample backend costs only the target, at a rate chosen for it: on the
 * real kernel, with a busy unrelated process beside the target, the
 * sampling timers ptbpf holds run only while the target does (the kernel's
 * own count of its cpu-clock events, `sample_timer_ns` on `end`, against
 * the target's run time from /proc/PID/schedstat: 0 while it is idle or
 * stopped, so no other process took one of its interrupts); the start
 * event says how it samples, at what rate and what one sample costs; a
 * rate the kernel can't sustain is lowered with one line, and records.
 * Counts only, no duration or rate is asserted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "integ.h"

struct fx {
	char *dir;
	char out[600], log[600];
	pid_t target, bystander, ptbpf;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char *spin[] = { PROGS "spin", NULL };

	f->dir = make_tmpdir();
	snprintf(f->out, sizeof(f->out), "%s/out", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/ptbpf.log", f->dir);
	/* what would pay for per-CPU timers: a process that always runs */
	f->bystander = spawn(spin, NULL);
	*state = f;
	return f->bystander > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->ptbpf > 0)
		kill_wait(f->ptbpf);
	if (f->target > 0)
		kill_wait(f->target);
	if (f->bystander > 0)
		kill_wait(f->bystander);
	rm_rf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* /proc/PID/schedstat of a one-thread process: ns on CPU, timeslices. */
static int schedstat(pid_t pid, unsigned long long *run, unsigned long long *slices)
{
	unsigned long long wait;
	char buf[128];

	if (read_task_file(pid, pid, "schedstat", buf, sizeof(buf)) <= 0)
		return -1;
	return sscanf(buf, "%llu %llu %llu", run, &wait, slices) == 3 ? 0 : -1;
}

/* Runs ptbpf @args to its end (--duration); 0 when it exited 0. */
static int run_ptbpf(struct fx *f, const char *args)
{
	char cmd[1400];
	int st;

	snprintf(cmd, sizeof(cmd), "%s -o %s %s 2>%s", PTBPF_BIN, f->out, args, f->log);
	st = system(cmd);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fx_show_log(f->log);
		return -1;
	}
	return 0;
}

/*
 * The timers ran no longer than the target did: exactly 0 when it never
 * ran meanwhile; else within its run time, plus a margin for what the
 * kernel counts around a switch (1 ms a slice) and for the target's exit
 * at the run's end (20 ms). Timers that ran on every CPU for the whole
 * run, as they did before, count the run's length once per CPU: seconds,
 * 100 times the margin at least.
 */
static void timers_within(struct fx *f, unsigned long long ran_ns, unsigned long long slices)
{
	long long timer = event_field(f->out, "end", 0, "sample_timer_ns");

	print_message("sample_timer_ns %lld, the target ran %llu ns in %llu slices\n", timer,
		      ran_ns, slices);
	assert_true(timer >= 0);
	if (!slices)
		assert_int_equal(timer, 0);
	else
		assert_true((unsigned long long)timer <=
			    ran_ns + 1000000ULL * slices + 20000000ULL);
}

static void sampling_is(struct fx *f, const char *want)
{
	char how[32];

	assert_int_equal(event_str(f->out, "start", 0, "sampling", how, sizeof(how)), 0);
	assert_string_equal(how, want);
}

/* An idle process (asleep) to trace by --pid. */
static void idle_target(struct fx *f, unsigned long long *run, unsigned long long *slices)
{
	char *idle[] = { "/bin/sleep", "600", NULL };
	int i;

	f->target = spawn(idle, NULL);
	assert_true(f->target > 0);
	for (i = 0; i < 500 && task_state(f->target, f->target) != 'S'; i++)
		msleep(20);
	assert_int_equal(task_state(f->target, f->target), 'S');
	assert_int_equal(schedstat(f->target, run, slices), 0);
}

/* --pid of an idle process: its timers never run, in process scope. */
static void test_idle_process_scope(void **state)
{
	struct fx *f = *state;
	unsigned long long run0, run1, sl0, sl1;
	char args[200];

	need_root();
	idle_target(f, &run0, &sl0);
	snprintf(args, sizeof(args), "-b sample --duration 1s --pid %d", f->target);
	assert_int_equal(run_ptbpf(f, args), 0);
	assert_int_equal(schedstat(f->target, &run1, &sl1), 0);
	sampling_is(f, "per-thread");
	timers_within(f, run1 - run0, sl1 - sl0);
}

/* The same at a fixed rate, the one the budget does not lower. */
static void test_idle_process_scope_fixed(void **state)
{
	struct fx *f = *state;
	unsigned long long run0, run1, sl0, sl1;
	char args[200];

	need_root();
	idle_target(f, &run0, &sl0);
	snprintf(args, sizeof(args), "-b sample -F 4000 --duration 1s --pid %d", f->target);
	assert_int_equal(run_ptbpf(f, args), 0);
	assert_int_equal(schedstat(f->target, &run1, &sl1), 0);
	timers_within(f, run1 - run0, sl1 - sl0);
}

/* cpu scope while the target is stopped: every core's event is off. */
static void test_stopped_cpu_scope(void **state)
{
	struct fx *f = *state;
	char *spin[] = { PROGS "spin", NULL };
	char args[200];

	need_root();
	f->target = spawn(spin, NULL);
	assert_true(f->target > 0);
	kill(f->target, SIGSTOP);
	assert_true(wait_stopped(f->target, 1, 60));
	snprintf(args, sizeof(args), "-b sample --scope cpu --duration 1s --pid %d", f->target);
	assert_int_equal(run_ptbpf(f, args), 0);
	sampling_is(f, "per-cpu");
	/* stopped all along: it ran 0 ns, in 0 slices */
	timers_within(f, 0, 0);
	kill(f->target, SIGCONT);
}

/*
 * cgroup scope, -- COMMAND (a cgroup made for it): the timers ran only
 * while the command did, its exec included; idle after.
 */
static void test_idle_cgroup_scope(void **state)
{
	struct fx *f = *state;
	unsigned long long run = 0, slices = 0;
	char cmd[1400];
	int i, st;

	need_root();
	snprintf(cmd, sizeof(cmd), "exec %s -o %s -b sample --scope cgroup -- /bin/sleep 600 2>%s",
		 PTBPF_BIN, f->out, f->log);
	f->ptbpf = spawn((char *[]){ "/bin/sh", "-c", cmd, NULL }, NULL);
	assert_true(f->ptbpf > 0);
	if (!wait_events(f->out, "exec", 1, 60))
		fail_msg("no exec: %s", slurp(f->log));
	f->target = (pid_t)event_field(f->out, "exec", 0, "pid");
	assert_true(f->target > 0);
	/* asleep: what it ran is all it will run */
	for (i = 0; i < 500 && task_state(f->target, f->target) != 'S'; i++)
		msleep(20);
	assert_int_equal(schedstat(f->target, &run, &slices), 0);
	/* ended once read, however long a loaded host took to get here */
	kill(f->ptbpf, SIGINT);
	st = wait_exit(f->ptbpf, 60);
	f->ptbpf = 0;
	f->target = 0; /* ended with the run */
	/* SIGINT ended it as asked (0); the command's own status is SIGTERM's */
	assert_int_equal(st, 0);
	assert_int_equal(event_field(f->out, "end", 0, "status"), 128 + SIGTERM);
	sampling_is(f, "cgroup");
	timers_within(f, run, slices);
}

/* The start event says the rate, the cost of a sample and the budget. */
static void test_rate_in_start(void **state)
{
	struct fx *f = *state;
	unsigned long long run, slices;
	char args[200], why[32], *log;
	long long hz, cost;

	need_root();
	idle_target(f, &run, &slices);
	snprintf(args, sizeof(args), "-b sample --overhead 5 --duration 1s --pid %d", f->target);
	assert_int_equal(run_ptbpf(f, args), 0);
	hz = event_field(f->out, "start", 0, "rate_hz");
	cost = event_field(f->out, "start", 0, "sample_cost_ns");
	assert_int_equal(event_str(f->out, "start", 0, "rate", why, sizeof(why)), 0);
	print_message("--overhead 5: %lld Hz (%s), %lld ns a sample\n", hz, why, cost);
	assert_true(hz >= 10);
	assert_true(cost >= 0);
	assert_int_equal(event_field(f->out, "start", 0, "overhead_pct"), 5);
	/* within the budget, unless the lowest rate alone exceeds it */
	if (!strcmp(why, "budget") && cost > 0)
		assert_true(hz * cost <= 5 * 10000000LL + cost);
	else
		assert_string_equal(why, cost > 0 ? "lowered" : "budget");
	log = slurp(f->log);
	assert_non_null(log);
	snprintf(args, sizeof(args), "sampling %lld Hz", hz);
	if (!strstr(log, args))
		fail_msg("no rate on the start line:\n%s", log);
	free(log);
}

/* -F and --overhead together, or a bad --overhead: one line, status 2. */
static void test_overhead_refused(void **state)
{
	static const char *const bad[] = { "-F 100 --overhead 2", "--overhead 0", "--overhead 101",
					   "--overhead x", "--overhead -1" };
	char cmd[400], err[512], *nl;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s %s --pid 1", PTBPF_BIN, bad[i]);
		assert_int_equal(run_capture(cmd, err, sizeof(err)), 2);
		assert_non_null(strstr(err, "ptbpf: "));
		nl = strchr(err, '\n');
		assert_true(!nl || !nl[1]);
	}
}

/*
 * -F 100000, the kernel's most: either the machine sustains it, or it is
 * lowered with one line that says so; either way the target is recorded.
 */
static void test_freq_unsustainable(void **state)
{
	struct fx *f = *state;
	char *spin[] = { PROGS "spin", NULL };
	char args[200], why[32], *log, *p;
	long long hz;
	int lines = 0;

	need_root();
	f->target = spawn(spin, NULL);
	assert_true(f->target > 0);
	snprintf(args, sizeof(args), "-b sample -F 100000 --duration 2s --pid %d", f->target);
	assert_int_equal(run_ptbpf(f, args), 0);
	hz = event_field(f->out, "start", 0, "rate_hz");
	assert_int_equal(event_str(f->out, "start", 0, "rate", why, sizeof(why)), 0);
	log = slurp(f->log);
	assert_non_null(log);
	for (p = log; (p = strstr(p, "-F 100000")); p++)
		lines++;
	print_message("-F 100000: %lld Hz (%s); %s", hz, why, log);
	if (!strcmp(why, "lowered")) {
		assert_true(hz > 0 && hz < 100000);
		assert_int_equal(lines, 1);
	} else {
		assert_string_equal(why, "fixed");
		assert_int_equal(hz, 100000);
		assert_int_equal(lines, 0);
	}
	free(log);
	assert_true(samples_with(f->out, f->target, "") > 0);
}

/*
 * While the run goes on the cost is measured again (PTBPF_RATE_RECHECK_MS
 * shortens the wait): each one is a `rate` event when the rate moved, else
 * a -v line that keeps it.
 */
static void test_recheck_runs(void **state)
{
	struct fx *f = *state;
	char *spin[] = { PROGS "spin", NULL };
	char cmd[1400], *log = NULL;
	double end;
	int found = 0;

	need_root();
	f->target = spawn(spin, NULL);
	assert_true(f->target > 0);
	snprintf(cmd, sizeof(cmd),
		 "PTBPF_RATE_RECHECK_MS=100 exec %s -v -b sample -o %s --pid %d 2>%s", PTBPF_BIN,
		 f->out, f->target, f->log);
	f->ptbpf = spawn((char *[]){ "/bin/sh", "-c", cmd, NULL }, NULL);
	assert_true(f->ptbpf > 0);
	for (end = mono_s() + 120; !found && mono_s() < end; msleep(100)) {
		free(log);
		log = slurp(f->log);
		found = count_events(f->out, "rate") > 0 || (log && strstr(log, "ptbpf: rate: "));
	}
	kill(f->ptbpf, SIGINT);
	assert_int_equal(wait_exit(f->ptbpf, 60), 0);
	f->ptbpf = 0;
	if (!found)
		fail_msg("no re-check of the rate:\n%s", log ? log : "");
	if (count_events(f->out, "rate"))
		assert_true(event_field(f->out, "rate", 0, "old_rate_hz") > 0);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_idle_process_scope, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_process_scope_fixed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stopped_cpu_scope, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_cgroup_scope, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_in_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overhead_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_freq_unsustainable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recheck_runs, setup, teardown),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
