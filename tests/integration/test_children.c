// SPDX-License-Identifier: GPL-2.0
/*
 * --follow on a real kernel, sample backend: a server (tests/progs/
 * forkserver) forks workers; with --follow every worker's samples are in
 * the snapshots under its own pid, named and symbolised (its COMM and MMAP2
 * records), a worker's SIGSTOP is a stop and a snapshot that name it, and
 * the run ends when the last process exits, not the first; without it no
 * worker's sample reaches a snapshot. Needs root, as every integration test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "integ.h"

#define MAX_WORKERS 8

struct fx {
	char *dir;
	char out[128], log[128], tlog[128];
	pid_t ptbpf, target;
	pid_t workers[MAX_WORKERS];
	int nr_workers;
	struct held held;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = fx_dir(f->out, sizeof(f->out), f->log, sizeof(f->log));
	if (!f->dir)
		return -1;
	snprintf(f->tlog, sizeof(f->tlog), "%s/target.log", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	int i;

	fx_show_log(f->log);
	/* the workers are not our children once their parent is gone */
	for (i = 0; i < f->nr_workers; i++)
		if (f->workers[i] > 0 && kill(f->workers[i], 0) == 0) {
			kill(f->workers[i], SIGKILL);
			kill(f->workers[i], SIGCONT);
		}
	if (f->ptbpf > 0)
		kill_wait(f->ptbpf);
	kill_wait(f->target);
	fx_dir_remove(f->dir);
	free(f);
	return 0;
}

/* The workers' pids, from the "worker PID" lines of @log. */
static int read_workers(struct fx *f, const char *log, int want, double secs)
{
	double end = mono_s() + secs;
	char *buf, *p;

	do {
		f->nr_workers = 0;
		buf = slurp(log);
		for (p = buf; p && (p = strstr(p, "worker ")) && f->nr_workers < MAX_WORKERS; p++)
			f->workers[f->nr_workers++] = (pid_t)atoi(p + 7);
		free(buf);
		if (f->nr_workers >= want)
			return f->nr_workers;
		msleep(10);
	} while (mono_s() < end);
	return f->nr_workers;
}

/*
 * ptbpf -b sample -o OUT @opts -- forkserver @args, its stdout (the
 * workers' lines) and stderr into f->log.
 */
