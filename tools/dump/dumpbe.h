/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the reader asks of a snapshot's backend, in one structure per
 * backend (as the tracer's user/collect/backend.h, and perf's struct auxtrace):
 * the facts the loader and the modes ask ("does the trace decode with
 * libipt?", "are the records samples?"). A new backend is one more row in
 * dumpbe.c's table, and one in each table of the backends' parts of the
 * outputs: summary.c's and timeline.c's. Those parts are not in these
 * rows: rows that named them made this module depend on the outputs, which
 * ask it, as do the modules under them (snap.c, last.c): a circle.
 *
 * dump_backend() never returns NULL: a snapshot whose backend this reader
 * does not know (reported when ptbpf.json is read) gets a row whose facts
 * are all false.
 */
#ifndef PTBPF_DUMP_DUMPBE_H
#define PTBPF_DUMP_DUMPBE_H

#include <stdbool.h>

#include "snapdata.h"

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
};

/* The row of @b; the unknown backend's for BACKEND_AUTO and others. */
const struct dump_backend *dump_backend(enum ptbpf_backend b);

#endif /* PTBPF_DUMP_DUMPBE_H */
