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
	const char *extra; /* more ptbpf options (space separated), or NULL */
	char log[600];
	int fifo_rd; /* a FIFO's read end kept open, or 0 */
	struct held held; /* what this test's ptbpf held */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = fx_dir(NULL, 0, f->log, sizeof(f->log));
	*state = f;
	return f->dir ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fx_show_log(f->log);
	if (f->fifo_rd > 0)
		close(f->fifo_rd);
	kill_wait(f->target);
	if (f->ptbpf > 0 && wait_exit(f->ptbpf, 60) < 0)
		kill_wait(f->ptbpf);
	fx_dir_remove(f->dir);
	free(f);
	return 0;
}

/*
 * Starts @targv as the target and ptbpf --pid on it, its stderr to @log
 * (f->log when NULL); waits for "start".
 */
static void start_logged(struct fx *f, char *const targv[], const char *log)
{
	char pid[16], opts[256] = "-q", *argv[24], *w, *save;
	int n = 0;

	if (f->extra)
		snprintf(opts, sizeof(opts), "%s", f->extra);
	argv[n++] = PTBPF_BIN;
	argv[n++] = "-o";
	argv[n++] = f->dir;
	argv[n++] = "--pid";
	argv[n++] = pid;
	for (w = strtok_r(opts, " ", &save); w && n < 23; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	f->target = spawn(targv, NULL);
	assert_true(f->target > 0);
	msleep(50); /* let it exec and start its threads */
	snprintf(pid, sizeof(pid), "%d", f->target);
	f->ptbpf = spawn(argv, log ? log : f->log);
	if (!wait_events(f->dir, "start", 1, 60))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
	/* attached before "start": its programs, by id */
	assert_true(held_add(&f->held, f->ptbpf) > 0);
	assert_true(f->held.n[HELD_PROG] > 0);
}

static void start_on_pid(struct fx *f, char *const targv[])
{
	start_logged(f, targv, NULL);
}

/* Stops and continues @pid, checking each transition against /proc. */
static void stop_cont(struct fx *f, int i)
{
	assert_int_equal(kill(f->target, SIGSTOP), 0);
	if (!wait_stopped(f->target, 1, 30))
		fail_msg("cycle %d: target did not stop", i);
	if (!wait_events(f->dir, "stop", i + 1, 30))
		fail_msg("cycle %d: no stop event", i);
	assert_int_equal(count_events(f->dir, "run"), i);
	assert_int_equal(kill(f->target, SIGCONT), 0);
	if (!wait_events(f->dir, "run", i + 1, 60))
		fail_msg("cycle %d: no run event", i);
	assert_int_equal(count_events(f->dir, "stop"), i + 1);
}

/* Ends the target with SIGKILL; ptbpf sees it go and exits 0. */
static void end_target(struct fx *f)
{
	kill_wait(f->target);
	f->target = 0;
	assert_int_equal(wait_exit(f->ptbpf, 60), 0);
	f->ptbpf = 0;
	assert_int_equal(held_left(&f->held), 0);
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
	assert_int_equal(event_str(f->dir, "stop", 0, "signal", sig, sizeof(sig)), 0);
	assert_string_equal(sig, "SIGSTOP");
	event_str(f->dir, "stop", 0, "cause", sig, sizeof(sig));
	assert_string_equal(sig, "signal");
	event_str(f->dir, "run", 0, "signal", sig, sizeof(sig));
	assert_string_equal(sig, "SIGCONT");
	end_target(f);
	seq = event_sequence(f->dir, "pause resume snapshot snapshot_error snapshot_skipped");
	assert_string_equal(seq, "start stop run stop run stop run stop run stop run exit end");
	assert_int_equal(event_field(f->dir, "exit", 0, "exit_signal"), SIGKILL);
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
	/*
	 * On a host loaded far beyond its CPUs the churn's thread events can
	 * outrun the control path (lost_events says so); the stops and runs
	 * must all be there, told or found again by the resync.
	 */
	seq = event_sequence(f->dir, "thread_start thread_exit lost_events pause resume snapshot "
				     "snapshot_error snapshot_skipped");
	assert_string_equal(seq, "start stop run stop run stop run stop run stop run "
				 "stop run stop run stop run stop run stop run exit end");
	free(seq);
}

/*
 * A target creating threads back to back while ptbpf attaches: the
 * programs attach one at a time, and a thread that started after one and
 * ended before another must not be counted live for good (then the
 * process would never be seen stopped). Each round stops it once.
 */
static void test_attach_during_storm(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", "1", "storm", NULL };
	int i;

	need_root();
	f->extra = "-q --scope cpu";
	for (i = 0; i < 5; i++) {
		if (i) {
			fx_dir_remove(f->dir);
			f->dir = fx_dir(NULL, 0, f->log, sizeof(f->log));
			assert_non_null(f->dir);
			memset(&f->held, 0, sizeof(f->held));
		}
		start_on_pid(f, targv);
		kill(f->target, SIGSTOP);
		assert_true(wait_stopped(f->target, 1, 60));
		if (!wait_events(f->dir, "stop", 1, 60))
			fail_msg("round %d: the stopped target was never seen stopped", i);
		end_target(f);
	}
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
	assert_true(wait_stopped(f->target, 1, 60));
	snprintf(pid, sizeof(pid), "%d", f->target);
	f->ptbpf = spawn(argv, f->log);
	assert_true(wait_events(f->dir, "start", 1, 60));
	event_str(f->dir, "start", 0, "state", st, sizeof(st));
	assert_string_equal(st, "stopped");
	kill(f->target, SIGCONT);
	assert_true(wait_events(f->dir, "run", 1, 60));
	kill(f->target, SIGSTOP);
	assert_true(wait_events(f->dir, "stop", 1, 60));
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
	assert_true(wait_events(f->dir, "run", 1, 60));
	assert_int_equal(event_str(f->dir, "stop", 0, "cause", cause, sizeof(cause)), 0);
	assert_string_equal(cause, "ptrace");
	event_str(f->dir, "run", 0, "cause", cause, sizeof(cause));
	assert_string_equal(cause, "ptrace");
	assert_true(task_state(f->target, f->target) != 't');
	end_target(f);
	/* gdb may stop and resume more than once; they alternate */
	assert_true(count_events(f->dir, "stop") == count_events(f->dir, "run"));
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
	assert_true(wait_events(f->dir, "stop", 1, 60));
	event_str(f->dir, "stop", 0, "cause", cause, sizeof(cause));
	assert_string_equal(cause, "ptrace");
	assert_int_equal(count_events(f->dir, "run"), 0);
	assert_int_equal(ptrace(PTRACE_DETACH, f->target, 0, 0), 0);
	assert_true(wait_events(f->dir, "run", 1, 60));
	event_str(f->dir, "run", 0, "cause", cause, sizeof(cause));
	assert_string_equal(cause, "ptrace");
	end_target(f);
	seq = event_sequence(f->dir, "pause resume snapshot snapshot_error snapshot_skipped");
	assert_string_equal(seq, "start stop run exit end");
	free(seq);
}

/* A crash: fatal (at signal_generate) comes before exit; status 139. */
static void test_sigsegv(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PTBPF_BIN, "-o", f->dir, "--", PROGS "crash", "100", NULL };
	char sig[32], *seq;

	need_root();
	f->ptbpf = spawn(argv, f->log);
	assert_int_equal(wait_exit(f->ptbpf, 60), 128 + SIGSEGV);
	f->ptbpf = 0;
	seq = event_sequence(f->dir, "pause resume snapshot snapshot_error snapshot_skipped");
	assert_string_equal(seq, "start exec fatal exit end");
	event_str(f->dir, "fatal", 0, "signal", sig, sizeof(sig));
	assert_string_equal(sig, "SIGSEGV");
	assert_int_equal(event_field(f->dir, "exit", 0, "exit_signal"), SIGSEGV);
	assert_true(event_field(f->dir, "fatal", 0, "ts") < event_field(f->dir, "exit", 0, "ts"));
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
	assert_int_equal(wait_exit(f->ptbpf, 60), 7);
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
	f->extra = "-t none"; /* the events alone: snapshots have tests of their own */
	start_on_pid(f, targv);
	for (i = 0; i < 1000; i++) {
		kill(f->target, SIGSTOP);
		if (!wait_stopped(f->target, 1, 60))
			fail_msg("cycle %d: target did not stop", i);
		kill(f->target, SIGCONT);
		if (!wait_stopped(f->target, 0, 60))
			fail_msg("cycle %d: target did not continue", i);
	}
	if (!wait_events(f->dir, "run", 1000, 60))
		fail_msg("%d stop and %d run events of 1000, %d lost_events lines",
			 count_events(f->dir, "stop"), count_events(f->dir, "run"),
			 count_events(f->dir, "lost_events"));
	assert_int_equal(count_events(f->dir, "stop"), 1000);
	assert_int_equal(count_events(f->dir, "lost_events"), 0);
	seq = event_sequence(f->dir, "pause resume snapshot snapshot_error snapshot_skipped");
	assert_true(!strncmp(seq, "start stop run", 14));
	for (p = seq + 6, i = 0; i < 1000; i++, p += 9)
		if (strncmp(p, "stop run ", 9) && !(i == 999 && !strcmp(p, "stop run")))
			fail_msg("not alternating at cycle %d: %.40s", i, p);
	free(seq);
	assert_int_equal(task_state(f->target, f->target) == 'T', 0);
	for (i = 0; i < 1000; i++)
		lat[i] = event_field(f->dir, "stop", i, "delivery_ns");
	qsort(lat, 1000, sizeof(lat[0]), cmp_ll);
	printf("stop delivery (kernel ts -> user space): median %lld ns, p99 %lld ns\n", lat[500],
	       lat[990]);
	end_target(f);
}