static void launch(struct fx *f, const char *opts, const char *args)
{
	char *argv[32], buf[256], abuf[128], *w, *save;
	int n = 0;

	argv[n++] = PTBPF_BIN;
	argv[n++] = "-b";
	argv[n++] = "sample";
	argv[n++] = "-F"; /* workers' samples are counted: a fixed rate */
	argv[n++] = "4000";
	argv[n++] = "-o";
	argv[n++] = f->out;
	snprintf(buf, sizeof(buf), "%s", opts);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n++] = "--";
	argv[n++] = PROGS "forkserver";
	snprintf(abuf, sizeof(abuf), "%s", args);
	for (w = strtok_r(abuf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	f->ptbpf = spawn(argv, f->log);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
	assert_true(held_add(&f->held, f->ptbpf) > 0);
	f->target = (pid_t)event_field(f->out, "start", 0, "pid");
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

/* Line @nth of event @name names pid @pid. */
static int nth_with_pid(const char *dir, const char *name, pid_t pid)
{
	int i, n = count_events(dir, name);

	for (i = 0; i < n; i++)
		if (event_field(dir, name, i, "pid") == pid)
			return i;
	return -1;
}

/*
 * Three workers: each one's samples are in the snapshots under its own
 * pid, with the program's name (its COMM) and worker_spin named (its
 * MMAP2); each fork is an event naming the parent.
 */
static void test_follow_workers(void **state)
{
	struct fx *f = *state;
	int i, st;

	need_root();
	launch(f, "-q --follow", "3 400");
	assert_int_equal(read_workers(f, f->log, 3, 10), 3);
	st = finish(f, 60);
	assert_int_equal(st, 0);
	assert_int_equal(count_events(f->out, "fork"), 3);
	for (i = 0; i < 3; i++) {
		pid_t w = f->workers[i];
		int k = nth_with_pid(f->out, "fork", w);
		long named, spin;

		assert_true(k >= 0);
		assert_int_equal(event_field(f->out, "fork", k, "ppid"), f->target);
		assert_true(nth_with_pid(f->out, "exit", w) >= 0);
		named = samples_with(f->out, w, "forkserver");
		spin = samples_with(f->out, w, "worker_spin");
		print_message("worker %d: %ld samples named forkserver, %ld in "
			      "worker_spin\n",
			      w, named, spin);
		assert_true(named > 0);
		assert_true(spin > 0);
	}
	/* the target's exit came before the end, its workers' too */
	assert_int_equal(count_events(f->out, "exit"), 4);
	assert_int_equal(count_events(f->out, "end"), 1);
}

/*
 * ptbpf-dump reads the worker's stop snapshot @id as the worker's: its
 * pid in the header, its samples as the target's, the server's and the
 * other worker's as followed, none as others (every process was followed).
 */
static void dump_reads_worker(struct fx *f, int id, pid_t w)
{
	char cmd[300], want[64], *txt, *p;
	unsigned long long others;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "./ptbpf-dump %s/snapshot-%06d", f->out, id);
	txt = run_out(cmd, NULL);
	snprintf(want, sizeof(want), ", pid %d (forkserver)\n", w);
	if (!strstr(txt, want))
		fail_msg("ptbpf-dump does not read the snapshot as pid %d's:\n%s", w, txt);
	for (p = txt; (p = strstr(p, "    samples: ")); p++) {
		p = strstr(p, ", others ");
		assert_non_null(p);
		others = strtoull(p + 9, NULL, 10);
		assert_int_equal(others, 0);
		n++;
	}
	assert_true(n > 0);
	if (!strstr(txt, "  last before the stop (newest first):\n    "))
		fail_msg("no samples of pid %d last before its stop:\n%s", w, txt);
	free(txt);
	/* --last --pid: each worker's samples, and only its */
	for (n = 0; n < f->nr_workers; n++) {
		int lines = 0;

		snprintf(cmd, sizeof(cmd), "./ptbpf-dump --last 1s --pid %d %s/snapshot-%06d",
			 f->workers[n], f->out, id);
		txt = run_out(cmd, NULL);
		snprintf(want, sizeof(want), " samples of pid %d from snapshot", f->workers[n]);
		if (!strstr(txt, want))
			fail_msg("--last --pid %d:\n%s", f->workers[n], txt);
		for (p = txt; (p = strstr(p, "  tid ")); p++, lines++)
			if (atoi(p + 6) != f->workers[n])
				fail_msg("--last --pid %d lists another thread:\n%s", f->workers[n],
					 txt);
		print_message("--last 1s --pid %d: %d samples\n", f->workers[n], lines);
		assert_true(lines > 0);
		free(txt);
	}
}

/*
 * A worker's SIGSTOP is a stop of that worker: a stop event and a stop
 * snapshot that name its pid; SIGCONT is its run. The others run on.
 */
static void test_follow_worker_stop(void **state)
{
	struct fx *f = *state;
	char cause[32];
	pid_t w;
	int k, i, n, st;

	need_root();
	launch(f, "-q --follow", "2 1200");
	assert_int_equal(read_workers(f, f->log, 2, 10), 2);
	w = f->workers[0];
	assert_int_equal(kill(w, SIGSTOP), 0);
	if (!wait_stopped(w, 1, 60))
		fail_msg("worker %d did not stop", w);
	if (!wait_events(f->out, "stop", 1, 60))
		fail_msg("no stop event: %s", slurp(f->log));
	assert_int_equal(event_field(f->out, "stop", 0, "pid"), w);
	/* the stop snapshot names the worker */
	for (i = 0; i < 100; i++) {
		n = count_events(f->out, "snapshot");
		for (k = 0; k < n; k++)
			if (event_field(f->out, "snapshot", k, "pid") == w &&
			    !event_str(f->out, "snapshot", k, "trigger", cause, sizeof(cause)) &&
			    !strcmp(cause, "stop"))
				break;
		if (k < n)
			break;
		msleep(50);
	}
	assert_true(i < 100);
	dump_reads_worker(f, (int)event_field(f->out, "snapshot", k, "snapshot"), w);
	assert_int_equal(kill(w, SIGCONT), 0);
	if (!wait_events(f->out, "run", 1, 60))
		fail_msg("no run event: %s", slurp(f->log));
	assert_int_equal(event_field(f->out, "run", 0, "pid"), w);
	st = finish(f, 60);
	assert_int_equal(st, 0);
	/* the target itself never stopped */
	assert_int_equal(nth_with_pid(f->out, "stop", f->target), -1);
}

/* The id of the stop snapshot that names process @pid; 0 after 60 s. */
static int stop_snapshot(struct fx *f, pid_t pid)
{
	double end = mono_s() + 60;
	char cause[32];
	int k, n;

	do {
		n = count_events(f->out, "snapshot");
		for (k = 0; k < n; k++)
			if (event_field(f->out, "snapshot", k, "pid") == pid &&
			    !event_str(f->out, "snapshot", k, "trigger", cause, sizeof(cause)) &&
			    !strcmp(cause, "stop"))
				return (int)event_field(f->out, "snapshot", k, "snapshot");
		msleep(50);
	} while (mono_s() < end);
	return 0;
}

/*
 * The summary of snapshot @id, read as the target's, has a section of
 * its own for the followed process @child (worker): its thread, its
 * modules (worker's among them), its samples named from them; and so has
 * --json.
 */
static void followed_summary(struct fx *f, int id, pid_t child)
{
	char cmd[300], want[64], *txt, *sec, *end, *mods;

	snprintf(cmd, sizeof(cmd), "./ptbpf-dump %s/snapshot-%06d", f->out, id);
	txt = run_out(cmd, NULL);
	snprintf(want, sizeof(want), "\n  followed process %d (worker): 1 thread (tid %d ", child,
		 child);
	sec = strstr(txt, want);
	if (!sec)
		fail_msg("no section of followed process %d:\n%s", child, txt);
	sec++;
	end = strstr(sec, "\n  followed process ");
	if (end)
		*end = '\0';
	mods = strstr(sec, "\n    modules ");
	if (!mods || !strstr(mods, " worker ") || !strstr(sec, "checksum"))
		fail_msg("process %d's section lacks its modules or samples:\n%s", child, sec);
	free(txt);
	snprintf(cmd, sizeof(cmd), "./ptbpf-dump --json %s/snapshot-%06d", f->out, id);
	txt = run_out(cmd, NULL);
	snprintf(want, sizeof(want), "\"followed_processes\":[{\"pid\":%d,", child);
	if (!strstr(txt, want) || !strstr(txt, "\"function\":\"checksum\""))
		fail_msg("--json lacks followed process %d:\n%s", child, txt);
	free(txt);
}

/*
 * A child that runs another program than its parent (sh forks and execs
 * worker): the parent's stop snapshot, read with --last --pid CHILD,
 * names the child's samples from the child's own modules (worker's
 * checksum, compute), not from the shell's, which map other code at
 * other addresses.
 */
static void test_follow_exec_last_pid(void **state)
{
	struct fx *f = *state;
	char cmd[400], want[64], script[200], *txt, *p, *line, *save;
	char *argv[] = { PTBPF_BIN, "-q",   "-b", "sample",  "-F", "4000", "--follow",
			 "-o",	    f->out, "--", "/bin/sh", "-c", script, NULL };
	int i, n, id, lines = 0, named = 0;
	pid_t child = 0;

	need_root();
	snprintf(script, sizeof(script), "%sworker 600000 & wait; exit 0", PROGS);
	f->ptbpf = spawn(argv, f->log);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
	assert_true(held_add(&f->held, f->ptbpf) > 0);
	f->target = (pid_t)event_field(f->out, "start", 0, "pid");
	/* the child's exec of worker: an exec event of another pid */
	for (i = 0; i < 1200 && !child; i++) {
		n = count_events(f->out, "exec");
		while (n-- > 0 && !child)
			if (event_field(f->out, "exec", n, "pid") != f->target)
				child = (pid_t)event_field(f->out, "exec", n, "pid");
		if (!child)
			msleep(50);
	}
	if (child <= 0)
		fail_msg("no exec of worker in a child: %s", slurp(f->log));
	f->workers[f->nr_workers++] = child;
	assert_true(wait_cpu(child, 300, 60));
	assert_int_equal(kill(f->target, SIGSTOP), 0);
	id = stop_snapshot(f, f->target);
	if (!id)
		fail_msg("no stop snapshot of pid %d: %s", f->target, slurp(f->log));
	snprintf(cmd, sizeof(cmd), "./ptbpf-dump --last 60s --pid %d %s/snapshot-%06d", child,
		 f->out, id);
	txt = run_out(cmd, NULL);
	snprintf(want, sizeof(want), " samples of pid %d from snapshot", child);
	if (!strstr(txt, want))
		fail_msg("--last --pid %d:\n%s", child, txt);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		p = strstr(line, "  tid ");
		if (!p)
			continue;
		lines++;
		if (atoi(p + 6) != child)
			fail_msg("--last --pid %d lists another thread: %s", child, line);
		named += strstr(line, "checksum") || strstr(line, "compute");
	}
	print_message("--last --pid %d: %d samples, %d named in worker's code\n", child, lines,
		      named);
	assert_true(lines > 0);
	assert_true(named > 0);
	free(txt);
	followed_summary(f, id, child);
	assert_int_equal(kill(f->target, SIGCONT), 0);
	assert_int_equal(kill(child, SIGKILL), 0);
	assert_int_equal(finish(f, 60), 0);
}

