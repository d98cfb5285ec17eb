/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the backends for the reader, in one structure per
 * backend (as the tracer's user/collect/backend.h, and perf's struct
 * auxtrace): the facts the loader and the modes ask ("does the trace
 * decode with libipt?", "are the records samples?"), and the backend's own
 * parts of the summary and of the timeline. A new backend is one more row
 * in dumpbe.c's table and the modules of its own that hold its parts
 * (intel-pt's ptshow.c, sample's sampshow.c).
 *
 * The modules depend one way: what asks the rows (the modes: summary.c,
 * timeline.c, lastjoin.c; the loading: load.c, snapparse.c) is above this
 * table, the backends' parts below it, and what those use (the model
 * snap.c, last.c, insn.c, symtab.c, and what the outputs share with them:
 * sumpart.h, tlout.h) below those; nothing below asks the rows.
 *
 * dump_backend() never returns NULL: a snapshot whose backend this reader
 * does not know (reported when ptbpf.json is read) gets a row that shows
 * what its records say and decodes nothing.
 */
#ifndef PTBPF_DUMP_DUMPBE_H
#define PTBPF_DUMP_DUMPBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "snapdata.h"

struct dump_snap;
struct dump_core;
struct dump_core_sum;
struct dump_log;
struct dump_symtab;
struct json;
struct pt_image;
struct tl_writer;

struct dump_backend {
	/*
	 * The trace is an AUX byte stream that libipt decodes: --insn and
	 * --timeline need PT's image of the modules, --packets has packets,
	 * ptbpf.json carries the decoder's attr.config and ptxed, the bytes
	 * it promises are checked against the trace files, and trace.json
	 * (an LLDB bundle) may stand for perf.data. --last has nothing to
	 * join there.
	 */
	bool aux;
	/*
	 * The records are samples: the summary names their functions and the
	 * followed processes' summaries count them.
	 */
	bool samples;
	/*
	 * Core @c's summary into @sum (zeroed); 0 or -ENOMEM. NULL: nothing
	 * to count.
	 */
	int (*core_sum)(const struct dump_snap *s, const struct dump_core *c,
			struct dump_core_sum *sum, struct dump_log *log);
	/*
	 * The summary's lines (members) of one core from @sum, widening the
	 * snapshot's span [*@first, *@last] where the trace has times.
	 */
	void (*core_text)(FILE *out, const struct dump_snap *s, const struct dump_core_sum *sum,
			  uint64_t *first, uint64_t *last);
	void (*core_json)(struct json *j, const struct dump_snap *s,
			  const struct dump_core_sum *sum, uint64_t *first, uint64_t *last);
	/* After the cores, with their span; 0 or -ENOMEM */
	int (*end_text)(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
			uint64_t first, uint64_t last);
	int (*end_json)(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
			uint64_t first, uint64_t last);
	/*
	 * The trace's events on the timeline's tracks of @w, after the
	 * processes, the snapshot's facts and the CPU tracks (@image: when
	 * aux); 0 or -errno, decoding errors to @log.
	 */
	int (*timeline)(struct tl_writer *w, const struct dump_snap *s, struct pt_image *image,
			const struct dump_symtab *tab, struct dump_log *log);
};

/* The row of @b; the unknown backend's for BACKEND_AUTO and others. */
const struct dump_backend *dump_backend(enum ptbpf_backend b);

#endif /* PTBPF_DUMP_DUMPBE_H */
