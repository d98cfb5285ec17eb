/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the tracer's backends, in one structure per backend
 * (perf keeps its struct auxtrace per AUX PMU the same way): the facts the
 * rest of the tracer asks ("is the trace an AUX area?", "are the records
 * samples?", "does LLDB read it?") and the few steps that are the
 * backend's own (building the data event's attr, whether the machine has
 * it, the private words of perf.data's AUXTRACE_INFO), which live in the
 * backend's own modules (ptbe.c, samplebe.c). The modules that plan,
 * open, read, cut and write the cores ask these, never the backend's
 * name: a new backend is one more row in backend.c's table, the modules
 * its steps are in, its value and name in the shared format (snapdata.h,
 * snapfmt.c) and its row in the reader's table (tools/dump/dumpbe.c).
 *
 * backend_ops() never returns NULL: a backend not resolved yet
 * (BACKEND_AUTO, or a value out of range) gets a row whose facts are all
 * false and whose functions are NULL, so a question about it reads "no".
 */
#ifndef PTBPF_BACKEND_H
#define PTBPF_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "snapdata.h"

struct cores_config;
struct snap_run;

struct backend_ops {
	enum ptbpf_backend id; /* its name: snapfmt_backend_name() */
	/*
	 * The data event in perf.data's EVENT_DESC, as perf record names it:
	 * "intel_pt//" takes its modifiers as a PMU event does ("intel_pt//u"),
	 * a named event after a colon ("cpu-clock:u").
	 */
	const char *perf_event;
	bool perf_pmu_event;
	/*
	 * The trace is the data event's AUX area (mapped read-only), and its
	 * data ring, of @rec_pages pages, holds only the event's own records
	 * (ITRACE_START, AUX, LOST): drained every drain_ns, cut by the
	 * kernel at --trigger-on hits where it can (auxact.h), written to
	 * perf.data as AUXTRACE_INFO and one AUXTRACE per core. false: the
	 * data ring is the trace.
	 */
	bool aux;
	unsigned int rec_pages; /* 0: no records ring beside the trace */
	uint64_t drain_ns; /* 0: no records ring to drain */
	/*
	 * With @aux: perf.data's PERF_RECORD_AUXTRACE_INFO, the AUX format's
	 * type (perf's enum auxtrace_type) and its private words for @run
	 * into @priv (@max words): the number written, or -ENOSPC when @max
	 * is too small.
	 */
	__u32 auxtrace_type;
	int (*auxtrace_priv)(const struct snap_run *run, __u64 *priv, size_t max);
	/*
	 * The records are samples: a rate and its cost apply (sampling.h), and
	 * a --trigger-on snapshot is cut at the hit by time when written
	 * (snapcut.h).
	 */
	bool samples;
	/*
	 * Its timestamps are TSC values in the perf clock (the mmap page's
	 * conversion); "now" is read with rdtsc. Else they are @clockid's.
	 */
	bool tsc;
	/* The data event's use_clockid clock, which the sideband shares; -1: none */
	int clockid;
	/* LLDB's trace bundle (trace.json, cpus/) and ptxed read this trace */
	bool lldb;
	/* data_attr fills the backend's part of the run's snap_cpu_info */
	bool cpu_info;
	/*
	 * Build the data event's attr for @cfg into @attr, the least per-core
	 * buffer into *@psb (0: any), and with @cpu_info the backend's part
	 * of @info. Returns -ENOENT when this machine lacks what the backend
	 * records with, with the reason in @err (for a run that asked for it,
	 * a line to print; for --backend auto, why it was passed over), else
	 * 0 or another -errno with its line in @err.
	 */
	int (*data_attr)(const struct cores_config *cfg, struct perf_event_attr *attr, size_t *psb,
			 struct snap_cpu_info *info, char *err, size_t errlen);
	/* Whether this machine has it: what --backend auto asks, in table order */
	bool (*present)(const char *sysfs_root);
};

/* The ops of @b; the unresolved row for BACKEND_AUTO and unknown values. */
const struct backend_ops *backend_ops(enum ptbpf_backend b);

/* Whether @b is a backend that records (not AUTO, not out of range). */
bool backend_known(enum ptbpf_backend b);

/*
 * The backends in the order --backend auto tries them (the first present
 * wins); NULL past the last.
 */
const struct backend_ops *backend_nth(unsigned int i);

/*
 * @asked, or for BACKEND_AUTO the first backend that is present under
 * @sysfs_root (NULL: "/sys").
 */
enum ptbpf_backend backend_pick(enum ptbpf_backend asked, const char *sysfs_root);

#endif /* PTBPF_BACKEND_H */
