/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plan of a per-core trace, made before any event is opened: which
 * scope the events count in (what pid and flags perf_event_open() gets),
 * which backend records (the one asked for, or with --backend auto the
 * first of backend.c's table this machine has), the data and sideband
 * attrs, and the ring sizes, checked against the backend's least buffer
 * (one PSB period) and the limit on all buffers together. cores.c opens
 * what the plan says; nothing here makes a perf system call.
 *
 * Errors: functions return 0 or -errno, with a message in the caller's
 * buffer that says what to change. Informational lines (backend chosen,
 * size rounded) go to the config's report hook.
 */
#ifndef PTBPF_COREPLAN_H
#define PTBPF_COREPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "backend.h"
#include "corecfg.h"
#include "base/snapshot.h"

struct coreplan {
	enum ptbpf_scope scope; /* never SCOPE_AUTO */
	int pid; /* perf_event_open()'s pid: -1, the cgroup fd, the first tid */
	unsigned long flags; /* PERF_FLAG_PID_CGROUP in cgroup scope */
	enum ptbpf_backend backend; /* resolved: never BACKEND_AUTO */
	const struct backend_ops *ops; /* what differs with the backend */
	struct perf_event_attr data_attr, sb_attr;
	/* with ops->cpu_info: the backend's part, read when it was planned */
	struct snap_cpu_info cpu_info;
	size_t page_size, buf_size, sb_size;
	/*
	 * An AUX backend's records ring (ops->rec_pages: the data event's
	 * ITRACE_START, AUX and LOST records), mapped beside the AUX area and
	 * counted in the memory the run maps; 0 without one.
	 */
	size_t rec_size;
};

/*
 * Round @request bytes up to a power-of-two number of pages of @page_size
 * bytes (what perf requires of its rings) into *@size.
 * Returns -EINVAL for a zero @request or @page_size or NULL @size, -E2BIG
 * when the result does not fit in a size_t.
 */
int coreplan_round_size(size_t request, size_t page_size, size_t *size);

/*
 * Fill @plan from @cfg for @nr_online traced CPUs (the ones counted against
 * cfg->total_limit) with rings of @page_size pages.
 *
 * Returns -EINVAL for NULL arguments, a scope without what it needs
 * (process: threads; cgroup: a cgroup fd), an unknown scope, a bad
 * --call-graph setting, a buffer size that can't be rounded or that can't
 * hold the backend's least buffer (one PSB period); -ENOENT when the
 * backend asked for is missing here (its step's line: intel-pt names the
 * sysfs path); -E2BIG when all buffers together exceed the total limit
 * (says what to lower); else the error of the backend's step
 * (backend_ops.data_attr: reading the intel_pt PMU, pmu_intel_pt_probe()).
 */
int coreplan_make(const struct cores_config *cfg, size_t page_size, unsigned int nr_online,
		  struct coreplan *plan, char *err, size_t errlen);

/*
 * The state a core starts in: running when @cfg asks for it, or in process
 * scope when the events are armed with enable_on_exec (they count from the
 * exec on, without an ioctl of ours).
 */
bool coreplan_starts_running(const struct coreplan *plan, const struct cores_config *cfg);

#endif /* PTBPF_COREPLAN_H */