/* Without --follow: no fork event, not one sample of a worker. */
static void test_no_follow(void **state)
{
	struct fx *f = *state;
	int i;

	need_root();
	launch(f, "-q", "2 300");
	assert_int_equal(read_workers(f, f->log, 2, 10), 2);
	assert_int_equal(finish(f, 60), 0);
	assert_int_equal(count_events(f->out, "fork"), 0);
	assert_true(count_events(f->out, "snapshot") >= 1);
	/* test_follow_workers finds them with this same count */
	for (i = 0; i < 2; i++)
		assert_int_equal(samples_with(f->out, f->workers[i], ""), 0);
}

/*
 * The target exits first, its workers run on: the run ends with the last
 * worker's exit, which comes after the target's.
 */
static void test_follow_outlives_target(void **state)
{
	struct fx *f = *state;
	char seq[4096], *s;
	int i;

	need_root();
	launch(f, "-q --follow", "2 500 0 nowait");
	assert_int_equal(read_workers(f, f->log, 2, 10), 2);
	assert_int_equal(finish(f, 60), 0);
	assert_int_equal(count_events(f->out, "exit"), 3);
	/* the target's exit is the first, the end comes after every exit */
	assert_int_equal(event_field(f->out, "exit", 0, "pid"), f->target);
	s = event_sequence(f->out, "resume pause snapshot fork exec");
	snprintf(seq, sizeof(seq), "%s", s);
	free(s);
	assert_string_equal(seq, "start exit exit exit end");
	for (i = 0; i < 2; i++)
		assert_true(samples_with(f->out, f->workers[i], "worker_spin") > 0);
}

