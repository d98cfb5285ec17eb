// SPDX-License-Identifier: GPL-2.0
/* The disk budget's bookkeeping, in memory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "snapshot/budget.h"

static void test_add_keeps_order(void **state)
{
	struct budget b;

	budget_init(&b, 0, 0);
	assert_int_equal(budget_add(&b, 5, 50), 0);
	assert_int_equal(budget_add(&b, 2, 20), 0);
	assert_int_equal(budget_add(&b, 9, 90), 0);
	assert_int_equal(budget_add(&b, 2, 1), -EEXIST);
	assert_int_equal(b.n, 3);
	assert_int_equal(b.v[0].id, 2);
	assert_int_equal(b.v[2].id, 9);
	assert_int_equal(b.used, 160);
	assert_int_equal(budget_drop(&b, 5), 0);
	assert_int_equal(budget_drop(&b, 5), -ENOENT);
	assert_int_equal(b.used, 110);
	assert_int_equal(budget_add(NULL, 1, 1), -EINVAL);
	assert_int_equal(budget_drop(NULL, 1), -EINVAL);
	budget_free(&b);
	budget_free(NULL);
}

struct excess_case {
	uint64_t max_bytes;
	unsigned int max_count;
	uint64_t incoming;
	unsigned int extra;
	uint64_t keep_from;
	size_t want;
	int want_size;
};

/* Three snapshots of 100, 200 and 300 bytes (ids 1, 2, 3). */
static const struct excess_case cases[] = {
	{ 0, 0, 1000, 1, UINT64_MAX, 0, 0 }, /* no limits */
	{ 1000, 0, 400, 1, UINT64_MAX, 0, 0 }, /* fits exactly */
	{ 1000, 0, 401, 1, UINT64_MAX, 1, 1 }, /* the oldest goes */
	{ 1000, 0, 900, 1, UINT64_MAX, 3, 1 }, /* all of them */
	{ 1000, 0, 5000, 1, UINT64_MAX, 3, 1 }, /* can't fit: all gone */
	{ 0, 2, 0, 1, UINT64_MAX, 2, 0 }, /* -n 2 with one coming */
	{ 0, 2, 0, 0, UINT64_MAX, 1, 0 }, /* -n 2 after it came */
	{ 500, 0, 0, 0, 3, 1, 1 }, /* 600 > 500: the newest (3) stays */
	{ 200, 0, 0, 0, 3, 2, 1 }, /* 300 alone is over: still kept */
	{ 1000, 1, 0, 0, 3, 2, 0 }, /* the count asks, not the size */
};

static void test_excess(void **state)
{
	struct budget b;
	size_t i;
	int why;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct excess_case *c = &cases[i];

		budget_init(&b, c->max_bytes, c->max_count);
		budget_add(&b, 1, 100);
		budget_add(&b, 2, 200);
		budget_add(&b, 3, 300);
		why = -1;
		assert_int_equal(budget_excess(&b, c->incoming, c->extra, c->keep_from, &why),
				 c->want);
		assert_int_equal(why, c->want_size);
		budget_free(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_keeps_order),
		cmocka_unit_test(test_excess),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
