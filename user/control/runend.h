/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a run ended, and what ptbpf's exit status says of it, for scripts:
 *
 *   0      the run ended as asked: --duration, --trigger-limit, SIGINT,
 *          SIGTERM or SIGHUP to ptbpf (a launched command is then ended by
 *          ptbpf: its SIGTERM, at worst SIGKILL after --grace, is not the
 *          command's failure, unless it had ended already, or died of
 *          another signal: then N or 128+N below), the command's own exit
 *          0; without a command
 *          (--pid, --wait-for, --unit) also the target's end, whatever it
 *          was (its status is its parent's; the exit event has it)
 *   N      the command ended by itself with exit status N
 *   128+N  the command was killed by signal N, one ptbpf did not send
 *          (Ctrl-C at a terminal: 130)
 *
 * The `end` event says which ("ended") and the status ("exit_status").
 */
#ifndef PTBPF_RUNEND_H
#define PTBPF_RUNEND_H

#include <stdbool.h>

enum runend_how {
	RUNEND_AS_ASKED, /* ptbpf ended the run: a signal to it, a limit */
	RUNEND_BY_ITSELF, /* the target (the command) exited */
	RUNEND_BY_SIGNAL, /* the command was killed by a signal not ptbpf's */
};

struct run_end {
	const char *reason; /* loop_result.reason: "exit" when the target ended */
	bool launched; /* -- COMMAND */
	int status; /* the command's status as a shell says it; -1: none */
	int killed_by; /* the signal the command died of; 0: it exited */
	/* ptbpf ended the run: the command had ended before its SIGTERM */
	bool gone_first;
};

enum runend_how runend_how(const struct run_end *e);

/* "as_asked", "by_itself" or "by_signal": the end event's "ended". */
const char *runend_name(enum runend_how how);

/* ptbpf's exit status for a run that started (see the table above). */
int runend_exit_status(const struct run_end *e);

#endif /* PTBPF_RUNEND_H */