/*
 * --pid --follow: a server already running forks its workers after
 * ptbpf attached; they are followed (process scope's BPF filter and
 * inherited sideband).
 */
static void test_follow_pid(void **state)
{
	struct fx *f = *state;
	char pid[16], *argv[16];
	char *targv[] = { PROGS "forkserver", "2", "300", "1500", NULL };
	int n = 0, i;

	need_root();
	f->target = spawn(targv, f->tlog);
	assert_true(f->target > 0);
	/*
	 * Held stopped until ptbpf has started, so that its forks come
	 * after, however long the start takes on a loaded machine.
	 */
	assert_int_equal(kill(f->target, SIGSTOP), 0);
	assert_true(wait_stopped(f->target, 1, 60));
	snprintf(pid, sizeof(pid), "%d", f->target);
	argv[n++] = PTBPF_BIN;
	argv[n++] = "-q";
	argv[n++] = "-b";
	argv[n++] = "sample";
	argv[n++] = "-F";
	argv[n++] = "4000";
	argv[n++] = "--follow";
	argv[n++] = "-o";
	argv[n++] = f->out;
	argv[n++] = "--pid";
	argv[n++] = pid;
	argv[n] = NULL;
	f->ptbpf = spawn(argv, f->log);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
	assert_true(held_add(&f->held, f->ptbpf) > 0);
	assert_int_equal(kill(f->target, SIGCONT), 0);
	assert_int_equal(read_workers(f, f->tlog, 2, 60), 2);
	assert_int_equal(wait_exit(f->target, 60), 0);
	f->target = -f->target; /* reaped: teardown must not kill its pid */
	assert_int_equal(finish(f, 30), 0);
	assert_int_equal(count_events(f->out, "fork"), 2);
	for (i = 0; i < 2; i++)
		assert_true(samples_with(f->out, f->workers[i], "worker_spin") > 0);
}

