// SPDX-License-Identifier: GPL-2.0
/*
 * pmu.c against fake sysfs trees in a temporary directory: a real-looking
 * intel_pt PMU, a missing one, malformed ones; attr bits land where the
 * format files say. The sample and sideband recipes: test_evattr.c.
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

#include "collect/pmu.h"
#include "sim_pmu.h"

#define PT "bus/event_source/devices/intel_pt/"
#define GARBAGE 0xa5

struct fixture {
	char root[64];
	struct pmu_intel_pt pmu;
	char err[512];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->root, "/tmp/ptbpf-test-pmu-XXXXXX");
	if (!mkdtemp(f->root)) {
		free(f);
		return -1;
	}
	memset(&f->pmu, GARBAGE, sizeof(f->pmu));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = sim_sysfs_remove(f->root);

	free(f);
	return rc;
}

static void test_real_tree(void **state)
{
	struct fixture *f = *state;
	uint64_t v = 0;

	assert_int_equal(sim_sysfs_intel_pt(f->root, 8), 0);
	assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->pmu.type, 8);
	assert_int_equal(f->pmu.nr_formats, 12);
	assert_int_equal(f->pmu.nr_caps, 15);
	assert_int_equal(f->pmu.tsc_art_n, 188);
	assert_int_equal(f->pmu.tsc_art_d, 2);
	assert_int_equal(f->pmu.max_nonturbo_ratio, 24);
	/* Caps are hex: "249" is 0x249, "3f" is 63. */
	assert_int_equal(pmu_cap(&f->pmu, "mtc_periods", &v), 0);
	assert_int_equal(v, 0x249);
	assert_int_equal(pmu_cap(&f->pmu, "psb_periods", &v), 0);
	assert_int_equal(v, 0x3f);
	assert_int_equal(pmu_cap(&f->pmu, "no_such_cap", &v), -ENOENT);
	assert_non_null(pmu_field(&f->pmu, "mtc_period"));
	assert_int_equal(pmu_field(&f->pmu, "mtc_period")->lo, 14);
	assert_int_equal(pmu_field(&f->pmu, "mtc_period")->hi, 17);
	assert_null(pmu_field(&f->pmu, "nope"));
}

static void test_attr_skylake(void **state)
{
	struct fixture *f = *state;
	struct perf_event_attr a;
	struct snap_cpu_info info;
	size_t psb = 0;

	assert_int_equal(sim_sysfs_intel_pt(f->root, 9), 0);
	assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, NULL, 0), 0);
	memset(&a, GARBAGE, sizeof(a));
	assert_int_equal(pmu_intel_pt_attr(&f->pmu, false, true, &a, &psb, f->err, sizeof(f->err)),
			 0);
	assert_int_equal(a.type, 9);
	assert_int_equal(a.size, sizeof(a));
	/* pt(0) mtc(9) tsc(10) branch(13), mtc_period=3, psb_period=3 */
	assert_int_equal(a.config, (1ULL << 0) | (1ULL << 9) | (1ULL << 10) | (1ULL << 13) |
					   (3ULL << 14) | (3ULL << 24));
	assert_false(a.config & (1ULL << 11)); /* return compression kept */
	assert_int_equal(a.config1, 0);
	assert_int_equal(psb, 16384);
	assert_true(a.exclude_kernel);
	assert_true(a.disabled);
	/* TSC-based time: perf converts with the mmap page's time_zero. */
	assert_false(a.use_clockid);
	/* its ITRACE_START/AUX records say who, when, where */
	assert_true(a.sample_id_all);
	assert_int_equal(a.sample_type, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
						PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
	assert_int_equal(pmu_intel_pt_attr(&f->pmu, true, false, &a, NULL, NULL, 0), 0);
	assert_false(a.exclude_kernel);
	assert_false(a.disabled);
	memset(&info, GARBAGE, sizeof(info));
	assert_int_equal(pmu_cpu_info(&f->pmu, &a, &info), 0);
	assert_int_equal(info.mtc_freq, 3);
	assert_int_equal(info.tsc_ctc_ratio_n, 188);
	assert_int_equal(info.tsc_ctc_ratio_d, 2);
	assert_int_equal(info.max_nonturbo_ratio, 24);
	/* the masks perf's AUXTRACE_INFO wants, from format/ */
	assert_int_equal(info.pt_tsc_mask, 1ULL << 10);
	assert_int_equal(info.pt_noretcomp_mask, 1ULL << 11);
	assert_int_equal(info.pt_mtc_mask, 1ULL << 9);
	assert_int_equal(info.pt_mtc_period_mask, 0xfULL << 14);
	assert_int_equal(info.pt_cyc_mask, 1ULL << 1);
}

