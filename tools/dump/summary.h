/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The health check of a snapshot, `ptbpf-dump DIR`'s default output: the
 * cause, and per core the bytes, whether the ring wrapped, what was lost,
 * and for intel-pt the packets (PSBs, kinds, overflows, first and last TSC
 * as perf time) and whether they decode, for sample the samples of each
 * thread of the target and of everything else. As text, or as JSON with
 * the same content (--json). What differs by backend is each backend's
 * part, named by its row (dumpbe.h); a backend the reader does not know
 * gets the row that shows its records and counts nothing.
 */
#ifndef PTBPF_DUMP_SUMMARY_H
#define PTBPF_DUMP_SUMMARY_H

#include <stdio.h>

#include "symtab.h"
#include "snap.h"
#include "sumpart.h"
#include "json.h"

/*
 * Summarizes core @c of @s into @sum (zeroed first) by the part of @s's
 * backend: for intel-pt a trace without a PSB or with packet errors is
 * reported to @log (file, offset, why).
 *
 * Returns 0, or -ENOMEM.
 */
int summary_core(const struct dump_snap *s, const struct dump_core *c, struct dump_core_sum *sum,
		 struct dump_log *log);

/*
 * Prints the summary of @s to @out as text: per core as above, then the
 * time span of its records, and for the sample backend the target's
 * hottest functions and last samples before a stop or fatal cause, named
 * from @tab (may be NULL: addresses only).
 *
 * Returns 0, or -ENOMEM.
 */
int summary_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
		 struct dump_log *log);

/*
 * Adds the summary of @s to @j as one object (@j must be inside an array
 * or at the top level), with the same content as the text.
 *
 * Returns 0, or -ENOMEM.
 */
int summary_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
		 struct dump_log *log);

#endif /* PTBPF_DUMP_SUMMARY_H */
