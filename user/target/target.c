// SPDX-License-Identifier: GPL-2.0
/* The traced process: see target.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "base/smallfile.h"
#include "target.h"

#define PF_KTHREAD 0x00200000 /* include/linux/sched.h */

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

void target_init(struct target *t)
{
	memset(t, 0, sizeof(*t));
	t->pidfd = t->go_fd = t->err_fd = -1;
}

int target_read_stat(const char *path, struct target_stat *st)
{
	char buf[1024], *p;
	int n;

	n = smallfile_read(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (!n)
		return -ESRCH;
	p = strrchr(buf, ')');
	/* ") S ppid pgrp session tty_nr tpgid flags" */
	if (!p ||
	    sscanf(p + 1, " %c %d %*d %*d %*d %*d %lu", &st->state, &st->ppid, &st->flags) != 3)
		return -EINVAL;
	return 0;
}

/* State and flags of process (or thread) @pid. */
static int read_stat(const char *proc, pid_t pid, char *state, unsigned long *flags)
{
	struct target_stat st;
	char path[64];
	int ret;

	snprintf(path, sizeof(path), "%s/%d/stat", proc, pid);
	ret = target_read_stat(path, &st);
	if (ret)
		return ret;
	*state = st.state;
	*flags = st.flags;
	return 0;
}

static pid_t read_tgid(const char *proc, pid_t pid)
{
	char path[64], line[256];
	pid_t tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc, pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/*
 * True when a thread of @pid other than the leader has not exited: a
 * leader that called pthread_exit() is a zombie ('Z') while the process
 * lives on in its other threads.
 */
static bool other_threads_live(const char *proc, pid_t pid)
{
	unsigned long flags;
	struct dirent *de;
	char path[64], state;
	bool live = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/task", proc, pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!live && (de = readdir(d))) {
		pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);

		if (tid <= 0 || tid == pid)
			continue;
		/* /proc/TID/stat: a thread's own, though not listed */
		if (read_stat(proc, tid, &state, &flags) == 0)
			live = state != 'Z' && state != 'X';
	}
	closedir(d);
	return live;
}

static int check_pid(pid_t pid, const char *proc, char *err, size_t errlen)
{
	unsigned long flags;
	char state;
	pid_t tgid;
	int ret;

	if (pid == getpid())
		return errbuf_set(err, errlen, -EPERM, "pid %d is ptbpf itself", pid);
	ret = read_stat(proc, pid, &state, &flags);
	if (ret)
		return errbuf_set(err, errlen, -ESRCH, "no such process: %d", pid);
	if (flags & PF_KTHREAD)
		return errbuf_set(err, errlen, -EPERM,
				  "pid %d is a kernel thread: ptbpf traces user-space processes",
				  pid);
	if ((state == 'Z' || state == 'X') && !other_threads_live(proc, pid))
		return errbuf_set(err, errlen, -ESRCH, "process %d has already exited", pid);
	tgid = read_tgid(proc, pid);
	if (tgid > 0 && tgid != pid)
		return errbuf_set(err, errlen, -EINVAL,
				  "%d is a thread of process %d: give the process id (--pid %d)",
				  pid, tgid, tgid);
	return 0;
}

int target_attach(struct target *t, pid_t pid, const char *proc, char *err, size_t errlen)
{
	int ret;

	target_init(t);
	if (pid <= 0)
		return errbuf_set(err, errlen, -EINVAL, "invalid pid %d", pid);
	ret = check_pid(pid, proc, err, errlen);
	if (ret)
		return ret;
	t->pidfd = pidfd_open_(pid);
	if (t->pidfd < 0) {
		ret = -errno;
		return errbuf_set(err, errlen, ret, "can't open pidfd for %d: %s", pid,
				  strerror(-ret));
	}
	/* the pid may have been reused between the check and the pidfd */
	ret = check_pid(pid, proc, err, errlen);
	if (ret) {
		close(t->pidfd);
		t->pidfd = -1;
		return ret;
	}
	t->pid = pid;
	return 0;
}

char target_thread_state(const char *proc, pid_t pid, const char *tid)
{
	struct target_stat st;
	char path[96];

	snprintf(path, sizeof(path), "%s/%d/task/%s/stat", proc, pid, tid);
	return target_read_stat(path, &st) ? 0 : st.state;
}

/* include/linux/sched.h: set by do_exit() before its sched_process_exit */
#define TARGET_PF_EXITING 0x00000004UL

bool target_thread_exiting(const char *proc, pid_t pid, const char *tid)
{
	struct target_stat st;
	char path[96];

	snprintf(path, sizeof(path), "%s/%d/task/%s/stat", proc, pid, tid);
	if (target_read_stat(path, &st))
		return true;
	return st.state == 'Z' || st.state == 'X' || (st.flags & TARGET_PF_EXITING);
}

static bool thread_live(const char *proc, pid_t pid, const char *tid)
{
	char st = target_thread_state(proc, pid, tid);

	return st && st != 'Z' && st != 'X';
}

