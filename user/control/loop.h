/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event loop: the BPF ring buffer, the target's pidfd and ptbpf's own
 * signals (through a signalfd) in one epoll set.
 */
#ifndef PTBPF_LOOP_H
#define PTBPF_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct control;
struct watch;
struct target;
struct jobctl;
struct follow;

struct loop_args {
	struct control *ctl;
	struct watch *watch;
	struct target *target;
	struct jobctl *jc; /* job control relayed at a terminal; NULL: none */
	unsigned int grace_ms; /* a started command: SIGTERM to SIGKILL */
	/*
	 * --follow: the other processes' controls; the run then ends when
	 * the last of them is gone, not the target. NULL: none.
	 */
	struct follow *follow;
	/*
	 * --duration: when the run ends (CLOCK_MONOTONIC ns), as on SIGINT;
	 * 0: none.
	 */
	uint64_t end_ns;
	/*
	 * No command (--pid, --wait-for, --unit): SIGTSTP (Ctrl-Z) stops
	 * ptbpf as any foreground program; continued (fg, bg), it catches up
	 * with what the target did meanwhile and says it. With a command the
	 * terminal's Ctrl-Z is the command's (jobctl.h).
	 */
	bool suspend;
	/*
	 * Called between events at least every @periodic_ns (work of its
	 * own, e.g. the sample rate's re-check); NULL: none.
	 */
	void (*periodic)(void *ctx);
	void *periodic_ctx;
	uint64_t periodic_ns;
};

/* At most this many pids of those left running are named on stderr. */
#define LOOP_LEFT_SHOWN 32

struct loop_result {
	/*
	 * "exit" (the target is gone), "signal", "duration" (--duration) or
	 * "trigger_limit" (--trigger-limit)
	 */
	const char *reason;
	bool snapshot; /* the run ends on a signal: take a last snapshot */
	int status; /* a started command's shell-style status, else -1 */
	/* the run ended as asked: the command had ended before ptbpf's SIGTERM */
	bool gone_first;
	/* --follow without a command: processes left running at the end */
	unsigned int nr_left;
	pid_t left[LOOP_LEFT_SHOWN]; /* the first of them */
	char error[256];
};

/* One line names the processes left running (not with -q). */
void loop_say_left(const struct loop_result *res);

/*
 * For setup, before anything else: SIGINT, SIGTERM and SIGHUP stay
 * deliverable (a setup stuck in a system call, e.g. on a strange file, is
 * interrupted, not left holding BPF programs and perf events while
 * `timeout` waits); their handler only notes the signal. SIGUSR2 is held
 * for the loop. Terminal job control is ignored (a Ctrl-Z meant for the
 * target must not stop the recorder).
 */
void loop_setup_signals(void);

/*
 * The terminating signal that came during setup, or 0: a setup that waits
 * (--wait-for) looks between its waits, not only at EINTR.
 */
int loop_setup_signal(void);

/*
 * After a setup that failed: when a signal came during it, the step it cut
 * short failed of it (EINTR, or libbpf's EAGAIN), so @err then says that
 * the run was interrupted, and by which signal, instead of that step's
 * error ("interrupted while waiting for NAME" stays). Returns the signal,
 * for an exit status of 128 + it, or 0 when none came.
 */
int loop_setup_interrupted(char *err, size_t errlen);

/*
 * Blocks the signals the loop takes through its signalfd (SIGINT, SIGTERM,
 * SIGHUP, SIGUSR2, SIGCONT, SIGTSTP), once setup is done and before the
 * command is let go.
 * A terminating signal that came during setup is raised again: it stays
 * pending, for loop_setup_cancelled() and then the loop.
 */
void loop_block_signals(void);

/*
 * After loop_block_signals(), the last look before the run starts (its
 * "start" event, a command let go): whether a terminating signal (SIGINT,
 * SIGTERM, SIGHUP) came during setup, caught by the handler or pending
 * since the block. Such a run ends there, the command never run: the
 * signal is noted as one of setup, for loop_setup_interrupted(). Returns
 * the signal, or 0 when none came.
 */
int loop_setup_cancelled(void);

/*
 * Puts the control path (this thread) in SCHED_FIFO at the lowest real-time
 * priority: a resume otherwise waits for a time slice on a busy machine
 * (measured: median 2.4 ms instead of 0.15 ms with both cores loaded). With
 * SCHED_RESET_ON_FORK, so neither the writer thread nor the command inherit
 * it. Returns 0 or -errno (then the policy is unchanged; not fatal).
 */
int loop_set_realtime(void);

/*
 * Runs until the target (with --follow: every followed process) exits, a
 * terminating signal arrives, --duration is over or the control asks to
 * end (control.end_reason). With a
 * started command, a terminating signal is passed on as SIGTERM (and a
 * SIGCONT, a stopped process cannot act on it), then the loop waits for the
 * command to end: @a->grace_ms at most, or until a second SIGINT/SIGTERM,
 * then SIGKILL. Returns 0, or -errno with res->error filled.
 */
int loop_run(const struct loop_args *a, struct loop_result *res);

#endif /* PTBPF_LOOP_H */
