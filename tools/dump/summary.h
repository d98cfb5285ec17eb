/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The health check of a snapshot, `ptbpf-dump DIR`'s default output: the
 * cause, and per core the bytes, whether the ring wrapped, what was lost,
 * and for intel-pt the packets (PSBs, kinds, overflows, first and last TSC
 * as perf time) and whether they decode, for sample the samples of each
 * thread of the target and of everything else. As text, or as JSON with
 * the same content (--json).
 */
#ifndef PTBPF_DUMP_SUMMARY_H
#define PTBPF_DUMP_SUMMARY_H

#include <stdio.h>

#include "symtab.h"
#include "ptpkt.h"
#include "snap.h"
#include "json.h"

#define DUMP_SUM_THREADS 64 /* per-thread sample counts kept per core */

struct dump_core_sum {
	struct dump_pt_stats pt; /* intel-pt */
	bool decodes; /* intel-pt: a PSB, and no packet error */
	uint64_t target_samples, other_samples; /* sample */
	unsigned int nr_threads;
	struct {
		uint32_t tid;
		uint64_t samples;
	} threads[DUMP_SUM_THREADS]; /* the target's, the first ones seen */
	/* --follow: the samples of the run's other processes, per process */
	uint64_t followed_samples;
	unsigned int nr_procs;
	struct {
		uint32_t pid;
		uint64_t samples;
	} procs[DUMP_SUM_THREADS];
};

/*
 * Summarizes core @c of @s into @sum. A trace without a PSB or with packet
 * errors is reported to @log (file, offset, why).
 *
 * Returns 0, or -ENOMEM.
 */
int summary_core(const struct dump_snap *s, const struct dump_core *c, struct dump_core_sum *sum,
		 struct dump_log *log);

/* Samples listed before the cause of a stop or fatal snapshot. */
#define DUMP_SUM_LAST 8

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
