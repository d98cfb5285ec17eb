// SPDX-License-Identifier: GPL-2.0
/* Launch mode at a terminal: see jobctl.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "jobctl.h"

/* The front's end: the recorder's, for the shell to see the same. */
static void __attribute__((noreturn)) front_exit(int status)
{
	sigset_t none;
	int sig;

	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	raise(sig);
	exit(128 + sig);
}

/*
 * The front: job-control signals keep their default action (it stops and
 * continues with the job); the terminating ones that a process sent go
 * to the recorder, the terminal's already reached it.
 */
static void __attribute__((noreturn)) front_main(pid_t rec)
{
	struct signalfd_siginfo si;
	struct pollfd p;
	sigset_t set;
	int status;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	p.fd = signalfd(-1, &set, SFD_CLOEXEC);
	p.events = POLLIN;
	for (;;) {
		if (waitpid(rec, &status, WNOHANG) == rec)
			front_exit(status);
		if (p.fd < 0 || poll(&p, 1, -1) < 0) {
			if (p.fd >= 0 && errno == EINTR)
				continue;
			break;
		}
		if (read(p.fd, &si, sizeof(si)) != sizeof(si) || si.ssi_signo == SIGCHLD ||
		    si.ssi_code == SI_KERNEL)
			continue;
		kill(rec, (int)si.ssi_signo);
	}
	while (waitpid(rec, &status, 0) < 0 && errno == EINTR)
		;
	front_exit(status);
}

int jobctl_split(struct jobctl *jc)
{
	pid_t front = getpid(), rec;

	jc->on = false;
	if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp())
		return 0;
	rec = fork();
	if (rec < 0)
		return -errno;
	if (rec > 0)
		front_main(rec);
	/* the front gone (SIGKILL): end the run as SIGTERM would */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != front)
		raise(SIGTERM);
	/* Ctrl-\ is the command's too: not a core dump of the recorder */
	signal(SIGQUIT, SIG_IGN);
	jc->on = true;
	return 0;
}

bool jobctl_terminal_signal(const struct jobctl *jc, int si_code)
{
	return jc && jc->on && si_code == SI_KERNEL;
}
