// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: events.jsonl lines into the timeline. */
#include <stdint.h>
#include <stdio.h>

#include "timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dump_log log = { NULL, 0 };
	FILE *null = fopen("/dev/null", "w");
	struct dump_tl tl;

	if (!null)
		return 0;
	timeline_begin(&tl, null);
	timeline_events(&tl, (const char *)data, size, "events.jsonl", &log);
	timeline_end(&tl);
	fclose(null);
	return 0;
}
