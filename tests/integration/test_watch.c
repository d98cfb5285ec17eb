// SPDX-License-Identifier: GPL-2.0
/*
 * The real BPF program against real processes: every transition ptbpf
 * reports is compared, in order, with the truth from /proc and waitpid.
 * Needs root (CI runs as root); skipped, and so failed in CI, without it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/ptrace.h>

#include "integ.h"

struct fx {
	char *dir;
	pid_t target;
	pid_t ptbpf;
	const char *extra; /* one more ptbpf option, or NULL */
	char log[600];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = make_tmpdir();
	snprintf(f->log, sizeof(f->log), "%s/ptbpf.stderr", f->dir);
	*state = f;
	return f->dir ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char *log = slurp(f->log);

	if (getenv("TEST_VERBOSE") && log)
		fprintf(stderr, "--- ptbpf stderr:\n%s", log);
	free(log);
	kill_wait(f->target);
	if (f->ptbpf > 0 && wait_exit(f->ptbpf, 10) < 0)
		kill_wait(f->ptbpf);
	rm_rf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* Starts @targv as the target and ptbpf --pid on it; waits for "start". */
static void start_on_pid(struct fx *f, char *const targv[])
{
	char pid[16], opt[64] = "-q";
	char *argv[] = {
		PTBPF_BIN, "-o", f->dir, "--pid", pid, opt, NULL, NULL
	};

	if (f->extra)
		snprintf(opt, sizeof(opt), "%s", f->extra);
	if (strchr(opt, ' ')) { /* "-t none": two words */
		*strchr(opt, ' ') = '\0';
		argv[6] = opt + strlen(opt) + 1;
		argv[7] = NULL;
	}
	f->target = spawn(targv, NULL);
	assert_true(f->target > 0);
	msleep(50); /* let it exec and start its threads */
	snprintf(pid, sizeof(pid), "%d", f->target);
	f->ptbpf = spawn(argv, f->log);
	if (!wait_events(f->dir, "start", 1, 10))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
}

/* Stops and continues @pid, checking each transition against /proc. */
static void stop_cont(struct fx *f, int i)
{
	assert_int_equal(kill(f->target, SIGSTOP), 0);
	if (!wait_stopped(f->target, 1, 5))
		fail_msg("cycle %d: target did not stop", i);
	if (!wait_events(f->dir, "stop", i + 1, 5))
		fail_msg("cycle %d: no stop event", i);
	assert_int_equal(count_events(f->dir, "run"), i);
	assert_int_equal(kill(f->target, SIGCONT), 0);
	if (!wait_events(f->dir, "run", i + 1, 5))
		fail_msg("cycle %d: no run event", i);
	assert_int_equal(count_events(f->dir, "stop"), i + 1);
}

/* Ends the target with SIGKILL; ptbpf sees it go and exits 0. */
static void end_target(struct fx *f)
{
	kill_wait(f->target);
	f->target = 0;
	assert_int_equal(wait_exit(f->ptbpf, 10), 0);
	f->ptbpf = 0;
	assert_int_equal(loaded_ptbpf_progs(), 0);
}

static void test_single_thread_stop_cont(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", NULL };
	char sig[32], *seq;
	int i;

	need_root();
	start_on_pid(f, targv);
	for (i = 0; i < 5; i++)
		stop_cont(f, i);
	assert_int_equal(
		event_str(f->dir, "stop", 0, "signal", sig, sizeof(sig)), 0);
	assert_string_equal(sig, "SIGSTOP");
	event_str(f->dir, "stop", 0, "cause", sig, sizeof(sig));
	assert_string_equal(sig, "signal");
	event_str(f->dir, "run", 0, "signal", sig, sizeof(sig));
	assert_string_equal(sig, "SIGCONT");
	end_target(f);
	seq = event_sequence(
		f->dir,
		"pause resume snapshot snapshot_error snapshot_skipped");
	assert_string_equal(
		seq,
		"start stop run stop run stop run stop run stop run exit end");
	assert_int_equal(event_field(f->dir, "exit", 0, "exit_signal"),
			 SIGKILL);
	free(seq);
}

/* 16 spinning threads, and threads created and ending meanwhile. */
static void test_group_stop_with_churn(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", "16", "churn", NULL };
	char *seq;
	int i;

	need_root();
	start_on_pid(f, targv);
	for (i = 0; i < 10; i++) {
		stop_cont(f, i);
		msleep(20);
	}
	assert_true(count_events(f->dir, "thread_start") > 0);
	assert_true(count_events(f->dir, "thread_exit") > 0);
	end_target(f);
	seq = event_sequence(
		f->dir,
		"thread_start thread_exit pause resume snapshot snapshot_error snapshot_skipped");
	assert_string_equal(
		seq, "start stop run stop run stop run stop run stop run "
		     "stop run stop run stop run stop run stop run exit end");
	free(seq);
}

