// SPDX-License-Identifier: GPL-2.0
/* The backends' ops: one row each. See backend.h. */
#include <errno.h>
#include <time.h>

#include "backend.h"
#include "coreplan.h"
#include "base/errbuf.h"
#include "evattr.h"
#include "pmu.h"

/* intel-pt: the PMU as sysfs describes it, and its data event. */
static int pt_data_attr(struct coreplan *plan, const struct cores_config *cfg, size_t *psb,
			char *err, size_t errlen)
{
	int rc = pmu_intel_pt_probe(cfg->sysfs_root, &plan->pmu, err, errlen);

	if (rc == -ENOENT && cfg->backend == BACKEND_AUTO)
		return errbuf_set(err, errlen, rc, "no Intel PT PMU at %s", plan->pmu.path);
	if (rc == -ENOENT)
		return errbuf_set(err, errlen, rc,
				  "backend intel-pt: no Intel PT PMU: %s not found "
				  "(use --backend sample)",
				  plan->pmu.path);
	if (rc)
		return rc;
	coreplan_report(cfg, "backend: intel-pt");
	return pmu_intel_pt_attr(&plan->pmu, cfg->kernel, !cfg->start_running, &plan->data_attr,
				 psb, err, errlen);
}

/* Another error than "not there" still says it is: the run then fails on it. */
static bool pt_present(const char *sysfs_root)
{
	struct pmu_intel_pt pmu;

	return pmu_intel_pt_probe(sysfs_root, &pmu, NULL, 0) != -ENOENT;
}

static int pt_cpu_info(const struct coreplan *plan, struct snap_cpu_info *info)
{
	return pmu_cpu_info(&plan->pmu, &plan->data_attr, info);
}

/* sample: the cpu-clock event, its rate within the kernel's bound, call stacks. */
static int sample_data_attr(struct coreplan *plan, const struct cores_config *cfg, size_t *psb,
			    char *err, size_t errlen)
{
	unsigned int freq;
	int rc;

	*psb = 0;
	if (evattr_sample_freq(cfg->sample_freq, NULL, &freq) > 0)
		coreplan_report(cfg, "sampling at %u Hz, not %u: kernel.perf_event_max_sample_rate",
				freq, cfg->sample_freq ? cfg->sample_freq : EVATTR_SAMPLE_FREQ);
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

static bool always(const char *sysfs_root)
{
	(void)sysfs_root;
	return true;
}

/* In --backend auto's order: intel-pt where the CPU has it. */
static const struct backend_ops table[] = {
	{
		.id = BACKEND_INTEL_PT,
		.perf_event = "intel_pt//",
		.perf_pmu_event = true,
		.aux = true,
		.drain_ns = CORES_DRAIN_NS,
		.tsc = true,
		.clockid = -1,
		.lldb = true,
		.data_attr = pt_data_attr,
		.present = pt_present,
		.cpu_info = pt_cpu_info,
	},
	{
		.id = BACKEND_SAMPLE,
		.perf_event = "cpu-clock",
		.samples = true,
		.clockid = CLOCK_MONOTONIC,
		.data_attr = sample_data_attr,
		.present = always,
	},
};

static const struct backend_ops unresolved = { .id = BACKEND_AUTO, .clockid = -1 };

const struct backend_ops *backend_ops(enum ptbpf_backend b)
{
	unsigned int i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].id == b)
			return &table[i];
	return &unresolved;
}

bool backend_known(enum ptbpf_backend b)
{
	return backend_ops(b) != &unresolved;
}

const struct backend_ops *backend_nth(unsigned int i)
{
	return i < sizeof(table) / sizeof(table[0]) ? &table[i] : NULL;
}

enum ptbpf_backend backend_pick(enum ptbpf_backend asked, const char *sysfs_root)
{
	const struct backend_ops *be;
	unsigned int i;

	if (asked != BACKEND_AUTO)
		return asked;
	for (i = 0; (be = backend_nth(i)); i++)
		if (be->present(sysfs_root))
			return be->id;
	return BACKEND_AUTO;
}
