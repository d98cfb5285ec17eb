// SPDX-License-Identifier: GPL-2.0
/*
 * The plan of a per-core trace: scope, backend, attrs, sizes. See
 * coreplan.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "coreplan.h"
#include "errbuf.h"
#include "evattr.h"

static void report(const struct cores_config *cfg, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!cfg->report)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg->report(cfg->report_ctx, msg);
}

int coreplan_round_size(size_t request, size_t page_size, size_t *size)
{
	size_t pages, pow2 = 1;

	if (!request || !page_size || !size)
		return -EINVAL;
	pages = request / page_size + (request % page_size != 0);
	while (pow2 < pages) {
		if (pow2 > ((size_t)-1 / 2) / page_size)
			return -E2BIG;
		pow2 <<= 1;
	}
	*size = pow2 * page_size;
	return 0;
}

/* Human-readable size for messages: "4 MiB", "96 KiB", "100 bytes". */
static const char *human(size_t n, char *buf, size_t len)
{
	if (n >= (1UL << 20) && !(n % (1UL << 20)))
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= 1024 && !(n % 1024))
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu bytes", n);
	return buf;
}

static int pick_scope(struct coreplan *plan, const struct cores_config *cfg, char *err,
		      size_t errlen)
{
	plan->scope = cfg->scope != SCOPE_AUTO ? cfg->scope :
		      cfg->cgroup_fd >= 0      ? SCOPE_CGROUP :
						 SCOPE_CPU;
	plan->pid = -1;
	plan->flags = 0;
	switch (plan->scope) {
	case SCOPE_PROCESS:
		if (!cfg->tids || !cfg->nr_tids || cfg->tids[0] <= 0)
			return errbuf_set(err, errlen, -EINVAL,
					  "process scope needs the target's threads");
		plan->pid = cfg->tids[0];
		return 0;
	case SCOPE_CGROUP:
		if (cfg->cgroup_fd < 0)
			return errbuf_set(err, errlen, -EINVAL, "cgroup scope needs a cgroup");
		/* A cgroup event takes the cgroup fd where a pid would go. */
		plan->pid = cfg->cgroup_fd;
		plan->flags = PERF_FLAG_PID_CGROUP;
		return 0;
	case SCOPE_CPU:
		return 0;
	default:
		return errbuf_set(err, errlen, -EINVAL, "unknown scope");
	}
}

/* The sample event: rate within the kernel's bound, call stacks. */
static int sample_attr(struct coreplan *plan, const struct cores_config *cfg, char *err,
		       size_t errlen)
{
	unsigned int freq;
	int rc;

	if (evattr_sample_freq(cfg->sample_freq, NULL, &freq) > 0)
		report(cfg, "sampling at %u Hz, not %u: kernel.perf_event_max_sample_rate", freq,
		       cfg->sample_freq ? cfg->sample_freq : EVATTR_SAMPLE_FREQ);
	rc = evattr_sample(&plan->data_attr, cfg->kernel, !cfg->start_running, freq);
	if (!rc)
		rc = evattr_sample_callgraph(&plan->data_attr, cfg->call_graph, cfg->stack_size,
					     cfg->kernel);
	if (rc)
		return errbuf_set(err, errlen, rc, "--call-graph: %s",
				  rc == -EOPNOTSUPP ? "dwarf is not known on this architecture" :
						      "invalid stack size");
	return 0;
}

/* Choose the backend; for intel-pt, read the PMU and build the attr. */
static int pick_backend(struct coreplan *plan, const struct cores_config *cfg, size_t *psb,
			char *err, size_t errlen)
{
	int rc;

	*psb = 0;
	if (cfg->backend != BACKEND_SAMPLE) {
		rc = pmu_intel_pt_probe(cfg->sysfs_root, &plan->pmu, err, errlen);
		if (!rc) {
			plan->backend = BACKEND_INTEL_PT;
			report(cfg, "backend: intel-pt");
			return pmu_intel_pt_attr(&plan->pmu, cfg->kernel, !cfg->start_running,
						 &plan->data_attr, psb, err, errlen);
		}
		if (rc != -ENOENT || cfg->backend == BACKEND_INTEL_PT) {
			if (rc == -ENOENT && err && errlen)
				snprintf(err, errlen,
					 "backend intel-pt: no Intel PT PMU: "
					 "%s not found (use --backend sample)",
					 plan->pmu.path);
			return rc;
		}
		report(cfg, "backend: sample (no Intel PT PMU at %s)", plan->pmu.path);
	}
	plan->backend = BACKEND_SAMPLE;
	return sample_attr(plan, cfg, err, errlen);
}

