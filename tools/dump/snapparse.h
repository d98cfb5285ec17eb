/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot's JSON files into its model (snap.h): ptbpf.json, which says
 * the backend, the cores and the processes, and trace.json, an LLDB
 * bundle's modules and per-CPU files. Untrusted input: what is missing or
 * of the wrong type is reported and left at 0, the rest still read. Whether
 * ptbpf.json carries a PT decoder's configuration is the backend's row's
 * answer (dumpbe.h), so this is above the backends' table, with load.h.
 */
#ifndef PTBPF_DUMP_SNAPPARSE_H
#define PTBPF_DUMP_SNAPPARSE_H

#include <stddef.h>

#include "snap.h"

/*
 * Parses ptbpf.json text @buf of @len bytes into @s (named @file in
 * messages): missing or wrong-typed fields are reported and left at 0.
 *
 * Returns 0, or -EBADMSG if it is not a JSON object (reported), -ENOMEM.
 */
int snap_parse_meta(struct dump_snap *s, const char *buf, size_t len, const char *file,
		    struct dump_log *log);

/* One cpus[] entry of trace.json: the files that hold that CPU's trace. */
struct snap_trace_cpu {
	int cpu;
	char *ipt; /* iptTrace, as written: relative to the snapshot */
	char *sw; /* contextSwitchTrace, the same */
};

/* The usable cpus[] entries of trace.json, in file order. */
struct snap_trace_cpus {
	struct snap_trace_cpu *cpu;
	size_t nr;
};

/*
 * Parses trace.json text @buf of @len bytes: the target's modules (which
 * replace any from perf.data) go into @s; each cpu's iptTrace and
 * contextSwitchTrace paths into @cpus, for the loader to read (an entry
 * without all three fields is reported and left out). The paths are not
 * checked: they are still untrusted.
 *
 * Returns 0 and fills @cpus, to be released with snap_trace_cpus_free().
 * Returns -EINVAL if @cpus is NULL.
 * Returns -EBADMSG if it is not a JSON object (reported).
 * Returns -ENOMEM if memory runs out.
 * @cpus is empty on every error.
 */
int snap_parse_trace_json(struct dump_snap *s, const char *buf, size_t len, const char *file,
			  struct dump_log *log, struct snap_trace_cpus *cpus);

/* Releases what @cpus holds and empties it; NULL is fine. */
void snap_trace_cpus_free(struct snap_trace_cpus *cpus);

#endif /* PTBPF_DUMP_SNAPPARSE_H */
