// SPDX-License-Identifier: GPL-2.0
/* The backends as the reader sees them: one row each. See dumpbe.h. */
#include "dumpbe.h"
#include "summary.h"
#include "timeline.h"

static const struct dump_backend table[] = {
	[BACKEND_INTEL_PT] = {
		.aux = true,
		.core_sum = summary_pt_core,
		.core_text = summary_pt_text,
		.core_json = summary_pt_json,
		.end_text = summary_pt_end_text,
		.end_json = summary_pt_end_json,
		.timeline = timeline_pt,
	},
	[BACKEND_SAMPLE] = {
		.samples = true,
		.core_sum = summary_sample_core,
		.core_text = summary_sample_text,
		.core_json = summary_sample_json,
		.end_text = summary_sample_end_text,
		.end_json = summary_sample_end_json,
		.timeline = timeline_samples,
	},
};

/*
 * A backend this reader does not know: nothing decoded or counted, the
 * records shown as records (switches, and any sample the perf.data has).
 */
static const struct dump_backend unknown = {
	.core_text = summary_sample_text,
	.core_json = summary_sample_json,
	.end_text = summary_sample_end_text,
	.end_json = summary_sample_end_json,
	.timeline = timeline_samples,
};

const struct dump_backend *dump_backend(enum ptbpf_backend b)
{
	if ((unsigned int)b < sizeof(table) / sizeof(table[0]) && table[b].core_sum)
		return &table[b];
	return &unknown;
}
