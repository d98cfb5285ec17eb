// SPDX-License-Identifier: GPL-2.0
/* The small-file reader, over files the test writes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/smallfile.h"
#include "../testio.h"

static char dir[64], path[128];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/ptbpf-smallfile-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/f", dir);
	return 0;
}

static int teardown(void **state)
{
	rm_tree(dir);
	return 0;
}

static void put(const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* Whole, without the trailing whitespace; cut to the buffer. */
static void test_read(void **state)
{
	char buf[8];

	put("intel_pt \n", 10);
	assert_int_equal(smallfile_read(path, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "intel_p");
	put(" 42\n", 4);
	assert_int_equal(smallfile_read(path, buf, sizeof(buf)), 3);
	assert_string_equal(buf, " 42");
	put("", 0);
	assert_int_equal(smallfile_read(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(smallfile_read(path, buf, 1), -EINVAL);
	assert_int_equal(smallfile_read(dir, buf, sizeof(buf)), -EISDIR);
	unlink(path);
	assert_int_equal(smallfile_read(path, buf, sizeof(buf)), -ENOENT);
}

/* One unsigned decimal number and nothing else. */
static void test_u64(void **state)
{
	static const struct {
		const char *text;
		int rc;
		uint64_t v;
	} cases[] = {
		{ "100000\n", 0, 100000 },
		{ "18446744073709551615", 0, ~0ULL },
		{ "0", 0, 0 },
		{ "18446744073709551616\n", -EINVAL, 0 },
		{ "-1\n", -EINVAL, 0 },
		{ "+5\n", -EINVAL, 0 },
		{ " 5\n", -EINVAL, 0 },
		{ "5 6\n", -EINVAL, 0 },
		{ "5x", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};
	unsigned int i;
	uint64_t v;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 12345;
		put(cases[i].text, strlen(cases[i].text));
		assert_int_equal(smallfile_u64(path, &v), cases[i].rc);
		assert_true(v == (cases[i].rc ? 12345 : cases[i].v));
	}
	unlink(path);
	assert_int_equal(smallfile_u64(path, &v), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_u64, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
