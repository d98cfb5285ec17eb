// SPDX-License-Identifier: GPL-2.0
/*
 * fmtnum.h: the decoders' numbers without printf are what printf would
 * have written, for every digit (the 16-digit one makes all at once).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fmtnum.h"

static void check(uint64_t v)
{
	char got[64], want[64];

	*fmt_hex16(got, v) = '\0';
	snprintf(want, sizeof(want), "%016llx", (unsigned long long)v);
	assert_string_equal(got, want);
	*fmt_hex(got, v) = '\0';
	snprintf(want, sizeof(want), "%llx", (unsigned long long)v);
	assert_string_equal(got, want);
	*fmt_u64(got, v) = '\0';
	snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
	assert_string_equal(got, want);
}

static void test_edges(void **state)
{
	unsigned int i;

	(void)state;
	check(0);
	check(UINT64_MAX);
	check(0x0123456789abcdefULL);
	check(0xfedcba9876543210ULL);
	/* every nibble value in every position */
	for (i = 0; i < 16 * 16; i++)
		check((uint64_t)(i % 16) << 4 * (i / 16));
	for (i = 0; i < 64; i++)
		check(1ULL << i);
}

static void test_many(void **state)
{
	uint64_t v = 1;
	unsigned int i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
		check(v);
		check(v >> (i % 64));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
