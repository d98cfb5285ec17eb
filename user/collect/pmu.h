/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The intel_pt PMU: discovery from sysfs, the attr of its data event, and
 * what a decoder must know of it (snap_cpu_info). The sample and sideband
 * events need no discovery: their recipes are in evattr.h.
 *
 * The intel_pt PMU describes itself under
 * <root>/bus/event_source/devices/intel_pt/: its dynamic `type`, where each
 * option lives in attr.config (`format/<name>`, e.g. "config:14-17"), and
 * what the hardware can do (`caps/<name>`, printed by the kernel in hex,
 * except tsc_art_ratio, "n:d"). Nothing here is hard-coded: bit positions
 * and supported values come from those files, so the same code works on
 * every kernel and CPU that has the PMU. Tests pass a fake root.
 */
#ifndef PTBPF_PMU_H
#define PTBPF_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "snapdata.h"

#define PMU_NAME_MAX 32
#define PMU_MAX_FORMATS 48
#define PMU_MAX_CAPS 48
#define PMU_PATH_MAX 256

/* Where one option lives: bits lo..hi of config, config1 or config2. */
struct pmu_field {
	char name[PMU_NAME_MAX];
	unsigned int word; /* 0: config, 1: config1, 2: config2 */
	unsigned int lo, hi;
};

struct pmu_cap {
	char name[PMU_NAME_MAX];
	uint64_t value;
};

struct pmu_intel_pt {
	char path[PMU_PATH_MAX]; /* the directory it was read from */
	__u32 type;
	unsigned int nr_formats;
	struct pmu_field formats[PMU_MAX_FORMATS];
	unsigned int nr_caps;
	struct pmu_cap caps[PMU_MAX_CAPS];
	uint32_t tsc_art_n, tsc_art_d; /* caps/tsc_art_ratio; 0 when absent */
	uint32_t max_nonturbo_ratio; /* 0 when the file is absent */
};

/*
 * Read the intel_pt PMU under @sysfs_root (NULL means "/sys") into @pmu.
 *
 * Returns -ENOENT when the PMU directory or its `type` does not exist (the
 * message names the path looked for), -EINVAL when a file does not parse
 * (the message names it), -E2BIG with more formats or caps than fit,
 * -EINVAL for NULL @pmu, else -errno from reading sysfs.
 */
int pmu_intel_pt_probe(const char *sysfs_root, struct pmu_intel_pt *pmu, char *err, size_t errlen);

/*
 * Parse a format file's text ("config:10", "config:14-17", "config1:0-31",
 * with or without a trailing newline) into @f (the name is left as is).
 * Returns -EINVAL when malformed or when the bits are outside 0..63.
 */
int pmu_parse_format(const char *text, struct pmu_field *f);

/* The format named @name, or NULL. */
const struct pmu_field *pmu_field(const struct pmu_intel_pt *pmu, const char *name);

/*
 * Store @value in the bits @f names in @attr, clearing them first.
 * Returns -EINVAL for NULL arguments, -ERANGE when @value is too wide.
 */
int pmu_set_field(struct perf_event_attr *attr, const struct pmu_field *f, __u64 value);

/* The value of caps/@name. Returns -ENOENT when absent, -EINVAL for NULL. */
int pmu_cap(const struct pmu_intel_pt *pmu, const char *name, uint64_t *value);

/*
 * The intel_pt data event: pt and branch on, TSC on (per-core traces are
 * split into threads by time), return compression left at the PMU default
 * (noretcomp not set), MTC at the period caps allow, PSB period from caps,
 * user space only unless @kernel, attr.disabled = @disabled. The clock is
 * the perf default: perf converts TSC to perf time with the mmap page's
 * time_zero/mult/shift, so use_clockid must stay off. Stores in *@psb_bytes
 * (may be NULL) how many bytes of trace one PSB period spans.
 *
 * Returns -EINVAL for NULL arguments or when a format the PMU must have
 * (pt, tsc) is missing (the message says which).
 */
int pmu_intel_pt_attr(const struct pmu_intel_pt *pmu, bool kernel, bool disabled,
		      struct perf_event_attr *attr, size_t *psb_bytes, char *err, size_t errlen);

/*
 * Fill what @pmu and the event's @attr say into @info: tsc_ctc_ratio_n/d,
 * max_nonturbo_ratio, mtc and mtc_freq (read back from @attr where the
 * format files put them), the config masks. Other fields are left as they
 * are.
 * Returns -EINVAL for NULL arguments.
 */
int pmu_cpu_info(const struct pmu_intel_pt *pmu, const struct perf_event_attr *attr,
		 struct snap_cpu_info *info);

#endif /* PTBPF_PMU_H */
