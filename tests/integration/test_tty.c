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

static pid_t launch(struct fx *f, const char *prog)
{
	char cmd[1200];
	pid_t target;

	f->shell = start_shell(f);
	assert_true(f->shell > 0);
	must_see(f, PROMPT, 10);
	snprintf(cmd, sizeof(cmd), "%s -b sample -o %s -- %s\n", PTBPF_BIN, f->out, prog);
	type(f, cmd);
	if (!wait_events(f->out, "start", 1, 15))
		fail_msg("ptbpf did not start; the terminal shows:\n%s", f->buf);
	target = (pid_t)event_field(f->out, "start", 0, "pid");
	assert_true(target > 0);
	must_see(f, "start ", 10);
	return target;
}

/* Ctrl-Z: the prompt is back with the command stopped, and ptbpf records. */
static pid_t suspend(struct fx *f, pid_t target)
{
	char sig[32];
	pid_t front;

	msleep(300); /* let it run: the stop's snapshot has bytes */
	type(f, "\x1a");
	must_see(f, "Stopped", 10);
	must_see(f, PROMPT, 10);
	assert_true(wait_stopped(target, 1, 5));
	assert_true(wait_events(f->out, "stop", 1, 5));
	event_str(f->out, "stop", 0, "signal", sig, sizeof(sig));
	assert_string_equal(sig, "SIGTSTP");
	event_str(f->out, "stop", 0, "kind", sig, sizeof(sig));
	assert_string_equal(sig, "group_stop");
	/* the recording part kept running: the stop's snapshot is written */
	assert_true(wait_events(f->out, "snapshot", 1, 10));
	front = front_pid(f);
	assert_true(front > 0);
	assert_int_equal(proc_state(front), 'T');
	return front;
}

static void exit_status_is(struct fx *f, const char *want)
{
	must_see(f, PROMPT, 20);
	type(f, "echo status=$?\n");
	must_see(f, want, 10);
}

static void test_ctrl_z_fg_ctrl_c(void **state)
{
	struct fx *f = *state;
	pid_t target;

	need_root();
	target = launch(f, PROGS "ticker 1000000 5");
	suspend(f, target);
	type(f, "fg\n");
	assert_true(wait_stopped(target, 0, 5));
	assert_true(wait_events(f->out, "run", 1, 5));
	/* the status line says where the run stands */
	must_see(f, " running | 1 stop | 1 snapshot, ", 5);
	msleep(200);
	/* Ctrl-C reaches the command (no handler: it dies of SIGINT) */
	type(f, "\x03");
	/* the status line is erased in place for the line that follows */
	must_see(f, "\r\033[Kptbpf: ", 10);
	/* and at the end one plain line sums it up */
	must_see(f, "ptbpf: 1 stop, 2 snapshots written (", 10);
	exit_status_is(f, "status=130");
	assert_true(wait_events(f->out, "end", 1, 5));
	assert_int_equal(event_field(f->out, "exit", 0, "exit_signal"), SIGINT);
	assert_int_equal(event_field(f->out, "end", 0, "status"), 130);
}

static void test_bg_continues(void **state)
{
	struct fx *f = *state;
	pid_t target;

	need_root();
	target = launch(f, PROGS "ticker 1000000 5");
	suspend(f, target);
	type(f, "bg\n");
	assert_true(wait_stopped(target, 0, 5));
	assert_true(wait_events(f->out, "run", 1, 5));
	must_see(f, PROMPT, 10);
	type(f, "jobs\n");
	must_see(f, "Running", 5);
	/* back to the foreground, then a second Ctrl-Z is recorded too */
	type(f, "fg\n");
	msleep(300);
	type(f, "\x1a");
	must_see(f, "Stopped", 10);
	assert_true(wait_events(f->out, "stop", 2, 5));
	type(f, "fg\n");
	assert_true(wait_stopped(target, 0, 5));
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
	must_see(f, "working", 10);
	msleep(300);
	type(f, "\x03");
	must_see(f, "Keyboard interrupt received, exiting.", 10);
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
	exit_status_is(f, "status=143");
	event_str(f->out, "end", 0, "reason", reason, sizeof(reason));
	assert_string_equal(reason, "signal");
	assert_int_equal(event_field(f->out, "exit", 0, "exit_signal"), SIGTERM);
}

#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ctrl_z_fg_ctrl_c),
		T(test_bg_continues),
		T(test_ctrl_c_handled),
		T(test_sigint_to_ptbpf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
