// SPDX-License-Identifier: GPL-2.0
/* The event loop: see loop.h. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "control.h"
#include "eventlog.h"
#include "follow.h"
#include "jobctl.h"
#include "loop.h"
#include "status.h"
#include "target.h"
#include "watch.h"
#include "clock.h"

enum { TAG_RING = 1, TAG_PIDFD, TAG_SIGNAL, TAG_TIMER };

static void signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR2);
}

static volatile sig_atomic_t setup_signal;

static void on_setup_signal(int sig)
{
	setup_signal = sig;
}

void loop_setup_signals(void)
{
	/* no SA_RESTART: a call that would wait forever returns EINTR */
	struct sigaction sa = { .sa_handler = on_setup_signal };
	sigset_t usr2;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

int loop_setup_signal(void)
{
	return setup_signal;
}

void loop_block_signals(void)
{
	sigset_t set;

	signal_set(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (setup_signal)
		raise(setup_signal); /* pending now: the signalfd has it */
}

int loop_set_realtime(void)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_min(SCHED_FIFO) };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		return -errno;
	return 0;
}

static int add(int ep, int fd, int tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static void resync(const struct loop_args *a)
{
	unsigned long long seq;
	int state = watch_state(a->watch, &seq);

	control_resync(a->ctl, state, seq);
}

static void drain(const struct loop_args *a)
{
	watch_consume(a->watch);
	/* lost events may have hidden a transition: the BPF side's state rules */
	if (control_lost(a->ctl, watch_lost(a->watch))) {
		resync(a);
		if (a->follow)
			follow_resync(a->follow);
	}
}

/* --follow: the run goes on while a followed process lives. */
static bool all_gone(const struct loop_args *a)
{
	return a->follow && !follow_live(a->follow);
}

/*
 * Timed work, between events: a gap in the transitions' order that lasted
 * too long is given up (the BPF side's state rules), and a fatal pause the
 * target did not die of ends. Returns the epoll timeout, in ms (-1: none).
 */
static int timers(const struct loop_args *a)
{
	uint64_t now = clock_now_ns(), gap, fatal, next = 0;

	gap = control_gap_deadline(a->ctl);
	if (gap && now >= gap) {
		resync(a);
		gap = 0;
	}
	fatal = control_fatal_check(a->ctl, watch_dying(a->watch), watch_state(a->watch, NULL),
				    now);
	next = gap && (!fatal || gap < fatal) ? gap : fatal;
	if (a->follow) {
		uint64_t more = follow_timers(a->follow, now);

		next = more && (!next || more < next) ? more : next;
	}
	if (!next)
		return -1;
	return next > now ? (int)((next - now) / 1000000 + 1) : 0;
}

/* The epoll timeout: the control's timers, and a held status line redraw. */
static int wait_ms(const struct loop_args *a)
{
	int ms = timers(a);
	uint64_t now = clock_now_ns();

	if (a->end_ns) {
		int end = a->end_ns > now ? (int)((a->end_ns - now) / 1000000 + 1) : 0;

		if (ms < 0 || end < ms)
			ms = end;
	}

	if (status_pending() && (ms < 0 || ms > 100))
		ms = 100;
	return ms;
}

/*
 * Ends a command we started: SIGTERM, SIGCONT, then SIGKILL once the grace
 * period is over or at a second SIGINT/SIGTERM (the user wants out now).
 * SIGUSR2 meanwhile still takes its snapshot.
 */
static int end_child(const struct loop_args *a, int sfd)
{
	struct pollfd p[2] = { { .fd = a->target->pidfd, .events = POLLIN },
			       { .fd = sfd, .events = POLLIN } };
	uint64_t end = clock_now_ns() + (uint64_t)a->grace_ms * 1000000ULL, now;
	struct target *t = a->target;
	struct signalfd_siginfo si;
	bool kill_now = false;

	target_signal(t, SIGTERM);
	target_signal(t, SIGCONT);
	while (!kill_now && (now = clock_now_ns()) < end) {
		int n = poll(p, 2, (int)((end - now) / 1000000 + 1));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (p[0].revents & POLLIN))
			return target_reap(t);
		if (!(p[1].revents & POLLIN) || read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR2)
			control_snapshot_now(a->ctl, "requested");
		else if (si.ssi_signo == SIGTERM ||
			 (si.ssi_signo == SIGINT && !jobctl_terminal_signal(a->jc, si.ssi_code)))
			kill_now = true;
	}
	target_signal(t, SIGKILL);
	return target_reap(t);
}

