// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: perf.data (attrs, samples, switches, MMAP2, AUXTRACE) and a
 * bare context-switch stream as in cpus/N.perf_context_switch_trace, then
 * the summary of what was read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "snap.h"
#include "perfread.h"
#include "summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dump_log log = { NULL, 0 };
	struct dump_core_sum sum;
	struct dump_snap s;
	struct dump_core *c;
	uint8_t *copy = malloc(size ? size : 1);
	unsigned int i;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	memset(&s, 0, sizeof(s));
	s.backend = size && data[0] & 1 ? BACKEND_INTEL_PT : BACKEND_SAMPLE;
	/* the snapshot takes the buffer over */
	perfread_parse(&s, copy, size, "perf.data", &log);
	c = snap_find_core(&s, 99);
	if (c)
		perfread_switches(c, data, size, PERF_SAMPLE_TID | PERF_SAMPLE_TIME, "switch",
				  &log);
	for (i = 0; i < s.nr_cores; i++)
		summary_core(&s, &s.cores[i], &sum, &log);
	snap_free(&s);
	return 0;
}
