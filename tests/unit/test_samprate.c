// SPDX-License-Identifier: GPL-2.0
/*
 * samprate.c: the sample rate from a sample's cost, within --overhead or as
 * -F fixes it, lowered where the kernel can't sustain it; the re-check.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "collect/samprate.h"

/* 2 % at 50 us a sample: 400 Hz, within the budget, nothing said. */
static void test_budget_picks(void **state)
{
	struct samprate_in in = { .sample_ns = 50000, .budget_pct = 2, .max_rate = 100000 };
	struct samprate out;

	(void)state;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 400);
	assert_string_equal(out.why, "budget");
	assert_true(out.cost_pct > 1.99 && out.cost_pct < 2.01);
	assert_string_equal(out.line, "");
	/* bare metal, 1 us: 20 kHz, more than the old default */
	in.sample_ns = 1000;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 20000);
	/* within the kernel's bound */
	in.max_rate = 12000;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 12000);
	assert_string_equal(out.why, "budget");
}

/* A cost too small to see, or unknown: the fallback rate. */
static void test_budget_unknown_cost(void **state)
{
	struct samprate_in in = { .sample_ns = 0, .budget_pct = 2, .max_rate = 100000 };
	struct samprate out;

	(void)state;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, SAMPRATE_FALLBACK_HZ);
	assert_true(out.cost_pct < 0);
	in.max_rate = 1000;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 1000);
}

/*
 * kernel.perf_event_max_sample_rate lowered below the floor, the cost
 * unknown (no calibration counts samples at such a rate): the line names
 * the sysctl, never "a sample costs 0.0 us ... -1.00 %".
 */
static void test_budget_capped_unknown_cost(void **state)
{
	struct samprate_in in = { .sample_ns = 0, .budget_pct = 2, .max_rate = 5 };
	struct samprate out;

	(void)state;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 5);
	assert_string_equal(out.why, "lowered");
	assert_string_equal(out.line, "--overhead 2: kernel.perf_event_max_sample_rate is 5 Hz, "
				      "below 10 Hz: sampling at 5 Hz");
	assert_null(strstr(out.line, "-1.00"));
	/* measured at the cap: the budget, within the cap */
	in.max_rate = 100;
	in.sample_ns = 400000; /* 2 % is 50 Hz */
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 50);
	assert_string_equal(out.why, "budget");
}

/* A budget even the floor exceeds: the floor, and one line. */
static void test_budget_floor(void **state)
{
	struct samprate_in in = { .sample_ns = 5000000, .budget_pct = 0.5, .max_rate = 100000 };
	struct samprate out;

	(void)state;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, SAMPRATE_MIN_HZ);
	assert_string_equal(out.why, "lowered");
	assert_non_null(strstr(out.line, "--overhead 0.5"));
	assert_non_null(strstr(out.line, "sampling at 10 Hz"));
}

/* -F: as given and what it costs; lowered where it can't be sustained. */
static void test_fixed(void **state)
{
	struct samprate_in in = { .sample_ns = 30000, .fixed_hz = 4000, .max_rate = 100000 };
	struct samprate out;

	(void)state;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 4000);
	assert_string_equal(out.why, "fixed");
	assert_true(out.cost_pct > 11.99 && out.cost_pct < 12.01);
	assert_string_equal(out.line, "");
	/* 100 kHz at 30 us: 300 % of a CPU; 25 % is 8333 Hz */
	in.fixed_hz = 100000;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 8333);
	assert_string_equal(out.why, "lowered");
	assert_non_null(strstr(out.line, "-F 100000"));
	assert_non_null(strstr(out.line, "300 %"));
	assert_non_null(strstr(out.line, "kernel.perf_cpu_time_max_percent 25"));
	assert_non_null(strstr(out.line, "sampling at 8333 Hz"));
	assert_null(strchr(out.line, '\n'));
	/* the sysctl says more: 50 % */
	in.max_cpu_pct = 50;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 16666);
	/* cheap samples: the kernel's rate bound is what lowers it */
	in.sample_ns = 1000;
	in.max_rate = 50000;
	assert_int_equal(samprate_pick(&in, &out), 0);
	assert_int_equal(out.hz, 50000);
	assert_non_null(strstr(out.line, "kernel.perf_event_max_sample_rate"));
	assert_non_null(strstr(out.line, "sampling at 50000 Hz"));
}

static void test_bad(void **state)
{
	struct samprate_in in = { .sample_ns = 1000, .budget_pct = 0 };
	struct samprate out;

	(void)state;
	assert_int_equal(samprate_pick(&in, &out), -EINVAL);
	in.budget_pct = 101;
	assert_int_equal(samprate_pick(&in, &out), -EINVAL);
	assert_int_equal(samprate_pick(NULL, &out), -EINVAL);
	assert_int_equal(samprate_pick(&in, NULL), -EINVAL);
}

/* A move of more than a quarter is a change; -F never changes. */
static void test_recheck(void **state)
{
	struct samprate_in in = { .sample_ns = 50000, .budget_pct = 2, .max_rate = 100000 };
	struct samprate out;

	(void)state;
	assert_int_equal(samprate_recheck(&in, 400, &out), 0);
	assert_int_equal(samprate_recheck(&in, 450, &out), 0);
	assert_int_equal(samprate_recheck(&in, 600, &out), 1);
	assert_int_equal(out.hz, 400);
	assert_int_equal(samprate_recheck(&in, 200, &out), 1);
	in.fixed_hz = 4000;
	assert_int_equal(samprate_recheck(&in, 200, &out), 0);
}

static void test_sysctl(void **state)
{
	char path[] = "/tmp/ptbpf-samprate-XXXXXX";
	unsigned int v = 0;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "25000\n", 6), 6);
	close(fd);
	assert_int_equal(samprate_read_sysctl(path, &v), 0);
	assert_int_equal(v, 25000);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "x\n", 2), 2);
	close(fd);
	assert_int_equal(samprate_read_sysctl(path, &v), -EINVAL);
	unlink(path);
	assert_int_equal(samprate_read_sysctl(path, &v), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_picks),
		cmocka_unit_test(test_budget_unknown_cost),
		cmocka_unit_test(test_budget_floor),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_recheck),
		cmocka_unit_test(test_sysctl),
		cmocka_unit_test(test_budget_capped_unknown_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
