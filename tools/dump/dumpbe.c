// SPDX-License-Identifier: GPL-2.0
/* The backends as the reader sees them: one row each. See dumpbe.h. */
#include "dumpbe.h"
#include "ptshow.h"
#include "sampshow.h"

static const struct dump_backend table[] = {
	[BACKEND_INTEL_PT] = {
		.aux = true,
		.core_sum = ptshow_core_sum,
		.core_text = ptshow_core_text,
		.core_json = ptshow_core_json,
		.end_text = ptshow_end_text,
		.end_json = ptshow_end_json,
		.timeline = ptshow_timeline,
	},
	[BACKEND_SAMPLE] = {
		.samples = true,
		.core_sum = sampshow_core_sum,
		.core_text = sampshow_core_text,
		.core_json = sampshow_core_json,
		.end_text = sampshow_end_text,
		.end_json = sampshow_end_json,
		.timeline = sampshow_timeline,
	},
};

/*
 * A backend this reader does not know: nothing decoded or counted, the
 * records shown as records (switches, and any sample the perf.data has).
 */
static const struct dump_backend unknown = {
	.core_text = sampshow_core_text,
	.core_json = sampshow_core_json,
	.end_text = sampshow_end_text,
	.end_json = sampshow_end_json,
	.timeline = sampshow_timeline,
};

const struct dump_backend *dump_backend(enum ptbpf_backend b)
{
	/* every row shows its cores: a value without one has no row */
	if ((unsigned int)b < sizeof(table) / sizeof(table[0]) && table[b].core_text)
		return &table[b];
	return &unknown;
}
