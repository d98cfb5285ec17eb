// SPDX-License-Identifier: GPL-2.0
/* How a run ended and ptbpf's exit status: see runend.h. */
#include <signal.h>
#include <string.h>

#include "runend.h"

enum runend_how runend_how(const struct run_end *e)
{
	/* a signal to ptbpf, --duration, --trigger-limit: ptbpf ended it */
	if (e->reason && strcmp(e->reason, "exit")) {
		if (!e->launched)
			return RUNEND_AS_ASKED;
		/*
		 * ptbpf sends SIGTERM, at worst SIGKILL: another signal, or
		 * any end before ptbpf's, was the command's own (a crash
		 * just as --trigger-limit was reached)
		 */
		if (e->killed_by > 0 &&
		    (e->gone_first || (e->killed_by != SIGTERM && e->killed_by != SIGKILL)))
			return RUNEND_BY_SIGNAL;
		if (e->gone_first && !e->killed_by && e->status > 0)
			return RUNEND_BY_ITSELF;
		return RUNEND_AS_ASKED;
	}
	if (e->launched && e->killed_by > 0)
		return RUNEND_BY_SIGNAL;
	return RUNEND_BY_ITSELF;
}

const char *runend_name(enum runend_how how)
{
	switch (how) {
	case RUNEND_AS_ASKED:
		return "as_asked";
	case RUNEND_BY_SIGNAL:
		return "by_signal";
	default:
		return "by_itself";
	}
}

int runend_exit_status(const struct run_end *e)
{
	switch (runend_how(e)) {
	case RUNEND_AS_ASKED:
		return 0;
	case RUNEND_BY_SIGNAL:
		return 128 + e->killed_by;
	default:
		/* without a command the target's status is its parent's */
		return e->launched && e->status > 0 ? e->status : 0;
	}
}
