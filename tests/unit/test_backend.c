// SPDX-License-Identifier: GPL-2.0
/*
 * The backends' rows: every backend the tracer records with (user/collect/backend.c)
 * has its name, its data event and a row in the reader's table
 * (tools/dump/dumpbe.c) with its parts of the outputs; a backend not
 * resolved (auto, or a value out of range) answers "no" to every question
 * in both; --backend auto takes intel-pt where sysfs has its PMU (a fake
 * sysfs root here), else sample.
 */
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

#include "collect/backend.h"
#include "dumpbe.h"
#include "snapfmt.h"
#include "../testio.h"

#define OUT_OF_RANGE ((enum ptbpf_backend)99)

static void test_rows(void **state)
{
	const struct backend_ops *be;
	unsigned int i;

	(void)state;
	for (i = 0; (be = backend_nth(i)); i++) {
		assert_ptr_equal(backend_ops(be->id), be);
		assert_true(backend_known(be->id));
		assert_non_null(snapfmt_backend_name(be->id));
		assert_non_null(be->perf_event);
		assert_non_null(be->data_attr);
		assert_non_null(be->present);
		/* an AUX area comes with a records ring to drain */
		assert_int_equal(be->aux, be->drain_ns != 0);
		assert_int_equal(be->aux, be->rec_pages != 0);
		/* and with what perf.data's AUXTRACE_INFO says of it */
		assert_int_equal(be->aux, be->auxtrace_priv != NULL);
		assert_int_equal(be->aux, be->auxtrace_type != 0);
		/* the data event's times: TSC, or a clock of its own */
		assert_true(be->tsc != (be->clockid >= 0));
	}
	/* intel-pt first: auto takes it where the CPU has it */
	assert_int_equal(i, 2);
	assert_int_equal(backend_nth(0)->id, BACKEND_INTEL_PT);
	assert_int_equal(backend_nth(1)->id, BACKEND_SAMPLE);
}

static void test_unresolved(void **state)
{
	static const enum ptbpf_backend v[] = { BACKEND_AUTO, OUT_OF_RANGE };
	const struct backend_ops *be;
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		be = backend_ops(v[i]);
		assert_non_null(be);
		assert_false(backend_known(v[i]));
		assert_false(be->aux || be->samples || be->tsc || be->lldb || be->cpu_info);
		assert_int_equal(be->drain_ns, 0);
		assert_int_equal(be->rec_pages, 0);
		assert_null(be->data_attr);
		assert_null(be->auxtrace_priv);
		assert_int_equal(be->clockid, -1);
	}
}

/*
 * The reader has a row for every backend the tracer writes, with its parts
 * of the summary and the timeline: a backend without them would crash the
 * outputs, not fail a build.
 */
static void test_reader_rows(void **state)
{
	const struct backend_ops *be;
	const struct dump_backend *d, *unknown = dump_backend(BACKEND_AUTO);
	unsigned int i;

	(void)state;
	for (i = 0; (be = backend_nth(i)); i++) {
		d = dump_backend(be->id);
		assert_ptr_not_equal(d, unknown);
		/* the tracer's facts, as the reader reads them */
		assert_int_equal(d->aux, be->aux);
		assert_int_equal(d->samples, be->samples);
		/* and its own parts of the outputs */
		assert_non_null(d->core_sum);
		assert_non_null(d->core_text);
		assert_non_null(d->core_json);
		assert_non_null(d->end_text);
		assert_non_null(d->end_json);
		assert_non_null(d->timeline);
	}
	assert_ptr_equal(dump_backend(OUT_OF_RANGE), unknown);
	assert_false(unknown->aux || unknown->samples);
	/* an unknown backend's records are shown, not counted */
	assert_null(unknown->core_sum);
	assert_non_null(unknown->core_text);
	assert_non_null(unknown->core_json);
	assert_non_null(unknown->end_text);
	assert_non_null(unknown->end_json);
	assert_non_null(unknown->timeline);
}

static int put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_pick(void **state)
{
	static const char *const dirs[] = { "bus", "event_source", "devices", "intel_pt" };
	char root[64] = "/tmp/ptbpf-test-backend-XXXXXX", path[256];
	unsigned int i;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s", root);
	/* asked for: taken as asked, whatever sysfs says */
	assert_int_equal(backend_pick(BACKEND_INTEL_PT, root), BACKEND_INTEL_PT);
	assert_int_equal(backend_pick(BACKEND_SAMPLE, root), BACKEND_SAMPLE);
	/* no intel_pt PMU */
	assert_int_equal(backend_pick(BACKEND_AUTO, root), BACKEND_SAMPLE);
	/* its directory without a type: not there either */
	for (i = 0; i < 4; i++) {
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", dirs[i]);
		assert_int_equal(mkdir(path, 0700), 0);
	}
	assert_int_equal(backend_pick(BACKEND_AUTO, root), BACKEND_SAMPLE);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/intel_pt/type", root);
	assert_int_equal(put_file(path, "8\n"), 0);
	assert_int_equal(backend_pick(BACKEND_AUTO, root), BACKEND_INTEL_PT);
	assert_true(backend_ops(backend_pick(BACKEND_AUTO, root))->aux);
	rm_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_unresolved),
		cmocka_unit_test(test_reader_rows),
		cmocka_unit_test(test_pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
