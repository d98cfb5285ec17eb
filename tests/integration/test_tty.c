// SPDX-License-Identifier: GPL-2.0
/*
 * Launch mode at a terminal: a real bash in a pseudo-terminal this test
 * opens, typing as a user does. Ctrl-Z gives the prompt back while the
 * command is stopped and ptbpf records the stop; fg and bg continue it;
 * Ctrl-C reaches the command as SIGINT and it ends as it would alone.
 * Root only (ptbpf loads BPF).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <sys/ioctl.h>

#include "integ.h"

#define PROMPT "PTBPF-TEST-PROMPT> "

struct fx {
	char *dir;
	char out[600];
	int master;
	pid_t shell;
	char buf[1 << 16];
	size_t len, mark; /* what was read; where the next expect looks */
};

/* bash -i on the slave side, as the session leader: job control on. */
static pid_t start_shell(struct fx *f)
{
	const char *name;
	pid_t pid;
	int s;

	f->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (f->master < 0 || grantpt(f->master) || unlockpt(f->master))
		return -1;
	name = ptsname(f->master);
	pid = fork();
	if (pid != 0)
		return pid;
	setsid();
	s = open(name, O_RDWR);
	if (s < 0 || ioctl(s, TIOCSCTTY, 0))
		_exit(126);
	dup2(s, 0);
	dup2(s, 1);
	dup2(s, 2);
	if (s > 2)
		close(s);
	setenv("PS1", PROMPT, 1);
	setenv("TERM", "dumb", 1);
	execl("/bin/bash", "bash", "--norc", "--noprofile", "-i", NULL);
	_exit(127);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = fx_dir(f->out, sizeof(f->out), NULL, 0);
	if (!f->dir)
		return -1;
	f->master = -1;
	*state = f;
	return 0;
}

/* The session's processes: the pid in @pids, their count returned. */
static int session_procs(pid_t sid, pid_t *pids, int max)
{
	struct dirent *de;
	char path[64], buf[512], *p;
	int n = 0, fd, s;
	ssize_t len;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d)) && n < max) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[len > 0 ? len : 0] = 0;
		p = strrchr(buf, ')');
		/* ") S ppid pgrp session" */
		if (p && sscanf(p + 2, "%*c %*d %*d %d", &s) == 1 && s == sid)
			pids[n++] = atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	pid_t pids[64];
	int i, n;

	if (getenv("TEST_VERBOSE"))
		fprintf(stderr, "--- terminal:\n%.*s\n", (int)f->len, f->buf);
	if (f->shell > 0) {
		/* whatever is left of the session: the shell, ptbpf, the command */
		n = session_procs(f->shell, pids, 64);
		for (i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
		waitpid(f->shell, NULL, 0);
		for (i = 0; i < 100 && session_procs(f->shell, pids, 64); i++)
			msleep(20);
	}
	if (f->master >= 0)
		close(f->master);
	fx_dir_remove(f->dir);
	free(f);
	return 0;
}

/* Reads what the terminal shows for up to @ms milliseconds. */
static void pump(struct fx *f, int ms)
{
	struct pollfd p = { .fd = f->master, .events = POLLIN };
	ssize_t n;

	while (poll(&p, 1, ms) > 0 && f->len < sizeof(f->buf) - 1) {
		n = read(f->master, f->buf + f->len, sizeof(f->buf) - 1 - f->len);
		if (n <= 0)
			break;
		f->len += n;
		f->buf[f->len] = 0;
		ms = 0; /* take what is there, then return */
	}
}

/* Waits until @pat shows after the last match; false after @timeout_s. */
static bool expect(struct fx *f, const char *pat, double timeout_s)
{
	double end = mono_s() + timeout_s;
	char *hit;

	for (;;) {
		f->buf[f->len] = 0;
		hit = strstr(f->buf + f->mark, pat);
		if (hit) {
			f->mark = hit - f->buf + strlen(pat);
			return true;
		}
		if (mono_s() > end)
			return false;
		pump(f, 50);
	}
}

static void type(struct fx *f, const char *s)
{
	assert_int_equal(write(f->master, s, strlen(s)), (ssize_t)strlen(s));
}

