// SPDX-License-Identifier: GPL-2.0
/* The event loop: see loop.h. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control.h"
#include "base/errbuf.h"
#include "output/eventlog.h"
#include "follow.h"
#include "target/jobctl.h"
#include "loop.h"
#include "base/say.h"
#include "base/status.h"
#include "target/target.h"
#include "watch/watch.h"
#include "base/clock.h"
#include "signals.h"

enum { TAG_RING = 1, TAG_PIDFD, TAG_SIGNAL, TAG_TIMER };

/* How often lines that a full disk held back are tried again */
#define LOG_RETRY_MS 200

static void signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR2);
	/* continued (fg, bg): the status line is drawn again */
	sigaddset(set, SIGCONT);
	/* ignored until loop_run() takes it (loop_args.suspend) */
	sigaddset(set, SIGTSTP);
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

int loop_setup_interrupted(char *err, size_t errlen)
{
	int sig = setup_signal;
	char name[16];

	if (!sig)
		return 0;
	if (strncmp(err, "interrupted", 11))
		return errbuf_set(err, errlen, sig,
				  "interrupted by %s during setup: nothing was traced",
				  signals_name(sig, name, sizeof(name)));
	return sig;
}

void loop_block_signals(void)
{
	sigset_t set;

	signal_set(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (setup_signal)
		raise(setup_signal); /* pending now: the signalfd has it */
}

int loop_setup_cancelled(void)
{
	static const int ends[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t pending;
	size_t i;

	if (setup_signal || sigpending(&pending))
		return setup_signal;
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		if (sigismember(&pending, ends[i]) == 1) {
			setup_signal = ends[i];
			break;
		}
	}
	return setup_signal;
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
	uint64_t seq;
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

	if (status_poll_ms() >= 0 && (ms < 0 || ms > status_poll_ms()))
		ms = status_poll_ms();
	/* --follow: forks past the limit send no event; looked at each second */
	if (a->follow && (ms < 0 || ms > 1000))
		ms = 1000;
	/* lines wait from a full disk: tried again, not only at the next event */
	if (eventlog_waiting(a->ctl->log.events) && (ms < 0 || ms > LOG_RETRY_MS))
		ms = LOG_RETRY_MS;
	return ms;
}

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void pidfd_signal(int fd, int sig)
{
	syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
}

/*
 * --follow with a command: the processes it forked are the command's too,
 * ended with it. Their pidfds into @p from @p[2] on; returns how many (one
 * already gone has none). Not our children: pidfds, not waitpid, and a
 * pid that is reused meanwhile is never signalled.
 */
static unsigned int open_others(const struct loop_args *a, struct pollfd **p)
{
	unsigned int n = a->follow ? follow_others(a->follow, NULL, 0) : 0, i, m = 0;
	pid_t *pids = n ? calloc(n, sizeof(*pids)) : NULL;
	struct pollfd *grown;

	if (!pids)
		return 0;
	grown = realloc(*p, (2 + n) * sizeof(**p));
	if (grown) {
		*p = grown;
		n = follow_others(a->follow, pids, n);
		for (i = 0; i < n; i++) {
			grown[2 + m].fd = pidfd_open_(pids[i]);
			grown[2 + m].events = POLLIN;
			m += grown[2 + m].fd >= 0;
		}
	}
	free(pids);
	return m;
}

/* Sends @sig to the processes of @p[2..2+@n) still there. */
static void signal_others(struct pollfd *p, unsigned int n, int sig)
{
	unsigned int i;

	for (i = 2; i < 2 + n; i++)
		if (p[i].fd >= 0)
			pidfd_signal(p[i].fd, sig);
}

/* Closes the pidfds of those that ended; returns how many are left. */
static unsigned int others_left(struct pollfd *p, unsigned int n, bool all)
{
	unsigned int i, left = 0;

	for (i = 2; i < 2 + n; i++) {
		if (p[i].fd >= 0 && (all || (p[i].revents & (POLLIN | POLLHUP | POLLERR)))) {
			close(p[i].fd);
			p[i].fd = -1;
		}
		left += p[i].fd >= 0;
	}
	return left;
}

/*
 * Ends a command we started, and with --follow the processes it forked:
 * SIGTERM, SIGCONT, then SIGKILL once the grace period is over or at a
 * second SIGINT/SIGTERM (the user wants out now). SIGUSR2 meanwhile still
 * takes its snapshot. Returns the command's status (@status when it was
 * reaped already: --follow, its forks outlive it).
 */
static int end_child(const struct loop_args *a, int sfd, int status)
{
	struct pollfd *p = calloc(2, sizeof(*p));
	uint64_t end = clock_now_ns() + (uint64_t)a->grace_ms * 1000000ULL, now;
	struct target *t = a->target;
	struct signalfd_siginfo si;
	bool kill_now = !p;
	unsigned int n = p ? open_others(a, &p) : 0, left = n;

	target_signal(t, SIGTERM);
	target_signal(t, SIGCONT);
	signal_others(p, n, SIGTERM);
	signal_others(p, n, SIGCONT);
	if (p) {
		p[0] = (struct pollfd){ .fd = t->child ? t->pidfd : -1, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	}
	while (!kill_now && (t->child || left) && (now = clock_now_ns()) < end) {
		int r = poll(p, 2 + n, (int)((end - now) / 1000000 + 1));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (p[0].fd >= 0 && (p[0].revents & POLLIN)) {
			status = target_reap(t);
			p[0].fd = -1;
		}
		left = others_left(p, n, false);
		if (!(p[1].revents & POLLIN) || read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR2)
			control_snapshot_now(a->ctl, SNAPCAUSE_REQUESTED);
		else if (si.ssi_signo == SIGTERM ||
			 (si.ssi_signo == SIGINT && !jobctl_terminal_signal(a->jc, si.ssi_code)))
			kill_now = true;
	}
	if (t->child) {
		target_signal(t, SIGKILL);
		status = target_reap(t);
	}
	signal_others(p, n, SIGKILL);
	others_left(p, n, true);
	free(p);
	return status;
}

/* Whether the command we started has ended (not reaped: still ours to). */
static bool child_gone(const struct target *t)
{
	siginfo_t si;

	if (!t->child)
		return false;
	memset(&si, 0, sizeof(si));
	return !waitid(P_PID, t->pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == t->pid;
}

/*
 * --follow without a command: the processes followed are not ptbpf's to
 * end. They are left running, no longer recorded (loop_say_left()).
 */
static void leave_others(const struct loop_args *a, struct loop_result *res)
{
	if (a->follow)
		res->nr_left = follow_others(a->follow, res->left, LOOP_LEFT_SHOWN);
}

void loop_say_left(const struct loop_result *res)
{
	char line[LOOP_LEFT_SHOWN * 12 + 128];
	unsigned int i;
	int len;

	if (!res->nr_left)
		return;
	len = snprintf(line, sizeof(line),
		       "ptbpf: %u followed process%s left running, no longer recorded:",
		       res->nr_left, res->nr_left == 1 ? "" : "es");
	for (i = 0;
	     i < res->nr_left && i < LOOP_LEFT_SHOWN && len > 0 && (size_t)len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %d", res->left[i]);
	if (res->nr_left > LOOP_LEFT_SHOWN && len > 0 && (size_t)len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, " ...");
	status_say(line);
}

/*
 * The run ends while the target lives (a signal, --duration,
 * --trigger-limit): the last events, then a snapshot of where it was; a
 * command we started is ended as on SIGINT, and with --follow what it
 * forked. Returns 1.
 */
static int end_run(const struct loop_args *a, int sfd, const char *reason, struct loop_result *res)
{
	/* no hit is wanted now: the drain then ends, whatever the target calls */
	watch_hitpoints_off(a->watch);
	drain(a);
	res->reason = reason;
	res->snapshot = true;
	/* a command we started (maybe gone already, its forks not) */
	if (a->target->child || a->target->name) {
		control_snapshot_now(a->ctl, SNAPCAUSE_END);
		res->snapshot = false;
		res->gone_first = child_gone(a->target);
		res->status = end_child(a, sfd, res->status);
		drain(a);
	} else {
		leave_others(a, res);
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

/*
 * Ctrl-Z without a command: ptbpf stops as any foreground program, its
 * last line and the status line's erase written first; continued, the
 * transitions that came meanwhile are applied (logged, no snapshot: the
 * buffers hold what came after) and one line says what they were.
 */
static void suspend(const struct loop_args *a)
{
	uint64_t stopped, continued;
	sigset_t tstp;

	drain(a);
	status_suspend();
	status_say("ptbpf: stopped (Ctrl-Z); fg or bg goes on recording (no snapshot meanwhile)");
	say_flush(500);
	stopped = clock_now_ns();
	/* SIG_DFL since loop_run(): taken now, it stops the whole process */
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	raise(SIGTSTP);
	pthread_sigmask(SIG_UNBLOCK, &tstp, NULL);
	pthread_sigmask(SIG_BLOCK, &tstp, NULL);
	continued = clock_now_ns();
	control_late_begin();
	drain(a);
	control_late_end(a->ctl, stopped, continued);
	status_redraw();
}

/* Returns 1 when the loop ends. */
static int on_signal(const struct loop_args *a, int sfd, struct loop_result *res)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	if (si.ssi_signo == SIGCONT) {
		status_redraw();
		return 0;
	}
	if (si.ssi_signo == SIGTSTP) {
		if (a->suspend)
			suspend(a);
		return 0;
	}
	/* the terminal's Ctrl-C went to the command too: its to act on */
	if (si.ssi_signo == SIGINT && jobctl_terminal_signal(a->jc, si.ssi_code))
		return 0;
	if (si.ssi_signo == SIGUSR2) {
		control_snapshot_now(a->ctl, SNAPCAUSE_REQUESTED);
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
	/* blocked since loop_block_signals(): the signalfd takes it */
	if (a->suspend)
		signal(SIGTSTP, SIG_DFL);
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
		eventlog_flush(a->ctl->log.events);
		/* a fork --follow had no room for: said, not dropped in silence */
		if (a->follow)
			control_follow_full(a->ctl, watch_follow_full(a->watch));
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
