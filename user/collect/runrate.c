// SPDX-License-Identifier: GPL-2.0
/* The sample rate of one run, between the options and the cores (runrate.h). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "runrate.h"
#include "base/say.h"
#include "base/status.h"

int runrate_begin(struct runrate *r, const struct runrate_opts *o, char *err, size_t errlen)
{
	struct sampling_req req = {
		.backend = o->backend,
		.kernel = o->kernel,
		.call_graph = o->call_graph,
		.stack_size = o->stack_size,
		.fixed_hz = o->freq,
		.budget_pct = o->overhead_pct,
		/* the cost is the traced CPUs': every CPU is, without --cpus */
		.cpu = o->cpus ? o->cpus[0] : sched_getcpu(),
	};

	memset(r, 0, sizeof(*r));
	r->req = req;
	r->verbosity = o->verbosity;
	return sampling_begin(&r->s, &r->req, err, errlen);
}

int runrate_pick(struct runrate *r, cores_report_fn report, void *ctx, char *err, size_t errlen)
{
	char line[320];
	int ret;

	ret = sampling_start(&r->s, &r->req, err, errlen);
	if (ret)
		return ret;
	sampling_remark(&r->s, line, sizeof(line));
	if (line[0] && report)
		report(ctx, line);
	return 0;
}

unsigned int runrate_hz(const struct runrate *r)
{
	return r->s.on ? r->s.pick.hz : r->req.fixed_hz;
}

void runrate_opened(struct runrate *r, const struct cores *cores)
{
	sampling_describe(&r->s, cores_sampling(cores), &r->said);
	/* what the kernel took for the rate after all (its bound may drop) */
	if (r->s.on)
		r->said.hz = cores_data_attr(cores)->sample_freq;
}

bool runrate_summary(const struct runrate *r, char *buf, size_t len)
{
	if (!r->s.on)
		return false;
	sampling_summary(&r->s, buf, len);
	return true;
}

/* PTBPF_RATE_RECHECK_MS: the re-check's period (the tests shorten it). */
static uint64_t recheck_period(void)
{
	const char *v = getenv("PTBPF_RATE_RECHECK_MS");

	return v && atoll(v) > 0 ? (uint64_t)atoll(v) * 1000000ULL : 0;
}

void runrate_watch(struct runrate *r, enum ptbpf_scope scope)
{
	/* cpu scope records ptbpf's own spin: its cost would be counted */
	if (scope != SCOPE_CPU)
		sampling_watch(&r->s, recheck_period());
}

bool runrate_watching(const struct runrate *r)
{
	return r->s.watcher != NULL;
}

int runrate_tick(struct runrate *r, struct cores *cores, unsigned int *old_hz)
{
	unsigned int old;
	int ret;

	ret = sampling_poll(&r->s, &old);
	if (ret == 2 && r->verbosity > 0)
		say("ptbpf: rate: a sample costs %.1f us now: %u Hz kept\n",
		    r->s.in.sample_ns / 1e3, r->s.pick.hz);
	if (ret != 1)
		return 0;
	if (cores_set_rate(cores, r->s.pick.hz)) {
		/* the error may quote a path: status_say_f() escapes it */
		status_say_f("ptbpf: can't change the sample rate: %s", cores_last_error(cores));
		return 0;
	}
	sampling_describe(&r->s, cores_sampling(cores), &r->said);
	*old_hz = old;
	return 1;
}

void runrate_stop(struct runrate *r)
{
	sampling_stop(&r->s);
}