static void must_see(struct fx *f, const char *pat, double timeout_s)
{
	if (!expect(f, pat, timeout_s))
		fail_msg("the terminal never showed \"%s\"; it shows:\n%s", pat, f->buf + f->mark);
}

/* The state letter of @pid from /proc (T: stopped), or 0. */
static char proc_state(pid_t pid)
{
	return task_state(pid, pid);
}

/* The shell's child running ptbpf: the front, which the shell waits for. */
static pid_t front_pid(struct fx *f)
{
	pid_t pids[64];
	char path[64], buf[512], *p;
	int i, n = session_procs(f->shell, pids, 64), ppid;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", pids[i]);
		free(p = slurp(path));
		if (read_task_file(pids[i], pids[i], "stat", buf, sizeof(buf)) <= 0 ||
		    !strstr(buf, "(ptbpf)"))
			continue;
		p = strrchr(buf, ')');
		if (sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == f->shell)
			return pids[i];
	}
	return 0;
}

/* ptbpf -b sample -o OUT @args, typed at the shell's prompt. */
static pid_t launch_args(struct fx *f, const char *args)
{
	char cmd[1200];
	pid_t target;

	if (f->shell <= 0) {
		f->shell = start_shell(f);
		assert_true(f->shell > 0);
		must_see(f, PROMPT, 60);
	}
	snprintf(cmd, sizeof(cmd), "%s -b sample -o %s %s\n", PTBPF_BIN, f->out, args);
	type(f, cmd);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("ptbpf did not start; the terminal shows:\n%s", f->buf);
	target = (pid_t)event_field(f->out, "start", 0, "pid");
	assert_true(target > 0);
	must_see(f, "start ", 60);
	return target;
}

static pid_t launch(struct fx *f, const char *prog)
{
	char args[1100];

	snprintf(args, sizeof(args), "-- %s", prog);
	return launch_args(f, args);
}

/* Ctrl-Z: the prompt is back with the command stopped, and ptbpf records. */
static pid_t suspend(struct fx *f, pid_t target)
{
	char sig[32];
	pid_t front;

	msleep(300); /* let it run: the stop's snapshot has bytes */
	type(f, "\x1a");
	must_see(f, "Stopped", 60);
	must_see(f, PROMPT, 60);
	assert_true(wait_stopped(target, 1, 60));
	assert_true(wait_events(f->out, "stop", 1, 60));
	event_str(f->out, "stop", 0, "signal", sig, sizeof(sig));
	assert_string_equal(sig, "SIGTSTP");
	event_str(f->out, "stop", 0, "kind", sig, sizeof(sig));
	assert_string_equal(sig, "group_stop");
	/* the recording part kept running: the stop's snapshot is written */
	assert_true(wait_events(f->out, "snapshot", 1, 60));
	front = front_pid(f);
	assert_true(front > 0);
	assert_int_equal(proc_state(front), 'T');
	return front;
}

static void exit_status_is(struct fx *f, const char *want)
{
	must_see(f, PROMPT, 60);
	type(f, "echo status=$?\n");
	must_see(f, want, 60);
}

static void test_ctrl_z_fg_ctrl_c(void **state)
{
	struct fx *f = *state;
	pid_t target;

	need_root();
	target = launch(f, PROGS "ticker 1000000 5");
	suspend(f, target);
	/* written while the shell had the terminal: said on a line of its own */
	must_see(f, "ptbpf: snapshot 1 (stop): ", 60);
	type(f, "fg\n");
	assert_true(wait_stopped(target, 0, 60));
	assert_true(wait_events(f->out, "run", 1, 60));
	msleep(200);
	/* Ctrl-C reaches the command (no handler: it dies of SIGINT) */
	type(f, "\x03");
	must_see(f, "exit, by signal: exit status 130", 60);
	exit_status_is(f, "status=130");
	/* the command shares the terminal: never a status line */
	assert_null(strstr(f->buf, "\033[K"));
	assert_true(wait_events(f->out, "end", 1, 60));
	assert_int_equal(event_field(f->out, "exit", 0, "exit_signal"), SIGINT);
	assert_int_equal(event_field(f->out, "end", 0, "status"), 130);
	assert_int_equal(event_field(f->out, "end", 0, "exit_status"), 130);
}

