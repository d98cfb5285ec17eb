// SPDX-License-Identifier: GPL-2.0
/* The backends as the reader sees them: one row each. See dumpbe.h. */
#include "dumpbe.h"

static const struct dump_backend table[] = {
	[BACKEND_INTEL_PT] = {
		.aux = true,
	},
	[BACKEND_SAMPLE] = {
		.samples = true,
	},
};

/* A backend this reader does not know: nothing to decode, no samples. */
static const struct dump_backend unknown;

const struct dump_backend *dump_backend(enum ptbpf_backend b)
{
	if (b != BACKEND_AUTO && (unsigned int)b < sizeof(table) / sizeof(table[0]))
		return &table[b];
	return &unknown;
}
