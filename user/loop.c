// SPDX-License-Identifier: GPL-2.0
/* The event loop: see loop.h. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "control.h"
#include "eventlog.h"
#include "jobctl.h"
#include "loop.h"
#include "status.h"
#include "target.h"
#include "watch.h"

enum { TAG_RING = 1, TAG_PIDFD, TAG_SIGNAL, TAG_TIMER };

/* How long a command gets to end after SIGTERM before SIGKILL. */
#define TERM_GRACE_MS 3000

static void signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR2);
}

void loop_block_signals(void)
{
	sigset_t set;

	signal_set(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

int loop_set_realtime(void)
{
	struct sched_param sp = { .sched_priority =
					  sched_get_priority_min(SCHED_FIFO) };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		return -errno;
	return 0;
}

static int add(int ep, int fd, int tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static void drain(const struct loop_args *a)
{
	watch_consume(a->watch);
	/* lost events may have hidden a transition: the BPF side's state rules */
	if (control_lost(a->ctl, watch_lost(a->watch)))
		control_resync(a->ctl, watch_state(a->watch));
}

/* Ends a command we started: SIGTERM, SIGCONT, then SIGKILL if it lingers. */
static int end_child(struct target *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

	kill(t->pid, SIGTERM);
	kill(t->pid, SIGCONT);
	if (poll(&p, 1, TERM_GRACE_MS) == 0)
		kill(t->pid, SIGKILL);
	return target_reap(t);
}

/* Returns 1 when the loop ends. */
static int on_signal(const struct loop_args *a, int sfd,
		     struct loop_result *res)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	/* the terminal's Ctrl-C went to the command too: its to act on */
	if (si.ssi_signo == SIGINT &&
	    jobctl_terminal_signal(a->jc, si.ssi_code))
		return 0;
	if (si.ssi_signo == SIGUSR2) {
		control_snapshot_now(a->ctl, "requested");
		return 0;
	}
	/* the last events before ending, then a snapshot of where it was */
	drain(a);
	res->reason = "signal";
	res->snapshot = true;
	if (a->target->child) {
		control_snapshot_now(a->ctl, "end");
		res->snapshot = false;
		res->status = end_child(a->target);
		drain(a);
	}
	return 1;
}

/* The timer follows the control's deadline for a folded stop's snapshot. */
static void arm(int tfd, const struct control *c)
{
	uint64_t when = control_deadline(c);
	struct itimerspec its = { 0 };

	if (when) {
		its.it_value.tv_sec = when / 1000000000ULL;
		its.it_value.tv_nsec = when % 1000000000ULL;
	}
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void on_timer(const struct loop_args *a, int tfd)
{
	uint64_t n;

	if (read(tfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	control_tick(a->ctl, now_ns());
}

int loop_run(const struct loop_args *a, struct loop_result *res)
{
	struct epoll_event evs[4];
	int ep, sfd, tfd, n, i, ret = 0, done = 0;
	sigset_t set;

	memset(res, 0, sizeof(*res));
	res->reason = "exit";
	res->status = -1;
	signal_set(&set);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	ep = epoll_create1(EPOLL_CLOEXEC);
	/* CLOCK_MONOTONIC: the clock of the events' ts */
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || ep < 0 || tfd < 0) {
		ret = -errno;
		goto out;
	}
	ret = add(ep, watch_fd(a->watch), TAG_RING);
	if (!ret)
		ret = add(ep, a->target->pidfd, TAG_PIDFD);
	if (!ret)
		ret = add(ep, sfd, TAG_SIGNAL);
	if (!ret)
		ret = add(ep, tfd, TAG_TIMER);
	if (ret)
		goto out;
	while (!done) {
		arm(tfd, a->ctl);
		status_flush();
		n = epoll_wait(ep, evs, 4, status_pending() ? 100 : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		for (i = 0; i < n && !done; i++) {
			switch (evs[i].data.u32) {
			case TAG_RING:
				drain(a);
				break;
			case TAG_PIDFD:
				/* the exit event went out before the pidfd fired */
				drain(a);
				if (a->target->child)
					res->status = target_reap(a->target);
				done = 1;
				break;
			case TAG_SIGNAL:
				done = on_signal(a, sfd, res);
				break;
			case TAG_TIMER:
				on_timer(a, tfd);
				break;
			}
		}
	}
out:
	if (ret)
		snprintf(res->error, sizeof(res->error),
			 "event loop failed: %s", strerror(-ret));
	if (ep >= 0)
		close(ep);
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	return ret;
}