/*
 * Every occurrence of @pat in what the terminal showed, after the command
 * line typed (its echo holds the command's text), starts a line.
 */
static void each_starts_a_line(struct fx *f, const char *pat)
{
	char *p = strchr(f->buf, '\n');

	assert_non_null(p);
	for (p = strstr(p, pat); p; p = strstr(p + 1, pat))
		if (p > f->buf && p[-1] != '\n')
			fail_msg("\"%s\" runs on from \"%.*s\"", pat,
				 (int)(p - f->buf < 60 ? p - f->buf : 60),
				 p - (p - f->buf < 60 ? p - f->buf : 60));
}

static int count_of(const char *buf, const char *pat)
{
	int n = 0;

	for (buf = strstr(buf, pat); buf; buf = strstr(buf + 1, pat))
		n++;
	return n;
}

/*
 * A command that writes to the terminal all the time: ptbpf's lines and
 * its lines never share a line (no status line: it would run into the
 * command's next line), and every snapshot has its line.
 */
static void test_chatty_command(void **state)
{
	struct fx *f = *state;
	char args[1024], done[700];
	pid_t target;
	int i;

	need_root();
	snprintf(done, sizeof(done), "%s/done", f->dir);
	snprintf(args, sizeof(args),
		 "-- sh -c 'i=0; while [ ! -e %s ]; do i=$((i+1)); echo chatty-$i; "
		 "sleep 0.01; done; exit 3'",
		 done);
	target = launch_args(f, args);
	must_see(f, "chatty-", 60);
	for (i = 1; i <= 2; i++) {
		msleep(200);
		assert_int_equal(kill(target, SIGSTOP), 0);
		assert_true(wait_events(f->out, "snapshot", i, 60));
		assert_int_equal(kill(target, SIGCONT), 0);
		assert_true(wait_events(f->out, "run", i, 60));
	}
	msleep(200);
	assert_int_equal(close(open(done, O_CREAT | O_WRONLY, 0600)), 0);
	must_see(f, "exit, by itself: exit status 3", 60);
	exit_status_is(f, "status=3");
	assert_null(strstr(f->buf, "\033[K"));
	each_starts_a_line(f, "chatty-");
	each_starts_a_line(f, "ptbpf: ");
	/* a line for every snapshot */
	assert_int_equal(count_of(f->buf, "ptbpf: snapshot "), count_events(f->out, "snapshot"));
	assert_true(count_events(f->out, "snapshot") >= 3);
}

/* ptbpf's own process in the shell's session (no front with --pid). */
static pid_t ptbpf_pid(struct fx *f)
{
	return front_pid(f);
}

/*
 * --pid at a terminal, the target writing elsewhere: the status line is
 * drawn; Ctrl-Z stops ptbpf as any foreground program (the prompt is
 * back); what the target did meanwhile is said on fg, with no snapshot
 * for it, and recording goes on; Ctrl-C ends the run, as asked: 0.
 */
