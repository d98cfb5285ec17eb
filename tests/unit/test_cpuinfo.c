// SPDX-License-Identifier: GPL-2.0
/* cpuinfo.c: the processor from /proc/cpuinfo, on made-up files too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/cpuinfo.h"

#define GARBAGE 0xa5

static const struct cpuinfo_case {
	const char *name, *text;
	int ret;
	const char *vendor;
	unsigned int family, model, stepping;
} cases[] = {
	{ "intel, two processors",
	  "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
	  "model\t\t: 142\nmodel name\t: Intel(R) Core(TM) i7\nstepping\t: 10\n"
	  "\nprocessor\t: 1\nvendor_id\t: OtherVendor\ncpu family\t: 9\n"
	  "model\t\t: 1\nstepping\t: 2\n\n",
	  0, "GenuineIntel", 6, 142, 10 },
	{ "amd, no trailing blank line",
	  "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
	  "model\t\t: 1\nstepping\t: 1\n",
	  0, "AuthenticAMD", 25, 1, 1 },
	{ "no vendor (not x86)", "processor\t: 0\nBogoMIPS\t: 50.00\n\n", -ENOENT, NULL, 0, 0, 0 },
	{ "empty", "", -ENOENT, NULL, 0, 0, 0 },
};

static void test_cases(void **state)
{
	char path[] = "/tmp/ptbpf-test-cpuinfo-XXXXXX";
	struct snap_cpu_info info;
	size_t i;
	FILE *f;
	int fd;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cpuinfo_case *c = &cases[i];

		print_message("cpuinfo: %s\n", c->name);
		strcpy(path, "/tmp/ptbpf-test-cpuinfo-XXXXXX");
		fd = mkstemp(path);
		assert_true(fd >= 0);
		f = fdopen(fd, "w");
		fputs(c->text, f);
		fclose(f);
		memset(&info, GARBAGE, sizeof(info));
		assert_int_equal(cpuinfo_read(path, &info), c->ret);
		unlink(path);
		if (c->ret)
			continue;
		assert_string_equal(info.vendor, c->vendor);
		assert_int_equal(info.family, c->family);
		assert_int_equal(info.model, c->model);
		assert_int_equal(info.stepping, c->stepping);
		/* the rest is left as it was */
		assert_int_equal(info.nr_cpus_online, 0xa5a5a5a5);
	}
}

static void test_this_machine(void **state)
{
	struct snap_cpu_info info;

	memset(&info, 0, sizeof(info));
	if (access("/proc/cpuinfo", R_OK) || system("grep -q '^vendor_id' /proc/cpuinfo"))
		skip(); /* not x86: no vendor_id line */
	assert_int_equal(cpuinfo_read(NULL, &info), 0);
	assert_true(info.vendor[0] != '\0');
	assert_true(info.family > 0);
}

static void test_invalid(void **state)
{
	struct snap_cpu_info info;

	assert_int_equal(cpuinfo_read("/nonexistent/cpuinfo", &info), -ENOENT);
	assert_int_equal(cpuinfo_read(NULL, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_this_machine),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