/* A target that is already stopped when ptbpf attaches starts "stopped". */
static void test_attach_to_stopped(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", "4", NULL };
	char st[16], pid[16];
	char *argv[] = { PTBPF_BIN, "-o", f->dir, "--pid", pid, NULL };

	need_root();
	f->target = spawn(targv, NULL);
	msleep(50);
	kill(f->target, SIGSTOP);
	assert_true(wait_stopped(f->target, 1, 5));
	snprintf(pid, sizeof(pid), "%d", f->target);
	f->ptbpf = spawn(argv, f->log);
	assert_true(wait_events(f->dir, "start", 1, 10));
	event_str(f->dir, "start", 0, "state", st, sizeof(st));
	assert_string_equal(st, "stopped");
	kill(f->target, SIGCONT);
	assert_true(wait_events(f->dir, "run", 1, 5));
	kill(f->target, SIGSTOP);
	assert_true(wait_events(f->dir, "stop", 1, 5));
	end_target(f);
}

/* A real debugger: gdb attaches (ptrace stop), then detaches (run). */
static void test_gdb_attach(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", NULL };
	char cmd[128], out[4096], cause[32];

	need_root();
	start_on_pid(f, targv);
	snprintf(cmd, sizeof(cmd), "gdb -nx -batch -p %d", f->target);
	run_capture(cmd, out, sizeof(out));
	assert_true(wait_events(f->dir, "run", 1, 10));
	assert_int_equal(
		event_str(f->dir, "stop", 0, "cause", cause, sizeof(cause)), 0);
	assert_string_equal(cause, "ptrace");
	event_str(f->dir, "run", 0, "cause", cause, sizeof(cause));
	assert_string_equal(cause, "ptrace");
	assert_true(task_state(f->target, f->target) != 't');
	end_target(f);
	/* gdb may stop and resume more than once; they alternate */
	assert_true(count_events(f->dir, "stop") ==
		    count_events(f->dir, "run"));
}

/* A tracer of our own: PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH. */
static void test_ptrace_interrupt(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", NULL };
	char cause[32], *seq;
	int st;

	need_root();
	start_on_pid(f, targv);
	assert_int_equal(ptrace(PTRACE_SEIZE, f->target, 0, 0), 0);
	assert_int_equal(ptrace(PTRACE_INTERRUPT, f->target, 0, 0), 0);
	assert_int_equal(waitpid(f->target, &st, __WALL), f->target);
	assert_true(WIFSTOPPED(st));
	assert_int_equal(task_state(f->target, f->target), 't');
	assert_true(wait_events(f->dir, "stop", 1, 5));
	event_str(f->dir, "stop", 0, "cause", cause, sizeof(cause));
	assert_string_equal(cause, "ptrace");
	assert_int_equal(count_events(f->dir, "run"), 0);
	assert_int_equal(ptrace(PTRACE_DETACH, f->target, 0, 0), 0);
	assert_true(wait_events(f->dir, "run", 1, 5));
	event_str(f->dir, "run", 0, "cause", cause, sizeof(cause));
	assert_string_equal(cause, "ptrace");
	end_target(f);
	seq = event_sequence(
		f->dir,
		"pause resume snapshot snapshot_error snapshot_skipped");
	assert_string_equal(seq, "start stop run exit end");
	free(seq);
}

/* A crash: fatal (at signal_generate) comes before exit; status 139. */
static void test_sigsegv(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PTBPF_BIN,	"-o",  f->dir, "--",
			 PROGS "crash", "100", NULL };
	char sig[32], *seq;

	need_root();
	f->ptbpf = spawn(argv, f->log);
	assert_int_equal(wait_exit(f->ptbpf, 20), 128 + SIGSEGV);
	f->ptbpf = 0;
	seq = event_sequence(
		f->dir,
		"pause resume snapshot snapshot_error snapshot_skipped");
	assert_string_equal(seq, "start exec fatal exit end");
	event_str(f->dir, "fatal", 0, "signal", sig, sizeof(sig));
	assert_string_equal(sig, "SIGSEGV");
	assert_int_equal(event_field(f->dir, "exit", 0, "exit_signal"),
			 SIGSEGV);
	assert_true(event_field(f->dir, "fatal", 0, "ts") <
		    event_field(f->dir, "exit", 0, "ts"));
	free(seq);
}