/*
 * Process scope: the events follow the threads the target creates
 * (inherit), but not the processes it forks (inherit_thread: the kernel
 * copies them only for CLONE_THREAD), unless --follow asks for those too.
 * Inherited events write into the parent event's ring, so one ring per
 * CPU still holds every thread.
 */
static void scope_attrs(struct coreplan *plan, const struct cores_config *cfg)
{
	if (plan->scope != SCOPE_PROCESS)
		return;
	/*
	 * Task-bound sampling events too, as perf record -p opens them: no
	 * timer runs on a CPU where the target does not (per-CPU events
	 * behind a BPF filter made every process there pay the interrupts).
	 */
	plan->sb_attr.inherit = 1;
	plan->sb_attr.inherit_thread = !cfg->follow;
	plan->data_attr.inherit = 1;
	plan->data_attr.inherit_thread = !cfg->follow;
	if (cfg->enable_on_exec) {
		/* the leader only: siblings follow it in and out */
		plan->data_attr.disabled = 1;
		plan->data_attr.enable_on_exec = 1;
		plan->sb_attr.disabled = 0;
	}
}

static int pick_sizes(struct coreplan *plan, const struct cores_config *cfg, size_t psb,
		      unsigned int nr_cpus, char *err, size_t errlen)
{
	size_t req = cfg->buffer_size ? cfg->buffer_size : CORES_DEFAULT_BUFFER;
	__u64 limit = cfg->total_limit ? cfg->total_limit : CORES_DEFAULT_TOTAL_LIMIT;
	char buf_str[32], psb_str[32];
	__u64 total;

	if (coreplan_round_size(req, plan->page_size, &plan->buf_size) ||
	    coreplan_round_size(cfg->sideband_size ? cfg->sideband_size : CORES_DEFAULT_SIDEBAND,
				plan->page_size, &plan->sb_size))
		return errbuf_set(err, errlen, -EINVAL, "buffer size %zu is not usable", req);
	if (plan->buf_size != req)
		report(cfg, "per-core buffer size %zu rounded up to %s (%zu pages)", req,
		       human(plan->buf_size, buf_str, sizeof(buf_str)),
		       plan->buf_size / plan->page_size);
	if (plan->buf_size < psb)
		return errbuf_set(err, errlen, -EINVAL,
				  "a per-core buffer of %s can't hold one PSB "
				  "period (%s): raise --buffer-size to at least %s",
				  human(plan->buf_size, buf_str, sizeof(buf_str)),
				  human(psb, psb_str, sizeof(psb_str)), psb_str);
	plan->rec_size =
		plan->backend == BACKEND_INTEL_PT ? CORES_PT_RECORD_PAGES * plan->page_size : 0;
	/* what each core maps: two rings' metadata pages and data, the AUX area */
	total = (__u64)nr_cpus *
		(plan->buf_size + plan->sb_size + plan->rec_size + 2 * plan->page_size);
	if (total > limit)
		return errbuf_set(err, errlen, -E2BIG,
				  "buffers of %u cores need %llu MiB, more than the "
				  "limit of %llu MiB: lower --buffer-size (now %s) "
				  "or trace fewer CPUs with --cpus",
				  nr_cpus, (unsigned long long)(total >> 20),
				  (unsigned long long)(limit >> 20),
				  human(plan->buf_size, buf_str, sizeof(buf_str)));
	return 0;
}

int coreplan_make(const struct cores_config *cfg, size_t page_size, unsigned int nr_online,
		  struct coreplan *plan, char *err, size_t errlen)
{
	size_t psb;
	int rc;

	if (!cfg || !plan || !page_size)
		return -EINVAL;
	memset(plan, 0, sizeof(*plan));
	plan->page_size = page_size;
	rc = pick_scope(plan, cfg, err, errlen);
	if (!rc)
		rc = pick_backend(plan, cfg, &psb, err, errlen);
	if (!rc)
		rc = evattr_sideband(&plan->sb_attr, plan->backend, !cfg->start_running);
	if (!rc)
		scope_attrs(plan, cfg);
	if (!rc)
		rc = pick_sizes(plan, cfg, psb, nr_online, err, errlen);
	return rc;
}

bool coreplan_starts_running(const struct coreplan *plan, const struct cores_config *cfg)
{
	return cfg->start_running || (plan->scope == SCOPE_PROCESS && cfg->enable_on_exec);
}
