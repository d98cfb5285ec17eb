// SPDX-License-Identifier: GPL-2.0
/* Signal and si_code names: see signals.h. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "signals.h"

const char *signals_name(int sig, char *buf, size_t len)
{
	const char *abbrev;

	if (sig <= 0)
		return NULL;
	abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "SIG%d", sig);
	return buf;
}

int signals_number(const char *name)
{
	const char *abbrev;
	int sig;

	if (!name)
		return 0;
	if (!strncmp(name, "SIG", 3))
		name += 3;
	for (sig = 1; sig < 65; sig++) {
		abbrev = sigabbrev_np(sig);
		if (abbrev && !strcmp(abbrev, name))
			return sig;
	}
	return 0;
}

/* include/uapi/asm-generic/siginfo.h: codes > 0 depend on the signal */
const char *signals_code_name(int sig, int code)
{
	static const char *const segv[] = { NULL, "SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR",
					    "SEGV_PKUERR" };
	static const char *const bus[] = { NULL, "BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR" };
	static const char *const trap[] = { NULL, "TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH",
					    "TRAP_HWBKPT" };

	switch (code) {
	case 0:
		return "SI_USER";
	case 0x80:
		return "SI_KERNEL";
	case -1:
		return "SI_QUEUE";
	case -6:
		return "SI_TKILL";
	}
	if (code < 0)
		return NULL;
	if (sig == SIGSEGV && code < 5)
		return segv[code];
	if (sig == SIGBUS && code < 4)
		return bus[code];
	if (sig == SIGTRAP && code < 5)
		return trap[code];
	return NULL;
}