/* VmRSS of @pid in KiB, or -1. */
static long rss_kb(pid_t pid)
{
	char path[64], *buf, *p;
	long v = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	buf = slurp(path);
	if (buf && (p = strstr(buf, "VmRSS:")))
		v = strtol(p + 6, NULL, 10);
	free(buf);
	return v;
}

struct order {
	int stops, runs, out_of_order, bad_seq;
};

/*
 * Reads the stop and run lines of events.jsonl: they must alternate,
 * starting with a stop, and their "seq" must count 1, 2, 3...
 */
static void read_order(const char *dir, struct order *o)
{
	char path[600], *buf, *line, *save, *q;
	long long want = 1;
	int expect_stop = 1;

	memset(o, 0, sizeof(*o));
	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	buf = slurp(path);
	assert_non_null(buf);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int stop = !strncmp(line, "{\"event\":\"stop\"", 15);
		int run = !strncmp(line, "{\"event\":\"run\"", 14);

		if (!stop && !run)
			continue;
		o->stops += stop;
		o->runs += run;
		if (stop != expect_stop)
			o->out_of_order++;
		expect_stop = !stop;
		q = strstr(line, "\"seq\":");
		if (!q || strtoll(q + 6, NULL, 10) != want)
			o->bad_seq++;
		want = q ? strtoll(q + 6, NULL, 10) + 1 : want + 1;
	}
	free(buf);
}

