/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sample rate of one run, between the options and the cores: what it
 * is picked from (the options, and a traced CPU to measure a sample's cost
 * on), the rate the cores open with and the one the kernel took, and while
 * the run goes on each re-check's rate applied to the cores. The measuring
 * and the picking are sampling.h's.
 *
 * Intel PT takes no sampling interrupts: for it nothing is measured, the
 * cores open with -F's value (unused) and nothing is re-checked.
 *
 *	runrate_begin(&r, &opts, err, len);	at setup, measures meanwhile
 *	runrate_pick(&r, report, ctx, err, len);
 *	cc.sample_freq = runrate_hz(&r); cores_open(&cc, ...);
 *	runrate_opened(&r, cores);		r.said: the start event's
 *	runrate_watch(&r, scope);
 *	runrate_tick(&r, cores, &old);		from the event loop
 *	runrate_stop(&r);
 *
 * Errors: -errno with one line in the caller's buffer.
 */
#ifndef PTBPF_RUNRATE_H
#define PTBPF_RUNRATE_H

#include <stdbool.h>
#include <stddef.h>

#include "cores.h"
#include "sampling.h"
#include "base/snapshot.h"

/* What the rate is picked from: the options as given. */
struct runrate_opts {
	enum ptbpf_backend backend; /* as asked: AUTO picks intel-pt when it exists */
	bool kernel;
	enum ptbpf_callgraph call_graph;
	unsigned int stack_size; /* --call-graph dwarf,SIZE; 0: the default */
	unsigned int freq; /* -F; 0: the --overhead budget picks it */
	double overhead_pct; /* --overhead; 0: the default budget */
	const int *cpus; /* --cpus; NULL: every CPU */
	int verbosity; /* 1 (-v): a re-check that keeps the rate is said */
};

struct runrate {
	struct sampling s;
	struct sampling_req req; /* what runrate_begin() made of the options */
	int verbosity;
	/* what the run says of it (start event, ptbpf.json, rate events) */
	struct snap_sampling said;
};

/*
 * Starts measuring a sample's cost for @o in the background, on a traced
 * CPU (the first of --cpus, else the one ptbpf runs on), while the rest of
 * the setup goes on. Returns 0, or -EINVAL with the line in @err for a
 * --call-graph the attr can't have.
 */
int runrate_begin(struct runrate *r, const struct runrate_opts *o, char *err, size_t errlen);

/*
 * Waits for the measurement and picks the rate (within --overhead, or -F
 * and what it costs); a lowered rate or a failed measurement is said to
 * @report (with @ctx). Returns 0 or what sampling_start() returns.
 */
int runrate_pick(struct runrate *r, cores_report_fn report, void *ctx, char *err, size_t errlen);

/* The rate the cores open with: the one picked, else -F's. */
unsigned int runrate_hz(const struct runrate *r);

/*
 * The cores are open: r->said holds how they sample and the rate the
 * kernel took after all (its bound may have dropped meanwhile).
 */
void runrate_opened(struct runrate *r, const struct cores *cores);

/*
 * "4000 Hz, 1.2 us a sample, 0.5 %" for the start line into @buf. Returns
 * false (and nothing in @buf) when the backend does not sample.
 */
bool runrate_summary(const struct runrate *r, char *buf, size_t len);

/*
 * The run has started: where a budget picked the rate, the cost is
 * measured again every PTBPF_RATE_RECHECK_MS (the tests shorten it; unset:
 * SAMPLING_RECHECK_NS) on a thread of its own. Not in cpu @scope: there
 * ptbpf's own spin would be recorded. A thread that can't start leaves the
 * rate as it was picked.
 */
void runrate_watch(struct runrate *r, enum ptbpf_scope scope);

/* Whether runrate_watch() re-checks: runrate_tick() has work to do. */
bool runrate_watching(const struct runrate *r);

/*
 * On the control thread, between events: a re-check that moved the rate
 * is applied to every data event of @cores. Returns 1 when it was, with
 * the rate before in *@old_hz and the new one in r->said; else 0 (no
 * re-check came in, it kept the rate: said with -v, or the cores refused
 * it: said).
 */
int runrate_tick(struct runrate *r, struct cores *cores, unsigned int *old_hz);

/* Ends the measuring and the re-check, if any: safe on a zeroed @r. */
void runrate_stop(struct runrate *r);

#endif /* PTBPF_RUNRATE_H */
