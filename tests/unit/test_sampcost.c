// SPDX-License-Identifier: GPL-2.0
/*
 * sampcost.c: a sample's cost from pairs of a plain and a sampled spin.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collect/sampcost.h"

/*
 * Pairs side by side: each pair's difference over its samples, the median
 * over the pairs. One lucky short plain spin (pair 2) and one spin a
 * hypervisor stole from (pair 4) move their own pair, not the figure; a
 * floor over each kind apart would take the lucky plain spin against the
 * others' sampled ones and find a sample that costs twice as much.
 */
static void test_median_of_pairs(void **state)
{
	const uint64_t plain[] = { 5000000, 5010000, 4000000, 4990000, 9000000 };
	const uint64_t sampled[] = { 5500000, 5510000, 5490000, 5480000, 9600000 };
	const uint64_t taken[] = { 10, 10, 10, 10, 10 };
	struct sampcost c = { 0 };

	(void)state;
	sampcost_from_pairs(plain, sampled, taken, 5, &c);
	/* per pair: 50000, 50000, 149000, 49000, 60000 ns; the floors: 148000 */
	assert_int_equal(c.sample_ns, 50000);
	assert_int_equal(c.reps, 5);
	assert_int_equal(c.plain_ns, 5000000);
	assert_int_equal(c.sampled_ns, 5500000);
	assert_int_equal(c.samples, 10);
}

/* Quicker sampled than plain is noise: the cost is 0, never negative. */
static void test_never_negative(void **state)
{
	const uint64_t plain[] = { 5000000, 5000000, 5000000 };
	const uint64_t sampled[] = { 4990000, 4980000, 5010000 };
	const uint64_t taken[] = { 2, 2, 2 };
	struct sampcost c = { 0 };

	(void)state;
	sampcost_from_pairs(plain, sampled, taken, 3, &c);
	assert_int_equal(c.sample_ns, 0);
}

/* A pair with no sample counts 0; the others decide. */
static void test_pair_without_samples(void **state)
{
	const uint64_t plain[] = { 1000, 1000, 1000 };
	const uint64_t sampled[] = { 1300, 900000, 1400 };
	const uint64_t taken[] = { 3, 0, 2 };
	struct sampcost c = { 0 };

	(void)state;
	sampcost_from_pairs(plain, sampled, taken, 3, &c);
	/* per pair: 100, 0, 200 */
	assert_int_equal(c.sample_ns, 100);
	assert_int_equal(c.samples, 2);
}

/*
 * A rate capped by kernel.perf_event_max_sample_rate: the spins grow so
 * that each takes samples, and past SAMPCOST_MAX_SPIN_MS no calibration
 * can measure (0), rather than a cost of 0 from spins without samples.
 */
static void test_spin_for_capped_rate(void **state)
{
	(void)state;
	assert_int_equal(sampcost_spin_ns(4000, 0), 5000000);
	assert_int_equal(sampcost_spin_ns(4000, 2000000), 2000000);
	assert_int_equal(sampcost_spin_ns(100, 0), 40000000);
	assert_int_equal(sampcost_spin_ns(80, 0), 50000000);
	assert_int_equal(sampcost_spin_ns(79, 0), 0);
	assert_int_equal(sampcost_spin_ns(5, 0), 0);
	assert_int_equal(sampcost_spin_ns(0, 0), 0);
}

/* No pairs, or more than it keeps: defined figures, nothing read past. */
static void test_bounds(void **state)
{
	uint64_t v[SAMPCOST_MAX_PAIRS + 8] = { 0 };
	struct sampcost c = { .sample_ns = 7 };
	unsigned int i;

	(void)state;
	sampcost_from_pairs(v, v, v, 0, &c);
	assert_int_equal(c.sample_ns, 0);
	assert_int_equal(c.reps, 0);
	for (i = 0; i < SAMPCOST_MAX_PAIRS + 8; i++)
		v[i] = 1;
	sampcost_from_pairs(v, v, v, SAMPCOST_MAX_PAIRS + 8, &c);
	assert_int_equal(c.reps, SAMPCOST_MAX_PAIRS);
	assert_int_equal(c.sample_ns, 0);
	sampcost_from_pairs(v, v, v, 3, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_of_pairs),	     cmocka_unit_test(test_never_negative),
		cmocka_unit_test(test_pair_without_samples), cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_spin_for_capped_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