/*
 * @n stop/continue cycles, each waiting for /proc to show the state (as a
 * user would), then every transition must be in events.jsonl, in order.
 */
static void cycles_in_order(struct fx *f, int n)
{
	long rss0 = rss_kb(f->ptbpf), rss1;
	struct order o;
	int i;

	for (i = 0; i < n; i++) {
		kill(f->target, SIGSTOP);
		if (!wait_stopped(f->target, 1, 60))
			fail_msg("cycle %d: target did not stop", i);
		kill(f->target, SIGCONT);
		if (!wait_stopped(f->target, 0, 60))
			fail_msg("cycle %d: target did not continue", i);
	}
	wait_events(f->dir, "run", n, 60);
	rss1 = rss_kb(f->ptbpf);
	read_order(f->dir, &o);
	printf("%d cycles: %d stops, %d runs, %d out of order, %d with a "
	       "wrong seq, %d lost_events lines; ptbpf RSS %ld KiB before, "
	       "%ld KiB after\n",
	       n, o.stops, o.runs, o.out_of_order, o.bad_seq, count_events(f->dir, "lost_events"),
	       rss0, rss1);
	assert_int_equal(o.stops, n);
	assert_int_equal(o.runs, n);
	assert_int_equal(o.out_of_order, 0);
	assert_int_equal(o.bad_seq, 0);
	assert_int_equal(count_events(f->dir, "lost_events"), 0);
}

