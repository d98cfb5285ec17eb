/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the summary (summary.h) and each backend's part of it (the parts
 * dumpbe.h's rows name) share, below both: one core's counts, which a
 * backend's part fills and then prints, and how the summary writes a perf
 * clock time. Each backend counts into its own members; those of another
 * backend stay 0.
 */
#ifndef PTBPF_DUMP_SUMPART_H
#define PTBPF_DUMP_SUMPART_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ptpkt.h"

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

/* Writes @ns (perf clock) to @out as seconds: "12.345678901 s". */
void sumpart_print_ns(FILE *out, uint64_t ns);

#endif /* PTBPF_DUMP_SUMPART_H */