/*
 * --pid --follow on a server whose workers run already: they are followed
 * from the start (found by their parent in /proc), their work recorded,
 * their exits seen; no fork is told, none happened in the run. The
 * workers wait stopped until ptbpf has started: a worker done before
 * ptbpf's start (its calibration and attach take long on a loaded
 * machine) would have no exit in the run to see.
 */
static void test_follow_pid_existing(void **state)
{
	struct fx *f = *state;
	char pid[16];
	char *targv[] = { PROGS "forkserver", "2", "600", NULL };
	char *argv[] = { PTBPF_BIN,  "-q", "-b",   "sample", "-F", "4000",
			 "--follow", "-o", f->out, "--pid",  pid,  NULL };
	int i;

	need_root();
	f->target = spawn(targv, f->tlog);
	assert_true(f->target > 0);
	assert_int_equal(read_workers(f, f->tlog, 2, 10), 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(kill(f->workers[i], SIGSTOP), 0);
		assert_true(wait_stopped(f->workers[i], 1, 60));
	}
	snprintf(pid, sizeof(pid), "%d", f->target);
	f->ptbpf = spawn(argv, f->log);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
	assert_true(held_add(&f->held, f->ptbpf) > 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(kill(f->workers[i], SIGCONT), 0);
	assert_int_equal(wait_exit(f->target, 60), 0);
	f->target = -f->target; /* reaped: teardown must not kill its pid */
	assert_int_equal(finish(f, 30), 0);
	assert_int_equal(count_events(f->out, "fork"), 0);
	assert_int_equal(count_events(f->out, "exit"), 3);
	for (i = 0; i < 2; i++) {
		assert_true(nth_with_pid(f->out, "exit", f->workers[i]) >= 0);
		assert_true(samples_with(f->out, f->workers[i], "worker_spin") > 0);
	}
}

/* Snapshots (written or skipped) of process @pid for @trigger. */
static int snaps_of(const char *dir, pid_t pid, const char *trigger)
{
	static const char *const names[] = { "snapshot", "snapshot_skipped" };
	char t[32];
	int i, k, n, c = 0;

	for (k = 0; k < 2; k++) {
		n = count_events(dir, names[k]);
		for (i = 0; i < n; i++)
			if (event_field(dir, names[k], i, "pid") == pid &&
			    !event_str(dir, names[k], i, "trigger", t, sizeof(t)) &&
			    !strcmp(t, trigger))
				c++;
	}
	return c;
}

/*
 * A fork-per-request server: the workers that end by exit() get no
 * snapshot of their exit; one killed by SIGSEGV gets its fatal one, and
 * the target's own exit (the run's last) its exit snapshot.
 */
static void test_follow_quiet_exits(void **state)
{
	struct fx *f = *state;
	int i;

	need_root();
	launch(f, "--follow", "3 400 500");
	assert_int_equal(read_workers(f, f->log, 3, 30), 3);
	assert_int_equal(kill(f->workers[0], SIGSEGV), 0);
	assert_int_equal(finish(f, 60), 0);
	assert_true(snaps_of(f->out, f->workers[0], "fatal") +
			    snaps_of(f->out, f->workers[0], "exit") >=
		    1);
	for (i = 1; i < 3; i++) {
		assert_true(nth_with_pid(f->out, "exit", f->workers[i]) >= 0);
		assert_int_equal(snaps_of(f->out, f->workers[i], "exit"), 0);
	}
	/* >= 1: a worker's snapshot_skipped names the run's pid */
	assert_true(snaps_of(f->out, f->target, "exit") >= 1);
}

/* Waits until process @pid is gone (or a zombie nobody reaps yet). */
static bool wait_gone(pid_t pid, double secs)
{
	double end = mono_s() + secs;
	char st;

	do {
		st = task_state(pid, pid);
		if (!st || st == 'Z' || st == 'X')
			return true;
		msleep(20);
	} while (mono_s() < end);
	return false;
}

/*
 * SIGINT to ptbpf --follow -- COMMAND: the workers the command forked are
 * ended with it (SIGTERM, as the command), and the run ended as asked.
 */
static void test_follow_sigint_ends_workers(void **state)
{
	struct fx *f = *state;
	char s[32];
	int i;

	need_root();
	/* workers that would spin for 60 s of CPU, the server gone at once */
	launch(f, "-q --follow", "3 60000 0 nowait");
	assert_int_equal(read_workers(f, f->log, 3, 10), 3);
	assert_true(wait_events(f->out, "fork", 3, 60));
	kill(f->ptbpf, SIGINT);
	assert_int_equal(finish(f, 60), 0);
	for (i = 0; i < 3; i++)
		if (!wait_gone(f->workers[i], 60))
			fail_msg("worker %d still runs after ptbpf ended", f->workers[i]);
	assert_int_equal(event_str(f->out, "end", 0, "reason", s, sizeof(s)), 0);
	assert_string_equal(s, "signal");
	assert_int_equal(event_str(f->out, "end", 0, "ended", s, sizeof(s)), 0);
	assert_string_equal(s, "as_asked");
	assert_int_equal(event_field(f->out, "end", 0, "left_running"), -1);
}

/*
 * SIGINT to ptbpf --pid --follow: the processes are not ptbpf's to end;
 * they are left running, and the end says how many, stderr which.
 */
static void test_follow_pid_sigint_leaves(void **state)
{
	struct fx *f = *state;
	char pid[16], want[64], *log;
	char *targv[] = { PROGS "forkserver", "2", "60000", NULL };
	char *argv[] = { PTBPF_BIN, "-b", "sample", "--follow", "-o", f->out, "--pid", pid, NULL };
	int i;

	need_root();
	f->target = spawn(targv, f->tlog);
	assert_true(f->target > 0);
	assert_int_equal(read_workers(f, f->tlog, 2, 10), 2);
	snprintf(pid, sizeof(pid), "%d", f->target);
	f->ptbpf = spawn(argv, f->log);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
	assert_true(held_add(&f->held, f->ptbpf) > 0);
	kill(f->ptbpf, SIGINT);
	assert_int_equal(finish(f, 30), 0);
	assert_int_equal(event_field(f->out, "end", 0, "left_running"), 2);
	log = slurp(f->log);
	assert_non_null(
		strstr(log, "ptbpf: 2 followed processes left running, no longer recorded:"));
	for (i = 0; i < 2; i++) {
		assert_int_equal(task_state(f->workers[i], f->workers[i]) != 0, 1);
		snprintf(want, sizeof(want), " %d", f->workers[i]);
		assert_non_null(strstr(strstr(log, "left running"), want));
	}
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_follow_workers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_worker_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_exec_last_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_follow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_outlives_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_pid_existing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_quiet_exits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_sigint_ends_workers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_pid_sigint_leaves, setup, teardown),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