/*
 * The run ends while the target lives (a signal, --duration,
 * --trigger-limit): the last events, then a snapshot of where it was; a
 * command we started is ended as on SIGINT. Returns 1.
 */
static int end_run(const struct loop_args *a, int sfd, const char *reason, struct loop_result *res)
{
	drain(a);
	res->reason = reason;
	res->snapshot = true;
	if (a->target->child) {
		control_snapshot_now(a->ctl, "end");
		res->snapshot = false;
		res->status = end_child(a, sfd);
		drain(a);
	}
	return 1;
}

/* Whether the run is over by --duration or the control's word. */
static int should_end(const struct loop_args *a, int sfd, struct loop_result *res)
{
	const char *why = control_end_reason(a->ctl);

	if (why)
		return end_run(a, sfd, why, res);
	if (a->end_ns && clock_now_ns() >= a->end_ns)
		return end_run(a, sfd, "duration", res);
	return 0;
}

/* Returns 1 when the loop ends. */
static int on_signal(const struct loop_args *a, int sfd, struct loop_result *res)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	/* the terminal's Ctrl-C went to the command too: its to act on */
	if (si.ssi_signo == SIGINT && jobctl_terminal_signal(a->jc, si.ssi_code))
		return 0;
	if (si.ssi_signo == SIGUSR2) {
		control_snapshot_now(a->ctl, "requested");
		return 0;
	}
	/* the last events before ending, then a snapshot of where it was */
	return end_run(a, sfd, "signal", res);
}

/* The timer follows the control's deadline for a folded stop's snapshot. */
static void arm(int tfd, const struct loop_args *a)
{
	uint64_t when = control_deadline(a->ctl), more;
	struct itimerspec its = { 0 };

	more = a->follow ? follow_deadline(a->follow) : 0;
	if (more && (!when || more < when))
		when = more;
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
	control_tick(a->ctl, clock_now_ns());
	if (a->follow)
		follow_tick(a->follow, clock_now_ns());
}

/*
 * --follow: the target is gone, its followed processes may not be. Its
 * pidfd stays readable: out of the set. Returns 1 when nothing is left.
 */
static int root_exited(const struct loop_args *a, int ep)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, a->target->pidfd, NULL);
	follow_root_gone(a->follow);
	return all_gone(a);
}

int loop_run(const struct loop_args *a, struct loop_result *res)
{
	struct epoll_event evs[4];
	int ep, sfd, tfd, n, i, ret = 0, done = 0;
	bool root_gone = false;
	uint64_t next_periodic;
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
	next_periodic = a->periodic ? clock_now_ns() + a->periodic_ns : 0;
	while (!done) {
		int ms = wait_ms(a);

		if (next_periodic) {
			uint64_t now = clock_now_ns();
			int until = next_periodic > now ?
					    (int)((next_periodic - now) / 1000000 + 1) :
					    0;

			if (!until) {
				a->periodic(a->periodic_ctx);
				next_periodic = now + a->periodic_ns;
				until = (int)(a->periodic_ns / 1000000 + 1);
			}
			if (ms < 0 || until < ms)
				ms = until;
		}
		arm(tfd, a);
		status_flush();
		n = epoll_wait(ep, evs, 4, ms);
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
				root_gone = true;
				if (!a->follow)
					done = 1;
				else
					done = root_exited(a, ep);
				break;
			case TAG_SIGNAL:
				done = on_signal(a, sfd, res);
				break;
			case TAG_TIMER:
				on_timer(a, tfd);
				break;
			}
		}
		/* --follow: the last followed process's exit ends the run */
		if (root_gone && all_gone(a))
			done = 1;
		if (!done)
			done = should_end(a, sfd, res);
	}
out:
	if (ret)
		snprintf(res->error, sizeof(res->error), "event loop failed: %s", strerror(-ret));
	if (ep >= 0)
		close(ep);
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	return ret;
}
