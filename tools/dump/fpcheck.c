// SPDX-License-Identifier: GPL-2.0
/* Broken frame-pointer chains: see fpcheck.h. */
#include <inttypes.h>

#include "fpcheck.h"
#include "last.h"
#include "perfread.h"

void fpcheck_count(const struct dump_snap *s, const struct dump_symtab *tab, uint64_t *broken,
		   uint64_t *total)
{
	uint64_t ips[DUMP_STACK_MAX], off;
	const struct dump_sample *smp;
	unsigned int c;
	size_t i, k, n;

	*broken = *total = 0;
	for (c = 0; c < s->nr_cores; c++) {
		for (i = 0; i < s->cores[c].nr_samples; i++) {
			smp = &s->cores[c].samples[i];
			/* a DWARF sample's chain is unwound, not walked */
			if (smp->pid != s->pid || !smp->chain || smp->regs)
				continue;
			n = perfread_sample_stack(smp, ips, DUMP_STACK_MAX);
			(*total)++;
			for (k = 1; k < n; k++)
				if (!symtab_find(tab, ips[k], &off)) {
					(*broken)++;
					break;
				}
		}
	}
}

void fpcheck_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab)
{
	uint64_t broken, total;

	fpcheck_count(s, tab, &broken, &total);
	if (!broken)
		return;
	fprintf(out,
		"  note: %" PRIu64 " of %" PRIu64 " frame-pointer call chains run through code "
		"without frame pointers (a caller outside every function); "
		"record with --call-graph dwarf to unwind it\n",
		broken, total);
}
