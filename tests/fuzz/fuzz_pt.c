// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the PT decode entries: the packet scan and listing, and the
 * instruction walk over an image holding this binary's code (so that
 * garbage TIPs sometimes land on real instructions), split by switches.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "insn.h"
#include "ptpkt.h"
#include "timeline.h"

static struct pt_image *image;
static struct dump_symtab tab;

static void setup(struct dump_snap *s)
{
	static struct dump_module self = { "/proc/self/exe", 0 };
	struct dump_log log = { NULL, 0 };

	image = pt_image_alloc(NULL);
	/* the load address is unknown here: 0 still gives a valid image */
	s->modules = &self;
	s->nr_modules = 1;
	symtab_load(&tab, s, image, &log);
	s->modules = NULL;
	s->nr_modules = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct dump_switch sw[] = {
		{ .time = 0, .pid = 1, .tid = 1 },
		{ .time = 5000, .pid = 2, .tid = 2, .out = true },
		{ .time = 9000, .pid = 1, .tid = 3 },
	};
	struct dump_log log = { NULL, 0 };
	struct dump_snap s = { .pid = 1, .backend = BACKEND_INTEL_PT };
	struct dump_core c = { .trace = data, .trace_len = size };
	FILE *null = fopen("/dev/null", "w");
	struct dump_tl tl;

	if (!null)
		return 0;
	if (!image)
		setup(&s);
	c.sw = (struct dump_switch *)sw;
	c.nr_sw = 3;
	s.cores = &c;
	s.nr_cores = 1;
	s.conv.valid = size & 1;
	s.conv.time_mult = 3;
	s.conv.time_shift = 1;
	ptpkt_print(null, &s, &c, &log);
	insn_print(null, &s, &c, image, &tab, &log);
	timeline_begin(&tl, null);
	timeline_snapshot(&tl, &s, image, &tab, &log);
	timeline_end(&tl);
	fclose(null);
	return 0;
}
