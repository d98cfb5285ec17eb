/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The intel-pt backend's own steps, the ones its row in backend.c names:
 * its data event, built from what sysfs says of the intel_pt PMU (pmu.h),
 * with its part of the CPU info; whether this machine has that PMU; and
 * the private words of perf.data's AUXTRACE_INFO, which perf's Intel PT
 * decoder reads (the layout of perf's intel-pt.h, perfrec.h's
 * PERFREC_PT_*). Also the size of the PT event's own records ring and how
 * often it is drained. Nothing here knows the plan or the cores: the
 * steps get what the run asked (corecfg.h) and give back attrs and words.
 */
#ifndef PTBPF_PTBE_H
#define PTBPF_PTBE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "corecfg.h"
#include "base/snapshot.h"

/*
 * The PT event's records ring, in pages. The kernel writes an AUX record
 * (64 bytes with the sample IDs ptbpf asks) at each stop of PT, whatever
 * it wrote: each switch-out of a target thread in process scope. 16 pages
 * hold about 1,000 of them; ptbpf drains the ring every PTBE_DRAIN_NS
 * (cores_drain_records()), so a CPU loses records only past some 10,000
 * switch-outs a second.
 */
#define PTBE_RECORD_PAGES 16

/* How often the run drains the PT events' records rings: 100 ms. */
#define PTBE_DRAIN_NS 100000000ULL

/*
 * intel_pt config bits, as masks: what AUXTRACE_INFO says where sysfs did
 * not (snap_cpu_info's pt_*_mask 0). The kernel's intel_pt PMU format is
 * the RTIT_CTL MSR layout (arch/x86/events/intel/pt.c), the same on every
 * CPU.
 */
#define PTBE_CYC (1ULL << 1)
#define PTBE_MTC (1ULL << 9)
#define PTBE_TSC (1ULL << 10)
#define PTBE_NORETCOMP (1ULL << 11)
#define PTBE_MTC_PERIOD (0xfULL << 14)

/*
 * The intel_pt data event for @cfg into @attr (pmu_intel_pt_attr(): user
 * space unless cfg->kernel, disabled unless cfg->start_running), the bytes
 * of one PSB period into *@psb (the least per-core buffer), and what the
 * PMU and @attr say of the CPU into @info (pmu_cpu_info(); other fields
 * are left as they are). Reports "backend: intel-pt" to @cfg's hook.
 *
 * Returns -ENOENT when the PMU is missing, with the reason in @err: for
 * --backend auto (cfg->backend AUTO) why it was passed over, else a line
 * to print that names the path and the other backend; -EINVAL for NULL
 * arguments; else the error of pmu_intel_pt_probe() or
 * pmu_intel_pt_attr(), its line in @err.
 */
int ptbe_data_attr(const struct cores_config *cfg, struct perf_event_attr *attr, size_t *psb,
		   struct snap_cpu_info *info, char *err, size_t errlen);

/*
 * Whether the intel_pt PMU is under @sysfs_root (NULL: "/sys"). A PMU
 * that is there but can't be read counts as there: the run then fails on
 * it, saying why, rather than pass it over in silence.
 */
bool ptbe_present(const char *sysfs_root);

/*
 * The private words of Intel PT's PERF_RECORD_AUXTRACE_INFO for @run into
 * @priv (@max words), in perf's order (PERFREC_PT_*): PMU type, time
 * conversion, config bit masks (sysfs', else PTBE_*), how context
 * switches are recorded (have_sched_switch 3: CPU-wide records; 2 in
 * process scope: PERF_RECORD_SWITCH of task-bound events), per-CPU AUX
 * buffers, MTC and TSC/CTC ratios, max non-turbo ratio, no address filter.
 *
 * Returns the number of words (PERFREC_PT_PRIV_NR).
 * Returns -EINVAL if @run or @priv is NULL.
 * Returns -ENOSPC if @max is too small.
 */
int ptbe_auxtrace_priv(const struct snap_run *run, __u64 *priv, size_t max);

#endif /* PTBPF_PTBE_H */
