/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sample backend's rate for a run: a sample's cost measured at start
 * (sampcost.h), the rate picked from it within --overhead or as -F fixes
 * it (samprate.h), what the start line and event say of it, and while the
 * run goes on a calibration again from time to time that moves the rate
 * when the cost moved (each change a `rate` event).
 *
 * Intel PT takes no sampling interrupts: none of this applies to it.
 *
 * Errors: -errno with one line in the caller's buffer.
 */
#ifndef PTBPF_SAMPLING_H
#define PTBPF_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <linux/types.h>

#include "sampcost.h"
#include "samprate.h"
#include "base/snapshot.h"

/* How often the cost is measured again while the run goes on. */
#define SAMPLING_RECHECK_NS (30ULL * 1000000000ULL)

struct sampling_req {
	enum ptbpf_backend backend; /* as asked: AUTO picks intel-pt when it exists */
	const char *sysfs_root; /* NULL: "/sys" */
	bool kernel;
	enum ptbpf_callgraph call_graph;
	__u32 stack_size;
	unsigned int fixed_hz; /* -F; 0: the budget */
	double budget_pct; /* --overhead; 0: SAMPRATE_DEFAULT_PCT */
	int cpu; /* where to calibrate: a traced CPU; -1: anywhere */
	const char *proc_sys; /* NULL: "/proc/sys" */
};

struct sampling {
	bool on; /* the sample backend records */
	struct samprate_in in;
	struct samprate pick;
	struct sampcost cost;
	bool measured; /* the calibration worked */
	char note[256]; /* why it did not, for the start line */
	struct perf_event_attr attr; /* what the calibration samples with */
	int cpu;
	const char *proc_sys;
	struct sampcost_job *job; /* sampling_begin()'s, until it is waited for */
	bool begun;
	/* sampling_watch(): the re-check's thread and what it found */
	struct sampling_watcher *watcher;
};

/*
 * Start measuring a sample's cost for @req in the background (while the
 * rest of the setup goes on); sampling_start() then waits for it. Nothing
 * for intel-pt. Returns 0, or -EINVAL with the line in @err for a bad attr.
 */
int sampling_begin(struct sampling *s, const struct sampling_req *req, char *err, size_t errlen);

/*
 * Decide the rate for @req into @s (calibrating first, or waiting for what
 * sampling_begin() started). For intel-pt
 * s->on is false and nothing is measured. A failed calibration is not an
 * error: the rate is then SAMPRATE_FALLBACK_HZ (or -F) and s->note says
 * why. Returns 0, or -EINVAL with the line in @err for a bad attr.
 */
int sampling_start(struct sampling *s, const struct sampling_req *req, char *err, size_t errlen);

/*
 * The line to say at start ("" when nothing to say) into @buf: a lowered
 * rate, or a calibration that failed.
 */
void sampling_remark(const struct sampling *s, char *buf, size_t len);

/*
 * "4000 Hz, 1.2 us a sample, 0.5 %" for the start line, into @buf.
 */
void sampling_summary(const struct sampling *s, char *buf, size_t len);

/*
 * While the run goes on: a thread of its own measures the cost again every
 * @period_ns (0: SAMPLING_RECHECK_NS), only where a budget picked the rate
 * (not with -F). Nothing else runs on it: the control thread asks with
 * sampling_poll(). Returns 0, or -errno of pthread_create.
 */
int sampling_watch(struct sampling *s, uint64_t period_ns);

/*
 * On the control thread: when a measurement came in since the last call
 * and it moves the rate (samprate_recheck()), returns 1 with the new pick
 * in s->pick and the rate before in *@old_hz; the caller applies it
 * (cores_set_rate()); 2 when one came in that leaves the rate as it is;
 * else 0.
 */
int sampling_poll(struct sampling *s, unsigned int *old_hz);

/* Ends the thread of sampling_watch(), if any. */
void sampling_stop(struct sampling *s);

/* What @s chose, with @how (cores_sampling()), into @out. */
void sampling_describe(const struct sampling *s, const char *how, struct snap_sampling *out);

struct json;
/* @sp's fields into the open object @j (start event, ptbpf.json). */
void sampling_json(const struct snap_sampling *sp, struct json *j);

#endif /* PTBPF_SAMPLING_H */
