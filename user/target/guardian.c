// SPDX-License-Identifier: GPL-2.0
/* The guardian of what ptbpf holds: see guardian.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guardian.h"

/* One message, written whole: a pipe write of PIPE_BUF bytes is atomic. */
struct msg {
	int op;
	pid_t pid;
	char path[PIPE_BUF - 2 * sizeof(int)];
};

enum { OP_HOLD = 1, OP_RELEASE, OP_LEAF, OP_LEAF_GONE, OP_DONE };

void guardian_init(struct guardian *g)
{
	g->fd = -1;
	g->pid = 0;
}

static void nap_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Writes @pid in decimal to @fd, as cgroup.procs takes it. */
static void write_pid(int fd, long pid)
{
	char num[24];
	int n = sizeof(num);

	num[--n] = '\n';
	do
		num[--n] = (char)('0' + pid % 10);
	while ((pid /= 10) && n > 0);
	if (write(fd, num + n, sizeof(num) - n) < 0)
		return; /* gone meanwhile */
}

/* Moves every process of cgroup @path to its parent. */
static void empty_leaf(const char *path)
{
	char file[PIPE_BUF + 32], buf[4096];
	size_t len = strlen(path);
	const char *slash = strrchr(path, '/');
	int in, out;
	long pid = 0;
	ssize_t n, i;
	bool digits = false;

	if (!slash || len + 16 > sizeof(file))
		return;
	memcpy(file, path, len);
	memcpy(file + len, "/cgroup.procs", 14);
	in = open(file, O_RDONLY | O_CLOEXEC);
	memcpy(file, path, (size_t)(slash - path));
	memcpy(file + (slash - path), "/cgroup.procs", 14);
	out = open(file, O_WRONLY | O_CLOEXEC);
	if (in >= 0 && out >= 0)
		while ((n = read(in, buf, sizeof(buf))) > 0)
			for (i = 0; i < n; i++) {
				if (buf[i] >= '0' && buf[i] <= '9') {
					pid = pid * 10 + (buf[i] - '0');
					digits = true;
				} else if (digits) {
					write_pid(out, pid);
					pid = 0;
					digits = false;
				}
			}
	if (digits && out >= 0)
		write_pid(out, pid);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

int guardian_remove_leaf(const char *path, unsigned int wait_ms)
{
	unsigned int waited = 0;

	for (;;) {
		empty_leaf(path);
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		/* EBUSY: a process forked into it meanwhile */
		if (errno != EBUSY || waited >= wait_ms)
			return -errno;
		nap_ms(10);
		waited += 10;
	}
}

/* The guardian itself: what ptbpf holds, until its end of the pipe closes. */
static void __attribute__((noreturn)) guard(int in)
{
	static struct msg m, leaf;
	int held = -1, null;
	ssize_t n;

	setpgid(0, 0);
	prctl(PR_SET_NAME, "ptbpf-guardian");
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (in != 3) {
		dup2(in, 3);
		in = 3;
	}
	/* none of ptbpf's descriptors: its BPF objects, perf events, lock */
	syscall(SYS_close_range, 4, ~0U, 0);
	leaf.path[0] = '\0';
	for (;;) {
		n = read(in, &m, sizeof(m));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(m))
			break; /* EOF: ptbpf is gone, however it ended */
		switch (m.op) {
		case OP_HOLD:
			if (held >= 0)
				close(held);
			/* a pidfd: the pid may be reused once it is let go */
			held = (int)syscall(SYS_pidfd_open, m.pid, 0);
			break;
		case OP_RELEASE:
			if (held >= 0)
				close(held);
			held = -1;
			break;
		case OP_LEAF:
			leaf = m;
			break;
		case OP_LEAF_GONE:
			leaf.path[0] = '\0';
			break;
		case OP_DONE:
			_exit(0);
		}
	}
	if (held >= 0)
		syscall(SYS_pidfd_send_signal, held, SIGCONT, NULL, 0);
	if (leaf.path[0])
		guardian_remove_leaf(leaf.path, 2000);
	_exit(0);
}

int guardian_start(struct guardian *g)
{
	static const int ends[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGUSR2, SIGPIPE };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t none;
	int p[2], ret;
	unsigned int i;
	pid_t pid;

	if (g->fd >= 0)
		return 0;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(p[0]);
		close(p[1]);
		return ret;
	}
	if (pid == 0) {
		/* only system calls from here: a threaded parent forked us */
		for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
			sigaction(ends[i], &ign, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(p[1]);
		guard(p[0]);
	}
	close(p[0]);
	g->fd = p[1];
	g->pid = pid;
	return 0;
}

static int send_msg(struct guardian *g, int op, pid_t pid, const char *path)
{
	struct msg m;
	ssize_t n;

	if (g->fd < 0)
		return 0;
	memset(&m, 0, sizeof(m));
	m.op = op;
	m.pid = pid;
	if (path) {
		if (strlen(path) >= sizeof(m.path))
			return -ENAMETOOLONG;
		strcpy(m.path, path);
	}
	do
		n = write(g->fd, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(m) ? 0 : n < 0 ? -errno : -EIO;
}

int guardian_hold(struct guardian *g, pid_t pid)
{
	return send_msg(g, OP_HOLD, pid, NULL);
}

int guardian_release(struct guardian *g)
{
	return send_msg(g, OP_RELEASE, 0, NULL);
}

int guardian_leaf(struct guardian *g, const char *path)
{
	return send_msg(g, OP_LEAF, 0, path);
}

int guardian_leaf_gone(struct guardian *g)
{
	return send_msg(g, OP_LEAF_GONE, 0, NULL);
}

void guardian_stop(struct guardian *g)
{
	if (g->fd < 0)
		return;
	send_msg(g, OP_DONE, 0, NULL);
	close(g->fd);
	g->fd = -1;
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	g->pid = 0;
}
