// SPDX-License-Identifier: GPL-2.0
/*
 * The last moments (last.c) over made-up snapshots in memory: call
 * stacks out of PERF_SAMPLE_CALLCHAIN, joining and de-duplicating samples,
 * spans, hottest functions, time of day.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include "last.h"
#include "perfread.h"

/* A user chain as the kernel writes it: marker, the IP, return addresses */
static const uint64_t chain[] = {
	(uint64_t)PERF_CONTEXT_USER, 0x1010, 0x2020, 0x3030, 0,
};

static void test_stack(void **state)
{
	struct dump_sample smp = { .ip = 0x1010, .chain = (const uint8_t *)chain, .nr_chain = 5 };
	uint64_t ips[8];

	memset(ips, 0xa5, sizeof(ips));
	/* the IP once, callers at their call (ret - 1), no marker, no 0 */
	assert_int_equal(perfread_sample_stack(&smp, ips, 8), 3);
	assert_int_equal(ips[0], 0x1010);
	assert_int_equal(ips[1], 0x201f);
	assert_int_equal(ips[2], 0x302f);
	assert_int_equal(perfread_sample_stack(&smp, ips, 2), 2);
	smp.chain = NULL;
	smp.nr_chain = 0;
	assert_int_equal(perfread_sample_stack(&smp, ips, 8), 1);
	assert_int_equal(perfread_sample_stack(NULL, ips, 8), 0);
}

static struct dump_sample samples_a[] = {
	{ .ip = 0x10, .time = 100, .pid = 7, .tid = 7 },
	{ .ip = 0x20, .time = 200, .pid = 7, .tid = 8 },
	{ .ip = 0x30, .time = 300, .pid = 9, .tid = 9 }, /* not the target */
};
static struct dump_sample samples_b[] = {
	{ .ip = 0x20, .time = 200, .pid = 7, .tid = 8 }, /* seen in a too */
	{ .ip = 0x40, .time = 150, .pid = 7, .tid = 7 },
	{ .ip = 0x50, .time = 400, .pid = 7, .tid = 7 },
};

static void snap_of(struct dump_snap *s, struct dump_core *c, struct dump_sample *v, size_t n)
{
	memset(s, 0, sizeof(*s));
	memset(c, 0, sizeof(*c));
	c->cpu = 1;
	c->samples = v;
	c->nr_samples = n;
	s->pid = 7;
	s->nr_cores = 1;
	s->cores = c;
}

static void test_join(void **state)
{
	struct dump_snap a, b;
	struct dump_core ca, cb;
	struct dump_moments m = { 0 };
	uint64_t first = UINT64_MAX, last = 0;

	snap_of(&a, &ca, samples_a, 3);
	snap_of(&b, &cb, samples_b, 3);
	assert_int_equal(last_moments_add(&m, &a, 0, 350), 0);
	assert_int_equal(last_moments_add(&m, &b, 0, 350), 0);
	assert_int_equal(m.n, 4); /* pid 9 and time 400 are out */
	last_moments_sort(&m);
	assert_int_equal(m.n, 3); /* the sample in both, once */
	assert_int_equal(m.v[0].smp->time, 100);
	assert_int_equal(m.v[1].smp->time, 150);
	assert_int_equal(m.v[2].smp->time, 200);
	assert_int_equal(m.v[2].cpu, 1);
	last_moments_free(&m);
	assert_int_equal(last_moments_add(NULL, &a, 0, 1), -EINVAL);
	assert_true(last_snap_span(&b, &first, &last));
	assert_int_equal(first, 150);
	assert_int_equal(last, 400);
}

static void test_hottest(void **state)
{
	struct dump_sample v[] = {
		{ .ip = 1, .pid = 7 },
		{ .ip = 2, .pid = 7 },
		{ .ip = 3, .pid = 7 },
		{ .ip = 3, .pid = 8 },
	};
	struct dump_hot hot[4];
	struct dump_snap s;
	struct dump_core c;
	uint64_t total;

	snap_of(&s, &c, v, 4);
	/* no symbols: every address is "[unknown]", all in one */
	assert_int_equal(last_hottest(&s, NULL, hot, 4, &total), 1);
	assert_int_equal(total, 3);
	assert_string_equal(hot[0].name, "[unknown]");
	assert_int_equal(hot[0].samples, 3);
}

static void test_time_of_day(void **state)
{
	struct dump_snap s = { 0 };
	char buf[48];

	assert_string_equal(last_time_str(&s, 1500000000, buf, sizeof(buf)), "1.500000000 s");
	s.has_tod = true;
	s.tod_clock_ns = 1000000000;
	/* 1970-01-01 00:00:10 UTC, then half a second later */
	s.tod_ns = 10000000000ULL;
	setenv("TZ", "UTC", 1);
	assert_string_equal(last_time_str(&s, 1500000000, buf, sizeof(buf)), "00:00:10.500000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_hottest),
		cmocka_unit_test(test_time_of_day),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