/* A field moved: its mask follows; one outside config is not a mask. */
static void test_masks_moved(void **state)
{
	struct fixture *f = *state;
	struct snap_cpu_info info;
	struct perf_event_attr a;

	assert_int_equal(sim_sysfs_intel_pt(f->root, 8), 0);
	assert_int_equal(sim_sysfs_write(f->root, PT "format/tsc", "config:3\n"), 0);
	assert_int_equal(sim_sysfs_write(f->root, PT "format/mtc_period", "config:60-63\n"), 0);
	assert_int_equal(sim_sysfs_write(f->root, PT "format/cyc", "config1:1\n"), 0);
	assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, NULL, 0), 0);
	assert_int_equal(pmu_intel_pt_attr(&f->pmu, false, false, &a, NULL, NULL, 0), 0);
	memset(&info, GARBAGE, sizeof(info));
	assert_int_equal(pmu_cpu_info(&f->pmu, &a, &info), 0);
	assert_int_equal(info.pt_tsc_mask, 1ULL << 3);
	assert_int_equal(info.pt_mtc_period_mask, 0xfULL << 60);
	assert_int_equal(info.pt_cyc_mask, 0);
}

/* Formats moved elsewhere: the bits follow the files, not a table. */
static const struct moved_case {
	const char *file, *text;
	int word;
	__u64 mask, want;
} moved[] = {
	{ PT "format/tsc", "config:3\n", 0, 1ULL << 3, 1ULL << 3 },
	{ PT "format/pt", "config:40\n", 0, 1ULL << 40, 1ULL << 40 },
	{ PT "format/branch", "config1:7\n", 1, 1ULL << 7, 1ULL << 7 },
	{ PT "format/psb_period", "config2:4-7\n", 2, 0xfULL << 4, 3ULL << 4 },
	{ PT "format/mtc_period", "config:60-63\n", 0, 0xfULL << 60, 3ULL << 60 },
	{ PT "caps/psb_periods", "6\n", 0, 0xfULL << 24, 1ULL << 24 },
	{ PT "caps/psb_cyc", "0\n", 0, 0xfULL << 24, 0 },
	{ PT "caps/mtc", "0\n", 0, (1ULL << 9) | (0xfULL << 14), 0 },
};

static void test_attr_moved_bits(void **state)
{
	struct fixture *f = *state;
	struct perf_event_attr a;
	unsigned int i;

	for (i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		const struct moved_case *c = &moved[i];
		__u64 *w = c->word == 0 ? &a.config : c->word == 1 ? &a.config1 : &a.config2;

		print_message("moved: %s = %s", c->file, c->text);
		assert_int_equal(sim_sysfs_intel_pt(f->root, 8), 0);
		assert_int_equal(sim_sysfs_write(f->root, c->file, c->text), 0);
		assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, NULL, 0), 0);
		memset(&a, GARBAGE, sizeof(a));
		assert_int_equal(pmu_intel_pt_attr(&f->pmu, false, false, &a, NULL, NULL, 0), 0);
		assert_int_equal(*w & c->mask, c->want);
	}
}

static void test_psb_bytes(void **state)
{
	struct fixture *f = *state;
	struct perf_event_attr a;
	size_t psb = 1;

	assert_int_equal(sim_sysfs_intel_pt(f->root, 8), 0);
	assert_int_equal(sim_sysfs_write(f->root, PT "caps/psb_periods", "6"), 0);
	assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, NULL, 0), 0);
	assert_int_equal(pmu_intel_pt_attr(&f->pmu, false, false, &a, &psb, NULL, 0), 0);
	assert_int_equal(psb, 4096); /* 2^(1+11) */
	assert_int_equal(sim_sysfs_write(f->root, PT "caps/psb_cyc", "0"), 0);
	assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, NULL, 0), 0);
	assert_int_equal(pmu_intel_pt_attr(&f->pmu, false, false, &a, &psb, NULL, 0), 0);
	assert_int_equal(psb, 2048);
}

static void test_missing(void **state)
{
	struct fixture *f = *state;

	memset(f->err, 'x', sizeof(f->err));
	assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, f->err, sizeof(f->err)), -ENOENT);
	assert_non_null(strstr(f->err, f->root));
	assert_non_null(strstr(f->err, "bus/event_source/devices/intel_pt"));
	assert_int_equal(pmu_intel_pt_probe(NULL, NULL, NULL, 0), -EINVAL);
}

static const struct bad_case {
	const char *file, *text; /* written over the real-looking tree */
	int rc;
	const char *msg; /* expected in the message */
} bad[] = {
	{ PT "type", "abc\n", -EINVAL, "intel_pt/type" },
	{ PT "type", "-1\n", -EINVAL, "intel_pt/type" },
	{ PT "format/tsc", "config:x\n", -EINVAL, "format/tsc" },
	{ PT "format/mtc_period", "config:17-14\n", -EINVAL, "mtc_period" },
	{ PT "format/pt", "bogus:0\n", -EINVAL, "format/pt" },
	{ PT "format/cyc", "config:64\n", -EINVAL, "format/cyc" },
	{ PT "caps/psb_cyc", "zz\n", -EINVAL, "caps/psb_cyc" },
	{ PT "caps/mtc", "\n", -EINVAL, "caps/mtc" },
	{ PT "tsc_art_ratio", "188\n", -EINVAL, "tsc_art_ratio" },
	{ PT "max_nonturbo_ratio", "fast\n", -EINVAL, "max_nonturbo_ratio" },
};