/*
 * Many cycles (PTBPF_CYCLES, default 3,000; the closing note's run used
 * 20,000): every transition reaches events.jsonl in the order it happened.
 */
static void test_cycles_in_order(void **state)
{
	struct fx *f = *state;
	/* two threads on two CPUs: the stop and the run flip on either */
	char *targv[] = { PROGS "spin", "2", NULL };
	const char *env = getenv("PTBPF_CYCLES");
	int n = env ? atoi(env) : 3000;
	char *seq, *last;

	need_root();
	/* cpu scope: user space pauses and resumes on every transition */
	f->extra = "-t none --scope cpu";
	start_on_pid(f, targv);
	cycles_in_order(f, n > 0 ? n : 3000);
	/* the target runs: so does the collection */
	seq = event_sequence(f->dir, "stop run thread_start thread_exit");
	last = strrchr(seq, ' ');
	assert_non_null(last);
	assert_string_equal(last + 1, "resume");
	free(seq);
	kill(f->ptbpf, SIGINT);
	assert_int_equal(wait_exit(f->ptbpf, 60), 0);
	f->ptbpf = 0;
	printf("records that came before an earlier one, put back in order: "
	       "%lld\n",
	       event_field(f->dir, "end", 0, "reordered"));
	assert_int_equal(held_left(&f->held), 0);
}

/*
 * stderr on a FIFO nobody reads: its buffer fills within a few hundred
 * lines, and from then on every human line would block. Through 3,000
 * cycles (with a snapshot each) the control path goes on; one more stop
 * is logged and SIGINT is obeyed; the lines that
 * could not be written are counted.
 */
