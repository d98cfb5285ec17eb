// SPDX-License-Identifier: GPL-2.0
/* runend.c: how a run ended, and ptbpf's exit status for scripts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <string.h>

#include "control/runend.h"

struct end_case {
	struct run_end e;
	const char *ended;
	int exit_status;
};

static const struct end_case cases[] = {
	/* ptbpf ended it, the command with its SIGTERM (or SIGKILL): 0 */
	{ { "duration", true, 128 + SIGTERM, SIGTERM, false }, "as_asked", 0 },
	{ { "trigger_limit", true, 128 + SIGTERM, SIGTERM, false }, "as_asked", 0 },
	{ { "signal", true, 128 + SIGKILL, SIGKILL, false }, "as_asked", 0 },
	/* a command that exits 1 on SIGTERM still ended as asked */
	{ { "signal", true, 1, 0, false }, "as_asked", 0 },
	{ { "signal", false, -1, 0, false }, "as_asked", 0 },
	{ { "duration", false, -1, 0, false }, "as_asked", 0 },
	/*
	 * ptbpf ended the run, but the command had ended first, or died of
	 * a signal ptbpf does not send: its own status
	 */
	{ { "trigger_limit", true, 128 + SIGABRT, SIGABRT, false }, "by_signal", 128 + SIGABRT },
	{ { "duration", true, 128 + SIGSEGV, SIGSEGV, false }, "by_signal", 128 + SIGSEGV },
	{ { "trigger_limit", true, 3, 0, true }, "by_itself", 3 },
	{ { "trigger_limit", true, 128 + SIGTERM, SIGTERM, true }, "by_signal", 128 + SIGTERM },
	{ { "trigger_limit", true, 0, 0, true }, "as_asked", 0 },
	/* --pid: what the target died of is its parent's business */
	{ { "trigger_limit", false, -1, SIGABRT, true }, "as_asked", 0 },
	/* the command by itself: its status */
	{ { "exit", true, 0, 0, false }, "by_itself", 0 },
	{ { "exit", true, 3, 0, false }, "by_itself", 3 },
	/* exit(130) is an exit, not a signal */
	{ { "exit", true, 130, 0, false }, "by_itself", 130 },
	/* killed by a signal ptbpf did not send: 128 + N */
	{ { "exit", true, 128 + SIGINT, SIGINT, false }, "by_signal", 130 },
	{ { "exit", true, 128 + SIGSEGV, SIGSEGV, false }, "by_signal", 128 + SIGSEGV },
	/* --pid: the target's end is the run's end, whatever its status */
	{ { "exit", false, -1, 0, false }, "by_itself", 0 },
};

static void test_cases(void **state)
{
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct end_case *c = &cases[i];

		if (strcmp(runend_name(runend_how(&c->e)), c->ended) ||
		    runend_exit_status(&c->e) != c->exit_status)
			fail_msg("case %u (%s, status %d, signal %d): %s %d, not %s %d", i,
				 c->e.reason, c->e.status, c->e.killed_by,
				 runend_name(runend_how(&c->e)), runend_exit_status(&c->e),
				 c->ended, c->exit_status);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
