// SPDX-License-Identifier: GPL-2.0
/*
 * Sample and sideband perf_event_attr recipes. See evattr.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif

#include "evattr.h"
#include "base/smallfile.h"

int evattr_sample(struct perf_event_attr *attr, bool kernel, bool disabled, unsigned int freq)
{
	if (!attr)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	attr->freq = 1;
	attr->sample_freq = freq ? freq : EVATTR_SAMPLE_FREQ;
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->write_backward = 1;
	attr->exclude_kernel = !kernel;
	attr->exclude_hv = 1;
	attr->disabled = disabled;
	return 0;
}

/*
 * The user registers perf's DWARF unwinder wants: on x86-64 every general
 * purpose one but the segment registers DS, ES, FS and GS, which the kernel
 * refuses to sample in 64-bit mode (perf's PERF_REGS_MASK).
 */
static __u64 user_regs_mask(void)
{
#if defined(__x86_64__)
	return ((1ULL << PERF_REG_X86_64_MAX) - 1) &
	       ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) | (1ULL << PERF_REG_X86_FS) |
		 (1ULL << PERF_REG_X86_GS));
#else
	return 0;
#endif
}

int evattr_sample_callgraph(struct perf_event_attr *attr, enum ptbpf_callgraph mode,
			    __u32 stack_size, bool kernel)
{
	if (!attr || stack_size % 8 || stack_size > EVATTR_STACK_USER_MAX)
		return -EINVAL;
	switch (mode) {
	case CALLGRAPH_NONE:
		return 0;
	case CALLGRAPH_FP:
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr->exclude_callchain_kernel = !kernel;
		return 0;
	case CALLGRAPH_DWARF:
		if (!user_regs_mask())
			return -EOPNOTSUPP;
		/* the kernel part of the chain is exact; the user part is
		 * unwound afterwards from the registers and the stack copy */
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				     PERF_SAMPLE_STACK_USER;
		attr->exclude_callchain_user = 1;
		attr->exclude_callchain_kernel = !kernel;
		attr->sample_regs_user = user_regs_mask();
		attr->sample_stack_user = stack_size ? stack_size : EVATTR_STACK_USER_DEFAULT;
		return 0;
	}
	return -EINVAL;
}

int evattr_sample_freq(unsigned int want, const char *path, unsigned int *got)
{
	uint64_t max = 0;

	if (!got)
		return -EINVAL;
	*got = want ? want : EVATTR_SAMPLE_FREQ;
	if (smallfile_u64(path ? path : "/proc/sys/kernel/perf_event_max_sample_rate", &max) ||
	    !max || max >= *got)
		return 0;
	*got = (unsigned int)max;
	return 1;
}

int evattr_sideband(struct perf_event_attr *attr, int clockid, bool disabled)
{
	if (!attr)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->context_switch = 1;
	/*
	 * The kernel's own MMAP2 record of every executable mapping, as perf
	 * record asks for them: a library mapped, or dlopen()ed, just before
	 * the process died is named although no /proc reading saw it.
	 */
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->sample_id_all = 1;
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU;
	if (clockid >= 0) {
		attr->use_clockid = 1;
		attr->clockid = clockid;
	}
	attr->write_backward = 1;
	attr->disabled = disabled;
	return 0;
}
