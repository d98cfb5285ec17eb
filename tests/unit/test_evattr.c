// SPDX-License-Identifier: GPL-2.0
/*
 * evattr.c: the sample backend's cpu-clock attr, its call stacks and rate
 * bound, and the context-switch sideband attr of either backend.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <cmocka.h>

#include "collect/evattr.h"

#define GARBAGE 0xa5

static void test_sample_attr(void **state)
{
	struct perf_event_attr a;

	memset(&a, GARBAGE, sizeof(a));
	assert_int_equal(evattr_sample(&a, false, true, 0), 0);
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_true(a.freq);
	assert_int_equal(a.sample_freq, EVATTR_SAMPLE_FREQ);
	assert_int_equal(a.sample_type, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
	assert_true(a.use_clockid);
	assert_int_equal(a.clockid, CLOCK_MONOTONIC);
	assert_true(a.write_backward);
	assert_true(a.disabled);
	assert_true(a.exclude_kernel);
	assert_int_equal(a.config1, 0);
	assert_int_equal(evattr_sample(&a, true, false, 99), 0);
	assert_int_equal(a.sample_freq, 99);
	assert_false(a.exclude_kernel);
	assert_false(a.disabled);
	assert_int_equal(evattr_sample(NULL, false, false, 0), -EINVAL);
}

static void test_sample_callgraph(void **state)
{
	__u64 base = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		     PERF_SAMPLE_CPU;
	struct perf_event_attr a;

	memset(&a, GARBAGE, sizeof(a));
	evattr_sample(&a, false, true, 0);
	assert_int_equal(evattr_sample_callgraph(&a, CALLGRAPH_NONE, 0, false), 0);
	assert_int_equal(a.sample_type, base);

	memset(&a, GARBAGE, sizeof(a));
	evattr_sample(&a, false, true, 0);
	assert_int_equal(evattr_sample_callgraph(&a, CALLGRAPH_FP, 0, false), 0);
	assert_int_equal(a.sample_type, base | PERF_SAMPLE_CALLCHAIN);
	assert_true(a.exclude_callchain_kernel);
	assert_false(a.exclude_callchain_user);
	assert_int_equal(a.sample_regs_user, 0);
	assert_int_equal(a.sample_stack_user, 0);
	evattr_sample(&a, true, true, 0);
	assert_int_equal(evattr_sample_callgraph(&a, CALLGRAPH_FP, 0, true), 0);
	assert_false(a.exclude_callchain_kernel);

	memset(&a, GARBAGE, sizeof(a));
	evattr_sample(&a, false, true, 0);
#if defined(__x86_64__)
	assert_int_equal(evattr_sample_callgraph(&a, CALLGRAPH_DWARF, 0, false), 0);
	assert_int_equal(a.sample_type, base | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
						PERF_SAMPLE_STACK_USER);
	assert_true(a.exclude_callchain_user);
	/* AX..R15 without DS, ES, FS, GS: what perf record asks for */
	assert_int_equal(a.sample_regs_user, 0xff0fff);
	assert_int_equal(a.sample_stack_user, EVATTR_STACK_USER_DEFAULT);
	assert_int_equal(evattr_sample_callgraph(&a, CALLGRAPH_DWARF, 65528, false), 0);
	assert_int_equal(a.sample_stack_user, 65528);
#endif
	assert_int_equal(evattr_sample_callgraph(&a, CALLGRAPH_DWARF, 12, false), -EINVAL);
	assert_int_equal(evattr_sample_callgraph(&a, CALLGRAPH_DWARF, 65536, false), -EINVAL);
	assert_int_equal(evattr_sample_callgraph(&a, (enum ptbpf_callgraph)7, 0, false), -EINVAL);
	assert_int_equal(evattr_sample_callgraph(NULL, CALLGRAPH_FP, 0, false), -EINVAL);
}

static void test_sample_freq(void **state)
{
	char path[] = "/tmp/ptbpf-rate-XXXXXX";
	unsigned int got;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2500\n", 5), 5);
	close(fd);
	got = 1;
	assert_int_equal(evattr_sample_freq(0, path, &got), 1);
	assert_int_equal(got, 2500);
	assert_int_equal(evattr_sample_freq(2500, path, &got), 0);
	assert_int_equal(got, 2500);
	assert_int_equal(evattr_sample_freq(100, path, &got), 0);
	assert_int_equal(got, 100);
	unlink(path);
	/* no sysctl file: the kernel will say what it refuses */
	assert_int_equal(evattr_sample_freq(0, path, &got), 0);
	assert_int_equal(got, EVATTR_SAMPLE_FREQ);
	assert_int_equal(evattr_sample_freq(0, path, NULL), -EINVAL);
}

static void test_sideband_attr(void **state)
{
	/* the data event's clock: its own (a clockid), or perf's default (-1) */
	static const int clocks[] = { CLOCK_MONOTONIC, -1, CLOCK_MONOTONIC_RAW };
	struct perf_event_attr a;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		memset(&a, GARBAGE, sizeof(a));
		assert_int_equal(evattr_sideband(&a, clocks[i], true), 0);
		assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
		assert_int_equal(a.config, PERF_COUNT_SW_DUMMY);
		assert_true(a.context_switch);
		/* the kernel's MMAP2 records of code, not of data */
		assert_true(a.mmap && a.mmap2);
		assert_false(a.mmap_data);
		assert_true(a.sample_id_all);
		assert_int_equal(a.sample_type, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
							PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
		assert_true(a.disabled);
		/* Same clock as the data event of the backend. */
		assert_int_equal(a.use_clockid, clocks[i] >= 0);
		assert_int_equal(a.clockid, clocks[i] >= 0 ? clocks[i] : 0);
	}
	assert_int_equal(evattr_sideband(&a, -1, false), 0);
	assert_false(a.disabled);
	assert_int_equal(evattr_sideband(NULL, CLOCK_MONOTONIC, false), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_attr),
		cmocka_unit_test(test_sample_callgraph),
		cmocka_unit_test(test_sample_freq),
		cmocka_unit_test(test_sideband_attr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
