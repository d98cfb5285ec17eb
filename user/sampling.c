// SPDX-License-Identifier: GPL-2.0
/*
 * The sample backend's rate for a run. See sampling.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "evattr.h"
#include "json.h"
#include "pmu.h"
#include "sampling.h"

/* intel-pt when asked, or when auto finds its PMU */
static bool samples(const struct sampling_req *req)
{
	struct pmu_intel_pt pmu;

	if (req->backend == BACKEND_SAMPLE)
		return true;
	if (req->backend == BACKEND_INTEL_PT)
		return false;
	return pmu_intel_pt_probe(req->sysfs_root, &pmu, NULL, 0) == -ENOENT;
}

static void read_limits(struct sampling *s)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/kernel/perf_event_max_sample_rate", s->proc_sys);
	if (samprate_read_sysctl(path, &s->in.max_rate))
		s->in.max_rate = 0;
	snprintf(path, sizeof(path), "%s/kernel/perf_cpu_time_max_percent", s->proc_sys);
	/* 0 there means no limit: sustain up to the whole CPU */
	if (samprate_read_sysctl(path, &s->in.max_cpu_pct))
		s->in.max_cpu_pct = 0;
	else if (!s->in.max_cpu_pct || s->in.max_cpu_pct > 100)
		s->in.max_cpu_pct = 100;
}

static int measure(struct sampling *s)
{
	unsigned int max = s->in.max_rate ? s->in.max_rate : 100000;
	char why[160];
	int rc;

	rc = sampcost_measure(&s->attr, s->cpu, max, 0, &s->cost, why, sizeof(why));
	s->measured = !rc;
	if (rc)
		snprintf(s->note, sizeof(s->note), "a sample's cost could not be measured (%s)",
			 why);
	return rc;
}

int sampling_start(struct sampling *s, const struct sampling_req *req, char *err, size_t errlen)
{
	int rc;

	if (!s || !req)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->on = samples(req);
	if (!s->on)
		return 0;
	s->cpu = req->cpu;
	s->proc_sys = req->proc_sys ? req->proc_sys : "/proc/sys";
	rc = evattr_sample(&s->attr, req->kernel, true, EVATTR_SAMPLE_FREQ);
	if (!rc)
		rc = evattr_sample_callgraph(&s->attr, req->call_graph, req->stack_size,
					     req->kernel);
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "--call-graph: %s",
				 rc == -EOPNOTSUPP ? "dwarf is not known on this architecture" :
						     "invalid stack size");
		return rc;
	}
	read_limits(s);
	s->in.fixed_hz = req->fixed_hz;
	s->in.budget_pct = req->budget_pct > 0 ? req->budget_pct : SAMPRATE_DEFAULT_PCT;
	if (!measure(s))
		s->in.sample_ns = s->cost.sample_ns;
	/* the kernel may have lowered its bound while we sampled */
	read_limits(s);
	samprate_pick(&s->in, &s->pick);
	if (!s->in.fixed_hz && s->measured)
		s->next_check_ns = clock_now_ns() + SAMPLING_RECHECK_NS;
	return 0;
}

void sampling_remark(const struct sampling *s, char *buf, size_t len)
{
	if (!buf || !len)
		return;
	buf[0] = '\0';
	if (!s || !s->on)
		return;
	if (s->pick.line[0])
		snprintf(buf, len, "%s", s->pick.line);
	else if (s->note[0])
		snprintf(buf, len, "%s: sampling at %u Hz", s->note, s->pick.hz);
}

void sampling_summary(const struct sampling *s, char *buf, size_t len)
{
	if (!buf || !len)
		return;
	buf[0] = '\0';
	if (!s || !s->on)
		return;
	if (!s->measured)
		snprintf(buf, len, "sampling %u Hz (cost unknown)", s->pick.hz);
	else if (!s->in.sample_ns)
		snprintf(buf, len, "sampling %u Hz (a sample's cost too small to measure)",
			 s->pick.hz);
	else
		snprintf(buf, len, "sampling %u Hz, %.1f us a sample: %.2f %% of the target's time%s",
			 s->pick.hz, s->in.sample_ns / 1e3, s->pick.cost_pct,
			 s->in.fixed_hz ? "" : " (--overhead)");
}

int sampling_recheck(struct sampling *s, __u64 now_ns, unsigned int *old_hz)
{
	struct samprate next;

	if (!s || !s->on || !s->next_check_ns || now_ns < s->next_check_ns)
		return 0;
	s->next_check_ns = now_ns + SAMPLING_RECHECK_NS;
	read_limits(s);
	if (measure(s))
		return 0;
	s->in.sample_ns = s->cost.sample_ns;
	if (!samprate_recheck(&s->in, s->pick.hz, &next)) {
		s->pick.cost_pct = s->in.sample_ns ? s->in.sample_ns * (double)s->pick.hz / 1e7 : -1;
		return 0;
	}
	if (old_hz)
		*old_hz = s->pick.hz;
	s->pick = next;
	return 1;
}

void sampling_describe(const struct sampling *s, const char *how, struct snap_sampling *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!s || !s->on)
		return;
	out->how = how;
	out->hz = s->pick.hz;
	out->why = s->pick.why;
	out->sample_ns = s->in.sample_ns;
	out->cost_pct = s->measured && s->in.sample_ns ? s->pick.cost_pct : -1;
	out->budget_pct = s->in.fixed_hz ? 0 : s->in.budget_pct;
}

void sampling_json(const struct snap_sampling *sp, struct json *j)
{
	if (!sp || !sp->how || !j)
		return;
	json_str(j, "sampling", sp->how);
	json_u64(j, "rate_hz", sp->hz);
	if (sp->why)
		json_str(j, "rate", sp->why);
	json_u64(j, "sample_cost_ns", sp->sample_ns);
	if (sp->cost_pct >= 0)
		json_double(j, "cost_pct", sp->cost_pct);
	if (sp->budget_pct > 0)
		json_double(j, "overhead_pct", sp->budget_pct);
}