static void test_stalled_stderr(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", NULL };
	char fifo[700];
	double t0;

	need_root();
	snprintf(fifo, sizeof(fifo), "%s/stderr.fifo", f->dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* a reader that never reads: writes block once the pipe is full */
	f->fifo_rd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(f->fifo_rd > 0);
	f->extra = "-v -t stop -n 2 -s 64K";
	start_logged(f, targv, fifo);
	cycles_in_order(f, 3000);
	kill(f->target, SIGSTOP);
	if (!wait_events(f->dir, "stop", 3001, 60))
		fail_msg("the stop after 3,000 cycles was not logged");
	t0 = mono_s();
	kill(f->ptbpf, SIGINT);
	/* obeyed at all is the point (a blocked writer would hang it for
	 * good): a generous deadline, no duration asserted */
	assert_int_equal(wait_exit(f->ptbpf, 60), 0);
	f->ptbpf = 0;
	print_message("SIGINT obeyed in %.2f s; %lld human lines dropped, %lld folded\n",
		      mono_s() - t0, event_field(f->dir, "end", 0, "stderr_dropped"),
		      event_field(f->dir, "end", 0, "stderr_folded"));
	/*
	 * not every line went out: dropped at the stalled pipe, or folded before
	 * it by the rate limit (which leaves the 64 KiB pipe room to spare)
	 */
	assert_true(event_field(f->dir, "end", 0, "stderr_dropped") +
			    event_field(f->dir, "end", 0, "stderr_folded") >
		    0);
	assert_int_equal(held_left(&f->held), 0);
}

/*
 * A full BPF ring buffer: ptbpf itself stopped while the target creates
 * threads, then the target stops too. The lost events are reported, the
 * collection follows the BPF side's state (paused) all the same, and the
 * stop whose event was lost gets its snapshot.
 */
static void test_lost_events_resync(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", "1", "storm", NULL };
	char *seq, *p, cause[32];
	long long lost0;
	double deadline;

	need_root();
	/* cpu scope: the catch-up is a pause (process scope needs none) */
	f->extra = "-q -t stop --scope cpu";
	start_on_pid(f, targv);
	assert_true(wait_events(f->dir, "resume", 1, 60));
	kill(f->ptbpf, SIGSTOP);
	/* every thread of it stopped: from here on nothing frees ring space */
	assert_true(wait_stopped(f->ptbpf, 1, 60));
	/*
	 * The ring may have overflowed already, before ptbpf read it at all
	 * (the storm runs from attach on), and ptbpf freed some since: the
	 * stop's event would fit. Only a loss counted from here on says it is
	 * full for good. Two events a thread, threads back to back: until
	 * then, however slowly a loaded host lets them come.
	 */
	lost0 = held_bpf_global(&f->held, "lost_events");
	assert_true(lost0 >= 0);
	deadline = mono_s() + 300;
	while (mono_s() < deadline && held_bpf_global(&f->held, "lost_events") <= lost0)
		msleep(10);
	assert_true(held_bpf_global(&f->held, "lost_events") > lost0);
	kill(f->target, SIGSTOP);
	assert_true(wait_stopped(f->target, 1, 60));
	kill(f->ptbpf, SIGCONT);
	assert_true(wait_events(f->dir, "lost_events", 1, 60));
	assert_true(wait_events(f->dir, "pause", 1, 60));
	assert_true(event_field(f->dir, "lost_events", 0, "count") > 0);
	seq = event_sequence(f->dir, "thread_start thread_exit");
	/* no stop event came through, but the collection paused */
	p = strstr(seq, "lost_events");
	assert_non_null(p);
	assert_non_null(strstr(p, "pause"));
	free(seq);
	/* and the stop it missed still has its snapshot */
	assert_true(wait_events(f->dir, "snapshot", 1, 60));
	event_str(f->dir, "snapshot", 0, "trigger", cause, sizeof(cause));
	assert_string_equal(cause, "stop");
	end_target(f);
}

/*
 * A process whose main thread called pthread_exit(): a zombie leader, its
 * other thread running on. It is traced like any other: attached, and its
 * stop and run reported.
 */
static void test_zombie_leader(void **state)
{
	struct fx *f = *state;
	char *targv[] = { PROGS "spin", "2", "zombie", NULL };
	char path[700], *seq, *meta;
	int i;

	need_root();
	f->extra = "-q -t stop";
	start_on_pid(f, targv);
	assert_int_equal(task_state(f->target, f->target), 'Z');
	for (i = 0; i < 3; i++)
		stop_cont(f, i);
	seq = event_sequence(f->dir, "pause resume snapshot");
	assert_string_equal(seq, "start stop run stop run stop run");
	free(seq);
	/* the snapshot names its program: read from a live thread */
	assert_true(wait_events(f->dir, "snapshot", 1, 60));
	snprintf(path, sizeof(path), "%s/snapshot-000001/ptbpf.json", f->dir);
	meta = slurp(path);
	assert_non_null(meta);
	assert_non_null(strstr(meta, "/tests/progs/spin\""));
	free(meta);
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
	assert_int_equal(wait_exit(f->ptbpf, 60), 0);
	f->ptbpf = 0;
	event_str(f->dir, "end", 0, "reason", reason, sizeof(reason));
	assert_string_equal(reason, "signal");
	assert_int_equal(held_left(&f->held), 0);
	assert_int_equal(kill(f->target, 0), 0); /* still alive */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single_thread_stop_cont, setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_stop_with_churn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_during_storm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_to_stopped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gdb_attach, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ptrace_interrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigsegv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thousand_cycles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cycles_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stalled_stderr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zombie_leader, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_events_resync, setup, teardown),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
