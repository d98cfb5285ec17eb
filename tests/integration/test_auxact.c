// SPDX-License-Identifier: GPL-2.0
/*
 * auxact.c's events on the real kernel (no Intel PT here, so no PT group):
 * the uprobe attr of a --trigger-on point counts exactly the target's calls
 * of the function, the context-switch resumer's attr counts its switches
 * (so a resume would happen), and with their aux_action bits set outside
 * an AUX event's group the kernel refuses them, which is what makes
 * cores.c fall back to staged snapshots.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "integ.h"

#include "collect/auxact.h"
#include "target/elfsym.h"
#include "collect/perf_sys.h"

#define TRIGGER PROGS "trigger"

/* The file offset of @name in the trigger program. */
static uint64_t offset_of(const char *name)
{
	struct elfsym_match m;
	unsigned int nr = 0;

	assert_int_equal(elfsym_find(TRIGGER, name, &m, 1, &nr), 0);
	assert_int_equal(nr, 1);
	return m.offset;
}

static uint64_t count(int fd)
{
	uint64_t v = 0;

	assert_int_equal(read(fd, &v, sizeof(v)), sizeof(v));
	return v;
}

static void test_events_count(void **state)
{
	/* the first call 1.5 s in: the events are open by then, however loaded */
	char *argv[] = { TRIGGER, "3", "1500", "100", NULL };
	struct hitpoint p = { .path = TRIGGER, .offset = offset_of("leaf") };
	struct perf_event_attr leader = { 0 }, a;
	char err[256];
	int up, cs, st;
	pid_t pid;

	need_root();
	pid = spawn(argv, "/dev/null");
	auxact_pause_attr(&a, 0, &p, &leader);
	assert_int_equal(auxact_uprobe_type(NULL, &a.type), 0);
	assert_int_equal(auxact_get(&a), AUXACT_PAUSE);
	auxact_set(&a, 0); /* no AUX group here: as a plain counter */
	up = perf_sys_open(&perf_sys_real, &a, -1, pid, -1, 0, err, sizeof(err));
	if (up < 0)
		fail_msg("uprobe event: %s", err);
	auxact_resume_attr(&a, &leader);
	assert_int_equal(auxact_get(&a), AUXACT_RESUME);
	auxact_set(&a, 0);
	cs = perf_sys_open(&perf_sys_real, &a, -1, pid, -1, 0, err, sizeof(err));
	if (cs < 0)
		fail_msg("context-switch event: %s", err);
	st = wait_exit(pid, 60);
	assert_int_equal(st, 0);
	/* leaf ran 3 times: 3 hits, each one an overflow (period 1) */
	assert_int_equal(count(up), 3);
	/*
	 * it slept in each of the 2 gaps between the calls: a switch each, so
	 * a resume each (the sleep before the first call may predate the
	 * event, and the exit's switch comes after the task's events are gone)
	 */
	assert_true(count(cs) >= 2);
	perf_sys_close(&perf_sys_real, &up);
	perf_sys_close(&perf_sys_real, &cs);
}

/*
 * With aux_pause or aux_resume outside an AUX event's group (here, a group
 * of its own, or a cpu-clock leader) the kernel refuses the event: the
 * probe that makes ptbpf stage instead, as where aux-action is unknown.
 */
static void test_refused_outside_aux_group(void **state)
{
	struct hitpoint p = { .path = TRIGGER, .offset = offset_of("leaf") };
	struct perf_event_attr leader = { 0 }, a, clk = { 0 };
	char err[256];
	int fd, lead;

	need_root();
	auxact_pause_attr(&a, 0, &p, &leader);
	assert_int_equal(auxact_uprobe_type(NULL, &a.type), 0);
	fd = perf_sys_open(&perf_sys_real, &a, 0, -1, -1, 0, err, sizeof(err));
	assert_true(fd == -EINVAL || fd == -EOPNOTSUPP);
	clk.size = sizeof(clk);
	clk.type = PERF_TYPE_SOFTWARE;
	clk.config = PERF_COUNT_SW_CPU_CLOCK;
	clk.disabled = 1;
	lead = perf_sys_open(&perf_sys_real, &clk, 0, -1, -1, 0, err, sizeof(err));
	assert_true(lead >= 0);
	fd = perf_sys_open(&perf_sys_real, &a, 0, -1, lead, 0, err, sizeof(err));
	assert_true(fd == -EINVAL || fd == -EOPNOTSUPP);
	auxact_resume_attr(&a, &leader);
	fd = perf_sys_open(&perf_sys_real, &a, 0, -1, lead, 0, err, sizeof(err));
	assert_true(fd == -EINVAL || fd == -EOPNOTSUPP);
	perf_sys_close(&perf_sys_real, &lead);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_count),
		cmocka_unit_test(test_refused_outside_aux_group),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