static void test_pid_ctrl_z(void **state)
{
	struct fx *f = *state;
	char args[256], want[128], reason[32], tlog[700];
	char *targv[] = { PROGS "ticker", "1000000", "5", NULL };
	pid_t target, ptbpf;
	size_t mark;

	need_root();
	snprintf(tlog, sizeof(tlog), "%s/target.log", f->dir);
	target = spawn(targv, tlog);
	assert_true(target > 0);
	snprintf(args, sizeof(args), "--pid %d", target);
	launch_args(f, args);
	snprintf(want, sizeof(want), "ptbpf: pid %d running | 0 stops | 0 snapshots", target);
	must_see(f, want, 60);
	ptbpf = ptbpf_pid(f);
	assert_true(ptbpf > 0);
	type(f, "\x1a");
	must_see(f, "ptbpf: stopped (Ctrl-Z); fg or bg goes on recording", 10);
	must_see(f, "Stopped", 60);
	must_see(f, PROMPT, 60);
	assert_true(wait_stopped(ptbpf, 1, 60));
	msleep(300); /* ptbpf stays stopped */
	assert_true(wait_stopped(ptbpf, 1, 60));
	/* meanwhile the target stops and runs again */
	assert_int_equal(kill(target, SIGSTOP), 0);
	assert_true(wait_stopped(target, 1, 60));
	assert_int_equal(kill(target, SIGCONT), 0);
	assert_true(wait_stopped(target, 0, 60));
	assert_int_equal(count_events(f->out, "stop"), 0);
	type(f, "fg\n");
	must_see(f, "ptbpf: continued after ", 60);
	must_see(f, " stopped; meanwhile: 1 stop, 1 run (1 snapshot not taken: ptbpf was stopped)",
		 5);
	assert_true(wait_events(f->out, "suspended", 1, 60));
	assert_int_equal(event_field(f->out, "suspended", 0, "stops"), 1);
	assert_int_equal(event_field(f->out, "suspended", 0, "snapshots_missed"), 1);
	/* ptbpf's stop, not the time it took to stop */
	assert_true(event_field(f->out, "suspended", 0, "stopped_ns") >= 300000000LL);
	assert_int_equal(count_events(f->out, "snapshot"), 0);
	/* the status line is back */
	snprintf(want, sizeof(want), "ptbpf: pid %d running | 1 stop | 0 snapshots", target);
	must_see(f, want, 60);
	/* and recording goes on: the next stop has its snapshot */
	assert_int_equal(kill(target, SIGSTOP), 0);
	assert_true(wait_events(f->out, "snapshot", 1, 60));
	must_see(f, "| 2 stops | 1 snapshot,", 60);
	assert_int_equal(kill(target, SIGCONT), 0);
	assert_true(wait_events(f->out, "run", 2, 60));
	/* bg: it records in the background, the shell has the terminal */
	type(f, "\x1a");
	must_see(f, PROMPT, 60);
	assert_true(wait_stopped(ptbpf, 1, 60));
	mark = f->mark;
	type(f, "bg\n");
	must_see(f, "ptbpf: continued after ", 60);
	must_see(f, "meanwhile the target's state did not change", 60);
	/* the shell's prompt comes before or after that line */
	f->mark = mark;
	must_see(f, PROMPT, 60);
	assert_true(wait_stopped(ptbpf, 0, 60));
	/* a snapshot written meanwhile has a line of its own */
	assert_int_equal(kill(target, SIGSTOP), 0);
	assert_true(wait_events(f->out, "snapshot", 2, 60));
	must_see(f, "ptbpf: snapshot 2 (stop): ", 60);
	assert_int_equal(kill(target, SIGCONT), 0);
	/* fg: the status line is drawn again */
	type(f, "fg\n");
	must_see(f, "| 3 stops | 2 snapshots,", 60);
	type(f, "\x03");
	exit_status_is(f, "status=0");
	event_str(f->out, "end", 0, "reason", reason, sizeof(reason));
	assert_string_equal(reason, "signal");
	event_str(f->out, "end", 0, "ended", reason, sizeof(reason));
	assert_string_equal(reason, "as_asked");
	/* the target was never ptbpf's to end */
	assert_true(task_state(target, target) != 0);
	kill_wait(target);
}

/* --pid on a job of the same terminal: it writes there, so no status line. */
static void test_pid_same_terminal(void **state)
{
	struct fx *f = *state;
	char cmd[1024];

	need_root();
	f->shell = start_shell(f);
	assert_true(f->shell > 0);
	must_see(f, PROMPT, 60);
	snprintf(cmd, sizeof(cmd),
		 "sh -c 'while :; do echo bg-li\"\"ne; sleep 0.05; done' & %s -b sample -o %s "
		 "--duration 2s --pid $!; echo status=$?; kill %%1\n",
		 PTBPF_BIN, f->out);
	type(f, cmd);
	must_see(f, "status=0", 30);
	assert_null(strstr(f->buf, "\033[K"));
	/*
	 * (the command's text says bg-li""ne: bash's "Terminated" line for
	 * the job quotes it, in the middle of a line)
	 */
	each_starts_a_line(f, "bg-line");
	each_starts_a_line(f, "ptbpf: ");
}

/*
 * Exit statuses a script can tell apart: 0 for a run ended as asked
 * (--duration ends the command: not its 143), the command's own status,
 * 128+N for a signal ptbpf did not send.
 */