int target_threads(const char *proc, pid_t pid, pid_t **tids)
{
	unsigned int n = 0, cap = 16;
	char path[64];
	struct dirent *de;
	pid_t *v;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/task", proc, pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	v = malloc(cap * sizeof(*v));
	while (v && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    !thread_live(proc, pid, de->d_name))
			continue;
		if (n == cap) {
			pid_t *p = realloc(v, 2 * cap * sizeof(*v));

			if (!p) {
				free(v);
				v = NULL;
				break;
			}
			v = p;
			cap *= 2;
		}
		v[n++] = (pid_t)strtol(de->d_name, NULL, 10);
	}
	closedir(d);
	if (!v)
		return -ENOMEM;
	*tids = v;
	return (int)n;
}

void target_invoking_user(int *uid, int *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	char *end;
	long v;

	*uid = *gid = -1;
	if (geteuid() != 0 || !u || !g)
		return;
	errno = 0;
	v = strtol(u, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return;
	*uid = (int)v;
	v = strtol(g, &end, 10);
	if (errno || *end || v < 0 || v > INT_MAX) {
		*uid = -1;
		return;
	}
	*gid = (int)v;
}

static int drop_to(int uid, int gid)
{
	struct passwd *pw;

	if (uid == -1)
		return 0;
	pw = getpwuid(uid);
	if (pw ? initgroups(pw->pw_name, gid) : setgroups(0, NULL))
		return -1;
	if (setgid(gid) || setuid(uid))
		return -1;
	return 0;
}

/* In the child: wait for the go byte, then become the command. */
static void __attribute__((noreturn))
child_main(char **argv, int go_rd, int err_wr, int uid, int gid)
{
	sigset_t none;
	char c;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* ptbpf ignores the job-control signals; the command must not */
	signal(SIGTSTP, SIG_DFL);
	signal(SIGTTIN, SIG_DFL);
	signal(SIGTTOU, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* ptbpf's setup handlers note a signal for ptbpf, not for us */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (read(go_rd, &c, 1) != 1)
		_exit(127); /* ptbpf went away before letting us go */
	close(go_rd);
	if (drop_to(uid, gid) == 0)
		execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int target_spawn(struct target *t, char **argv, int uid, int gid, char *err, size_t errlen)
{
	int go[2], ep[2], ret;
	pid_t pid;

	target_init(t);
	if (!argv || !argv[0])
		return -EINVAL;
	if (pipe2(go, O_CLOEXEC))
		goto fail_errno;
	if (pipe2(ep, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		goto fail_errno;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(go[0]), close(go[1]), close(ep[0]), close(ep[1]);
		return errbuf_set(err, errlen, ret, "can't start '%s': %s", argv[0],
				  strerror(-ret));
	}
	if (pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_main(argv, go[0], ep[1], uid, gid);
	}
	close(go[0]);
	close(ep[1]);
	t->pid = pid;
	t->child = true;
	t->name = argv[0];
	t->go_fd = go[1];
	t->err_fd = ep[0];
	t->pidfd = pidfd_open_(pid);
	if (t->pidfd < 0) {
		ret = -errno;
		target_abort(t);
		return errbuf_set(err, errlen, ret, "can't open pidfd for %d: %s", pid,
				  strerror(-ret));
	}
	return 0;

fail_errno:
	ret = -errno;
	return errbuf_set(err, errlen, ret, "can't start '%s': %s", argv[0], strerror(-ret));
}

int target_release(struct target *t, char *err, size_t errlen)
{
	ssize_t n;
	int e = 0;

	if (t->go_fd < 0)
		return -EINVAL;
	n = write(t->go_fd, "g", 1);
	close(t->go_fd);
	t->go_fd = -1;
	if (n != 1)
		return errbuf_set(err, errlen, -ESRCH, "can't start the command: it went away");
	/* EOF: exec closed the CLOEXEC pipe; else the child sent errno */
	n = read(t->err_fd, &e, sizeof(e));
	close(t->err_fd);
	t->err_fd = -1;
	if (n == sizeof(e) && e)
		return errbuf_set(err, errlen, -e, "can't run %s: %s",
				  t->name ? t->name : "the command", strerror(e));
	return 0;
}

int target_reap(struct target *t)
{
	siginfo_t si;

	if (!t->child)
		return -EINVAL;
	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, t->pid, &si, WEXITED) < 0)
		if (errno != EINTR)
			return -errno;
	t->child = false;
	t->killed_by = si.si_code == CLD_EXITED ? 0 : si.si_status;
	if (si.si_code == CLD_EXITED)
		return si.si_status;
	return 128 + si.si_status;
}

int target_signal(const struct target *t, int sig)
{
	if (!t->child || t->pid <= 0)
		return -ECHILD;
	return kill(t->pid, sig) ? -errno : 0;
}

void target_abort(struct target *t)
{
	if (t->child) {
		target_signal(t, SIGKILL);
		target_reap(t);
	}
	target_close(t);
}

void target_close(struct target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	t->pidfd = t->go_fd = t->err_fd = -1;
}
