/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf_event_attr recipes that need no PMU discovery: the sample
 * backend's cpu-clock data event (rate, call stacks) and the
 * context-switch sideband event of every backend. The intel_pt data event
 * is built from what sysfs says of that PMU (pmu.h).
 */
#ifndef PTBPF_EVATTR_H
#define PTBPF_EVATTR_H

#include <stdbool.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "base/snapshot.h"

/* Sampling frequency of the sample backend's cpu-clock events (Hz). */
#define EVATTR_SAMPLE_FREQ 4000
/*
 * User stack bytes each sample copies with --call-graph dwarf: perf
 * record's default. The kernel wants a multiple of 8, and the whole sample
 * must fit a record's u16 size, so perf caps it at 65528 (USHRT_MAX
 * rounded down to 8).
 */
#define EVATTR_STACK_USER_DEFAULT 8192
#define EVATTR_STACK_USER_MAX 65528

/*
 * The sample backend's data event: cpu-clock sampling at @freq Hz (0 means
 * EVATTR_SAMPLE_FREQ: 4 kHz, fine enough to see hot functions, 4 records of
 * ~48 bytes per ms per core), IDENTIFIER|IP|TID|TIME|CPU, CLOCK_MONOTONIC
 * so times line up with bpf_ktime_get_ns(), written backward (cyclic.h).
 * Returns -EINVAL for a NULL @attr.
 */
int evattr_sample(struct perf_event_attr *attr, bool kernel, bool disabled, unsigned int freq);

/*
 * Add call stacks to a sample attr from evattr_sample(), the way perf
 * record -g / --call-graph dwarf asks for them:
 * CALLGRAPH_FP: PERF_SAMPLE_CALLCHAIN, exclude_callchain_kernel unless
 *   @kernel (the kernel walks the user stack through frame pointers);
 * CALLGRAPH_DWARF: PERF_SAMPLE_CALLCHAIN for the kernel part only
 *   (exclude_callchain_user), PERF_SAMPLE_REGS_USER with every general
 *   purpose register perf's unwinder reads, and PERF_SAMPLE_STACK_USER with
 *   @stack_size bytes (0: EVATTR_STACK_USER_DEFAULT);
 * CALLGRAPH_NONE: nothing.
 * Returns -EINVAL for a NULL @attr, an unknown @mode, a @stack_size that is
 * not a multiple of 8 or above EVATTR_STACK_USER_MAX, and -EOPNOTSUPP for
 * dwarf on an architecture whose user registers this build does not know.
 */
int evattr_sample_callgraph(struct perf_event_attr *attr, enum ptbpf_callgraph mode,
			    __u32 stack_size, bool kernel);

/*
 * The sampling rate @want (0: EVATTR_SAMPLE_FREQ) bounded by the kernel's
 * kernel.perf_event_max_sample_rate, read from @path (NULL:
 * /proc/sys/kernel/perf_event_max_sample_rate), which perf_event_open()
 * refuses to exceed. Stores the rate to use in *@got.
 * Returns 1 when it was lowered, 0 when not (or when @path can't be read:
 * the kernel then says what it refuses), -EINVAL for a NULL @got.
 */
int evattr_sample_freq(unsigned int want, const char *path, unsigned int *got);

/*
 * The context-switch sideband event: software dummy, context_switch=1,
 * mmap2=1 (executable mappings), sample_id_all=1,
 * IDENTIFIER|TID|TIME|CPU (perf needs the identifier and cpu in every
 * record when a perf.data has two attrs), written backward, on @clockid
 * (use_clockid) when it is >= 0, else the perf default clock: the data
 * event's clock (backend_ops.clockid), since the kernel refuses a group
 * whose members use another.
 * Returns -EINVAL for a NULL @attr.
 */
int evattr_sideband(struct perf_event_attr *attr, int clockid, bool disabled);

#endif /* PTBPF_EVATTR_H */
