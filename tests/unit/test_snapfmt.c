// SPDX-License-Identifier: GPL-2.0
/*
 * snapfmt.c: snapshot directory names past six digits, and their order by
 * number (snapshot-999999 before snapshot-1000000), where the names' own
 * order puts them the other way round.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapfmt.h"

/* Six digits and past: each number the writer can give reads back. */
static void test_parse_past_six_digits(void **state)
{
	static const uint64_t ids[] = { 1, 999999, 1000000, 1234567, SNAPFMT_ID_MAX };
	char name[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		snprintf(name, sizeof(name), SNAPFMT_NAME_FMT, ids[i]);
		assert_int_equal(snapfmt_parse_name(name), ids[i]);
	}
	assert_string_equal((snprintf(name, sizeof(name), SNAPFMT_NAME_FMT, (uint64_t)1000000),
			     name),
			    "snapshot-1000000");
	assert_int_equal(snapfmt_parse_name("snapshot-1000000"), 1000000);
}

/* Names ptbpf never writes read as none, so a removal finds the same name. */
static void test_parse_refuses(void **state)
{
	static const char *const bad[] = {
		"snapshot-000000",
		"snapshot-0000001",
		"snapshot-01000000",
		"snapshot-1",
		"snapshot-99999",
		"snapshot-",
		"snapshot-+00001",
		"snapshot-000001x",
		"snapshot-1000000000000",
		"snapshot-99999999999999999999",
		"snap-000001",
		"",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(snapfmt_parse_name(bad[i]), 0);
	assert_int_equal(snapfmt_parse_name(NULL), 0);
}

static int cmp(const void *a, const void *b)
{
	return snapfmt_compare_names(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted by number, not by name: 999999 before 1000000. */
static void test_order_by_number(void **state)
{
	const char *v[] = { "snapshot-1000000", "snapshot-999999", "snapshot-10000000",
			    "snapshot-000002", "snapshot-1000001" };
	static const char *const want[] = { "snapshot-000002", "snapshot-999999",
					    "snapshot-1000000", "snapshot-1000001",
					    "snapshot-10000000" };
	size_t i;

	(void)state;
	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), cmp);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_string_equal(v[i], want[i]);
	assert_true(snapfmt_compare_names("snapshot-999999", "snapshot-1000000") < 0);
	assert_int_equal(snapfmt_compare_names("snapshot-1000000", "snapshot-1000000"), 0);
	/* not a snapshot's name: first */
	assert_true(snapfmt_compare_names("other", "snapshot-000001") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_past_six_digits),
		cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_order_by_number),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