static void test_exit_statuses(void **state)
{
	static const struct {
		const char *args, *status, *ended;
	} runs[] = {
		{ "--duration 1s -- " PROGS "ticker 1000000 5", "status=0", "as_asked" },
		{ "-- sh -c 'exit 3'", "status=3", "by_itself" },
		{ "-- sh -c 'kill -SEGV $$'", "status=139", "by_signal" },
		{ "-- " PROGS "worker 100", "status=0", "by_itself" },
	};
	struct fx *f = *state;
	char cmd[1400], out[700], ended[32];
	unsigned int i;

	need_root();
	f->shell = start_shell(f);
	assert_true(f->shell > 0);
	must_see(f, PROMPT, 60);
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		snprintf(out, sizeof(out), "%s/run-%u", f->dir, i);
		snprintf(cmd, sizeof(cmd), "%s -q -b sample -o %s %s; echo status=$?\n", PTBPF_BIN,
			 out, runs[i].args);
		type(f, cmd);
		must_see(f, runs[i].status, 30);
		assert_true(wait_events(out, "end", 1, 60));
		event_str(out, "end", 0, "ended", ended, sizeof(ended));
		if (strcmp(ended, runs[i].ended))
			fail_msg("%s: ended %s, not %s", runs[i].args, ended, runs[i].ended);
		must_see(f, PROMPT, 60);
	}
}

static void test_bg_continues(void **state)
{
	struct fx *f = *state;
	pid_t target;

	need_root();
	target = launch(f, PROGS "ticker 1000000 5");
	suspend(f, target);
	type(f, "bg\n");
	assert_true(wait_stopped(target, 0, 60));
	assert_true(wait_events(f->out, "run", 1, 60));
	must_see(f, PROMPT, 60);
	type(f, "jobs\n");
	must_see(f, "Running", 60);
	/* back to the foreground, then a second Ctrl-Z is recorded too */
	type(f, "fg\n");
	msleep(300);
	type(f, "\x1a");
	must_see(f, "Stopped", 60);
	assert_true(wait_events(f->out, "stop", 2, 60));
	type(f, "fg\n");
	assert_true(wait_stopped(target, 0, 60));
	msleep(100);
	type(f, "\x03");
	exit_status_is(f, "status=130");
}

/*
 * Ctrl-C to a command that handles SIGINT: it prints its own message and
 * exits 0, and so does ptbpf, after the exit's snapshot.
 */
static void test_ctrl_c_handled(void **state)
{
	struct fx *f = *state;

	need_root();
	launch(f, PROGS "sigint");
	/* its own output may come before ptbpf's queued lines */
	f->mark = 0;
	must_see(f, "working", 60);
	msleep(300);
	type(f, "\x03");
	must_see(f, "Keyboard interrupt received, exiting.", 60);
	exit_status_is(f, "status=0");
	assert_int_equal(event_field(f->out, "exit", 0, "exit_code"), 0);
	assert_int_equal(event_field(f->out, "end", 0, "status"), 0);
	assert_true(count_events(f->out, "snapshot") >= 1);
	assert_int_equal(count_events(f->out, "stop"), 0);
}

/*
 * SIGINT sent to ptbpf itself (not the terminal's): passed on as before,
 * the command is asked to end (SIGTERM) after a last snapshot.
 */
static void test_sigint_to_ptbpf(void **state)
{
	struct fx *f = *state;
	char reason[32];
	pid_t front;

	need_root();
	launch(f, PROGS "ticker 1000000 5");
	msleep(300);
	front = front_pid(f);
	assert_true(front > 0);
	assert_int_equal(kill(front, SIGINT), 0);
	/* the run ended as asked: 0, whatever the command made of SIGTERM */
	exit_status_is(f, "status=0");
	event_str(f->out, "end", 0, "reason", reason, sizeof(reason));
	assert_string_equal(reason, "signal");
	assert_int_equal(event_field(f->out, "exit", 0, "exit_signal"), SIGTERM);
}

#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ctrl_z_fg_ctrl_c),  T(test_bg_continues),   T(test_ctrl_c_handled),
		T(test_sigint_to_ptbpf),   T(test_chatty_command), T(test_pid_ctrl_z),
		T(test_pid_same_terminal), T(test_exit_statuses),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
