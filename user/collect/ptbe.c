// SPDX-License-Identifier: GPL-2.0
/* The intel-pt backend's own steps. See ptbe.h. */
#include <errno.h>

#include "base/errbuf.h"
#include "perfrec.h"
#include "pmu.h"
#include "ptbe.h"

int ptbe_data_attr(const struct cores_config *cfg, struct perf_event_attr *attr, size_t *psb,
		   struct snap_cpu_info *info, char *err, size_t errlen)
{
	struct pmu_intel_pt pmu;
	int rc;

	if (!cfg || !attr || !psb || !info)
		return -EINVAL;
	rc = pmu_intel_pt_probe(cfg->sysfs_root, &pmu, err, errlen);
	if (rc == -ENOENT && cfg->backend == BACKEND_AUTO)
		return errbuf_set(err, errlen, rc, "no Intel PT PMU at %s", pmu.path);
	if (rc == -ENOENT)
		return errbuf_set(err, errlen, rc,
				  "backend intel-pt: no Intel PT PMU: %s not found "
				  "(use --backend sample)",
				  pmu.path);
	if (rc)
		return rc;
	corecfg_report(cfg, "backend: intel-pt");
	rc = pmu_intel_pt_attr(&pmu, cfg->kernel, !cfg->start_running, attr, psb, err, errlen);
	/* read now, while the PMU is at hand: the plan keeps no PMU of its own */
	return rc ? rc : pmu_cpu_info(&pmu, attr, info);
}

bool ptbe_present(const char *sysfs_root)
{
	struct pmu_intel_pt pmu;

	return pmu_intel_pt_probe(sysfs_root, &pmu, NULL, 0) != -ENOENT;
}

/* sysfs' mask of a config field, else the RTIT_CTL layout's */
static __u64 mask_or(__u64 sysfs, __u64 layout)
{
	return sysfs ? sysfs : layout;
}

int ptbe_auxtrace_priv(const struct snap_run *run, __u64 *priv, size_t max)
{
	const struct snap_cpu_info *ci;

	if (!run || !priv)
		return -EINVAL;
	if (max < PERFREC_PT_PRIV_NR)
		return -ENOSPC;
	ci = &run->cpu_info;
	priv[PERFREC_PT_PMU_TYPE] = run->data_attr.type;
	priv[PERFREC_PT_TIME_SHIFT] = run->conv.time_shift;
	priv[PERFREC_PT_TIME_MULT] = run->conv.time_mult;
	priv[PERFREC_PT_TIME_ZERO] = run->conv.time_zero;
	priv[PERFREC_PT_CAP_USER_TIME_ZERO] = run->conv.valid;
	/* the PMU's own format bits; the RTIT_CTL layout when not known */
	priv[PERFREC_PT_TSC_BIT] = mask_or(ci->pt_tsc_mask, PTBE_TSC);
	priv[PERFREC_PT_NORETCOMP_BIT] = mask_or(ci->pt_noretcomp_mask, PTBE_NORETCOMP);
	/*
	 * have_sched_switch. 3: PERF_RECORD_SWITCH_CPU_WIDE from a CPU-wide
	 * context_switch event (perf takes the tid from a switch-out's next
	 * task, and fails on any other record). 2: PERF_RECORD_SWITCH of
	 * task-bound events (process scope), the tid from a switch-in.
	 */
	priv[PERFREC_PT_HAVE_SCHED_SWITCH] = run->scope == SCOPE_PROCESS ? 2 : 3;
	/* not perf's snapshot mode: one buffer per core */
	priv[PERFREC_PT_SNAPSHOT_MODE] = 0;
	priv[PERFREC_PT_PER_CPU_MMAPS] = 1;
	priv[PERFREC_PT_MTC_BIT] = mask_or(ci->pt_mtc_mask, PTBE_MTC);
	priv[PERFREC_PT_MTC_FREQ_BITS] = mask_or(ci->pt_mtc_period_mask, PTBE_MTC_PERIOD);
	priv[PERFREC_PT_TSC_CTC_N] = ci->tsc_ctc_ratio_n;
	priv[PERFREC_PT_TSC_CTC_D] = ci->tsc_ctc_ratio_d;
	priv[PERFREC_PT_CYC_BIT] = mask_or(ci->pt_cyc_mask, PTBE_CYC);
	priv[PERFREC_PT_MAX_NONTURBO_RATIO] = ci->max_nonturbo_ratio;
	/* no address filter string follows */
	priv[PERFREC_PT_FILTER_STR_LEN] = 0;
	return PERFREC_PT_PRIV_NR;
}
