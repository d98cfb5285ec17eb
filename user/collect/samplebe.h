/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sample backend's own steps, the ones its row in backend.c names: its
 * cpu-clock data event at a rate the kernel allows, with the call stacks
 * the run asked for (the recipes are evattr.h's), and whether this machine
 * has it (every machine does). Nothing here knows the plan or the cores:
 * the steps get what the run asked (corecfg.h) and give back an attr.
 */
#ifndef PTBPF_SAMPLEBE_H
#define PTBPF_SAMPLEBE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "corecfg.h"
#include "base/snapshot.h"

/*
 * The cpu-clock data event for @cfg into @attr: at cfg->sample_freq
 * (0: EVATTR_SAMPLE_FREQ) or kernel.perf_event_max_sample_rate when that
 * is lower (reported to @cfg's hook), cfg->call_graph's stacks, user space
 * unless cfg->kernel, disabled unless cfg->start_running. *@psb is 0 (no
 * least buffer); @info is left alone (nothing of the CPU to add).
 *
 * Returns -EINVAL for NULL arguments, or with "--call-graph: ..." in @err
 * for a call-graph setting evattr_sample_callgraph() refuses (a stack
 * size); -EOPNOTSUPP with its line for dwarf on an architecture whose user
 * registers this build does not know.
 */
int samplebe_data_attr(const struct cores_config *cfg, struct perf_event_attr *attr, size_t *psb,
		       struct snap_cpu_info *info, char *err, size_t errlen);

/* Every machine has a cpu-clock: true, whatever @sysfs_root holds. */
bool samplebe_present(const char *sysfs_root);

#endif /* PTBPF_SAMPLEBE_H */
