/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The facts of a run that both programs read the same way: the backend,
 * the TSC conversion of the perf mmap page and what a PT decoder needs of
 * the CPU. The tracer fills them (user/base/snapshot.h holds them in each
 * snapshot) and writes them to ptbpf.json; the reader loads them back into
 * the same structs (tools/dump/snap.h).
 */
#ifndef PTBPF_SNAPDATA_H
#define PTBPF_SNAPDATA_H

#include <stdbool.h>
#include <stdint.h>

enum ptbpf_backend {
	BACKEND_AUTO = 0,
	BACKEND_INTEL_PT,
	BACKEND_SAMPLE,
};

/* perf_event_mmap_page time conversion (cap_user_time_zero). */
struct snap_tsc_conv {
	bool valid; /* the kernel set cap_user_time_zero */
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
};

/* What Intel PT decoders need beyond the attr (from sysfs caps, cpuid). */
struct snap_cpu_info {
	char vendor[16]; /* "GenuineIntel", "AuthenticAMD" */
	unsigned int family, model, stepping;
	uint32_t tsc_ctc_ratio_n, tsc_ctc_ratio_d; /* 0 when unknown */
	uint32_t max_nonturbo_ratio; /* 0 when unknown */
	/*
	 * MTC packets on, and their period (the mtc_period value the event
	 * was opened with: ptxed's --mtc-freq): pmu_cpu_info() reads both
	 * back from the config through sysfs format/, the one place that
	 * knows where the bits are. mtc_freq is 0 when MTC is off.
	 */
	bool mtc;
	uint32_t mtc_freq;
	/*
	 * Where sysfs format/ puts the intel_pt config fields, as masks of
	 * attr.config (perf's AUXTRACE_INFO wants masks); 0 when unknown.
	 */
	uint64_t pt_tsc_mask, pt_noretcomp_mask, pt_mtc_mask, pt_mtc_period_mask, pt_cyc_mask;
	unsigned int nr_cpus_online, nr_cpus_avail;
};

#endif /* PTBPF_SNAPDATA_H */