/* exec from a second thread into another program. */
static void test_exec(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PTBPF_BIN, "-o", f->dir,   "--", PROGS "execer",
			 "/bin/sh", "-c", "exit 7", NULL };
	char name[256];

	need_root();
	f->ptbpf = spawn(argv, f->log);
	assert_int_equal(wait_exit(f->ptbpf, 20), 7);
	f->ptbpf = 0;
	assert_int_equal(count_events(f->dir, "exec"), 2);
	event_str(f->dir, "exec", 1, "filename", name, sizeof(name));
	assert_string_equal(name, "/bin/sh");
	/* the thread that called execve got the leader's pid */
	assert_true(event_field(f->dir, "exec", 1, "old_tid") !=
		    event_field(f->dir, "exec", 1, "tid"));
	assert_int_equal(event_field(f->dir, "exit", 0, "exit_code"), 7);
	assert_int_equal(count_events(f->dir, "thread_start"), 1);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* 1,000 fast cycles: no event lost, strict alternation, final state right. */
static void test_thousand_cycles(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", NULL };
	static long long lat[1000];
	char *seq, *p;
	int i;

	need_root();
	f->extra =
		"-t none"; /* the events alone: snapshots have tests of their own */
	start_on_pid(f, targv);
	for (i = 0; i < 1000; i++) {
		kill(f->target, SIGSTOP);
		if (!wait_stopped(f->target, 1, 5))
			fail_msg("cycle %d: target did not stop", i);
		kill(f->target, SIGCONT);
		if (!wait_stopped(f->target, 0, 5))
			fail_msg("cycle %d: target did not continue", i);
	}
	if (!wait_events(f->dir, "run", 1000, 20))
		fail_msg(
			"%d stop and %d run events of 1000, %d lost_events lines",
			count_events(f->dir, "stop"),
			count_events(f->dir, "run"),
			count_events(f->dir, "lost_events"));
	assert_int_equal(count_events(f->dir, "stop"), 1000);
	assert_int_equal(count_events(f->dir, "lost_events"), 0);
	seq = event_sequence(
		f->dir,
		"pause resume snapshot snapshot_error snapshot_skipped");
	assert_true(!strncmp(seq, "start stop run", 14));
	for (p = seq + 6, i = 0; i < 1000; i++, p += 9)
		if (strncmp(p, "stop run ", 9) &&
		    !(i == 999 && !strcmp(p, "stop run")))
			fail_msg("not alternating at cycle %d: %.40s", i, p);
	free(seq);
	assert_int_equal(task_state(f->target, f->target) == 'T', 0);
	for (i = 0; i < 1000; i++)
		lat[i] = event_field(f->dir, "stop", i, "delivery_ns");
	qsort(lat, 1000, sizeof(lat[0]), cmp_ll);
	printf("stop delivery (kernel ts -> user space): median %lld ns, p99 %lld ns\n",
	       lat[500], lat[990]);
	end_target(f);
}

/*
 * A full BPF ring buffer: ptbpf itself stopped while the target creates
 * threads, then the target stops too. The lost events are reported, and
 * the collection follows the BPF side's state (paused) all the same.
 */
static void test_lost_events_resync(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", "1", "churn", NULL };
	char *seq, *p;

	need_root();
	f->extra = "-t none";
	start_on_pid(f, targv);
	assert_true(wait_events(f->dir, "resume", 1, 5));
	kill(f->ptbpf, SIGSTOP);
	/* ~2 events a thread, a thread every ~2 ms: past the ring's 1,365 */
	msleep(4000);
	kill(f->target, SIGSTOP);
	assert_true(wait_stopped(f->target, 1, 5));
	kill(f->ptbpf, SIGCONT);
	assert_true(wait_events(f->dir, "lost_events", 1, 10));
	assert_true(wait_events(f->dir, "pause", 1, 10));
	assert_true(event_field(f->dir, "lost_events", 0, "count") > 0);
	seq = event_sequence(f->dir, "thread_start thread_exit");
	/* no stop event came through, but the collection paused */
	p = strstr(seq, "lost_events");
	assert_non_null(p);
	assert_non_null(strstr(p, "pause"));
	free(seq);
	end_target(f);
}

/* SIGINT ends a --pid run cleanly; the target goes on untouched. */
static void test_sigint(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", NULL };
	char reason[32];

	need_root();
	start_on_pid(f, targv);
	kill(f->ptbpf, SIGINT);
	assert_int_equal(wait_exit(f->ptbpf, 10), 0);
	f->ptbpf = 0;
	event_str(f->dir, "end", 0, "reason", reason, sizeof(reason));
	assert_string_equal(reason, "signal");
	assert_int_equal(loaded_ptbpf_progs(), 0);
	assert_int_equal(kill(f->target, 0), 0); /* still alive */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single_thread_stop_cont,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_stop_with_churn,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_to_stopped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gdb_attach, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ptrace_interrupt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sigsegv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thousand_cycles, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sigint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_events_resync, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
