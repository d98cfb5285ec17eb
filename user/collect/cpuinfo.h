/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processor as /proc/cpuinfo names it, for perf.data's CPUID feature,
 * ptbpf.json and trace.json's cpuInfo (decoders pick errata and packet
 * rules by family/model/stepping).
 */
#ifndef PTBPF_CPUINFO_H
#define PTBPF_CPUINFO_H

#include "snapdata.h"

/*
 * Fills @info's vendor, family, model and stepping from the first
 * processor of @path ("/proc/cpuinfo" when NULL); the other fields are
 * left alone. Returns 0, -EINVAL for a NULL @info, -errno of opening
 * @path, or -ENOENT when the file names no vendor_id or cpu family.
 */
int cpuinfo_read(const char *path, struct snap_cpu_info *info);

#endif /* PTBPF_CPUINFO_H */