static void test_malformed(void **state)
{
	struct fixture *f = *state;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("malformed: %s = %s", bad[i].file, bad[i].text);
		assert_int_equal(sim_sysfs_intel_pt(f->root, 8), 0);
		assert_int_equal(sim_sysfs_write(f->root, bad[i].file, bad[i].text), 0);
		f->err[0] = '\0';
		assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, f->err, sizeof(f->err)),
				 bad[i].rc);
		assert_non_null(strstr(f->err, bad[i].msg));
	}
}

static void test_no_type(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(sim_sysfs_write(f->root, PT "format/pt", "config:0"), 0);
	assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, f->err, sizeof(f->err)), -ENOENT);
	assert_non_null(strstr(f->err, "intel_pt/type not found"));
}

static void test_no_tsc_format(void **state)
{
	struct fixture *f = *state;
	struct perf_event_attr a;
	char path[128];

	assert_int_equal(sim_sysfs_intel_pt(f->root, 8), 0);
	snprintf(path, sizeof(path), "%s/" PT "format/tsc", f->root);
	assert_int_equal(remove(path), 0);
	assert_int_equal(pmu_intel_pt_probe(f->root, &f->pmu, NULL, 0), 0);
	assert_int_equal(pmu_intel_pt_attr(&f->pmu, false, false, &a, NULL, f->err, sizeof(f->err)),
			 -EINVAL);
	assert_non_null(strstr(f->err, "format/tsc not found"));
	assert_int_equal(pmu_intel_pt_attr(NULL, false, false, &a, NULL, NULL, 0), -EINVAL);
}

static const struct fmt_case {
	const char *text;
	int rc;
	unsigned int word, lo, hi;
} fmts[] = {
	{ "config:10", 0, 0, 10, 10 },	    { "config:14-17\n", 0, 0, 14, 17 },
	{ "config1:0-31", 0, 1, 0, 31 },    { "config2:63", 0, 2, 63, 63 },
	{ "config:0-63", 0, 0, 0, 63 },	    { "", -EINVAL, 0, 0, 0 },
	{ "config", -EINVAL, 0, 0, 0 },	    { "config:", -EINVAL, 0, 0, 0 },
	{ "config:64", -EINVAL, 0, 0, 0 },  { "config:3-2", -EINVAL, 0, 0, 0 },
	{ "config:1,3", -EINVAL, 0, 0, 0 }, { "config:10-", -EINVAL, 0, 0, 0 },
	{ "config:10x", -EINVAL, 0, 0, 0 }, { "config: 1", -EINVAL, 0, 0, 0 },
	{ "cfg:1", -EINVAL, 0, 0, 0 },	    { "config3:1", -EINVAL, 0, 0, 0 },
};

static void test_parse_format(void **state)
{
	struct pmu_field fl;
	unsigned int i;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		print_message("format \"%s\"\n", fmts[i].text);
		memset(&fl, GARBAGE, sizeof(fl));
		assert_int_equal(pmu_parse_format(fmts[i].text, &fl), fmts[i].rc);
		if (fmts[i].rc)
			continue;
		assert_int_equal(fl.word, fmts[i].word);
		assert_int_equal(fl.lo, fmts[i].lo);
		assert_int_equal(fl.hi, fmts[i].hi);
	}
	assert_int_equal(pmu_parse_format(NULL, &fl), -EINVAL);
	assert_int_equal(pmu_parse_format("config:1", NULL), -EINVAL);
}

static void test_set_field(void **state)
{
	struct pmu_field fl = { "x", 0, 14, 17 };
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.config = ~0ULL;
	assert_int_equal(pmu_set_field(&a, &fl, 5), 0);
	assert_int_equal(a.config, ~(0xfULL << 14) | (5ULL << 14));
	assert_int_equal(pmu_set_field(&a, &fl, 16), -ERANGE);
	fl = (struct pmu_field){ "all", 1, 0, 63 };
	assert_int_equal(pmu_set_field(&a, &fl, ~0ULL), 0);
	assert_int_equal(a.config1, ~0ULL);
	assert_int_equal(pmu_set_field(NULL, &fl, 1), -EINVAL);
	assert_int_equal(pmu_set_field(&a, NULL, 1), -EINVAL);
	assert_null(pmu_field(NULL, "pt"));
	assert_int_equal(pmu_cap(NULL, "mtc", &(uint64_t){ 0 }), -EINVAL);
	assert_int_equal(pmu_cpu_info(NULL, &a, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_real_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attr_skylake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attr_moved_bits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_masks_moved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_psb_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_tsc_format, setup, teardown),
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test(test_set_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
