/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frame-pointer chains that ran through code without frame pointers: the
 * kernel walks %rbp, and a function that uses it for something else sends
 * the walk into data, so a caller's "return address" lands outside every
 * function (a raw address, or a module's offset past its symbols). Such
 * chains are counted, for the summary to say that --call-graph dwarf
 * unwinds that code.
 */
#ifndef PTBPF_DUMP_FPCHECK_H
#define PTBPF_DUMP_FPCHECK_H

#include <stdint.h>
#include <stdio.h>

#include "snap.h"
#include "symtab.h"

/*
 * Of @s's target samples with a frame-pointer chain (*@total), those with
 * a caller outside every function (*@broken).
 */
void fpcheck_count(const struct dump_snap *s, const struct dump_symtab *tab, uint64_t *broken,
		   uint64_t *total);

/* The summary's note when some chain is broken; nothing otherwise. */
void fpcheck_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab);

#endif /* PTBPF_DUMP_FPCHECK_H */
