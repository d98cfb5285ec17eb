// SPDX-License-Identifier: GPL-2.0
/* What the summary and the backends' parts of it share: see sumpart.h. */
#include <inttypes.h>

#include "sumpart.h"

void sumpart_print_ns(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000, ns % 1000000000);
}
