// SPDX-License-Identifier: GPL-2.0
/* aux-action events in an Intel PT group: see auxact.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auxact.h"
#include "base/errbuf.h"
#include "base/smallfile.h"

/* The u32 after aux_sample_size: __reserved_3 before 6.13, aux_action since. */
#define AUX_ACTION_OFF (offsetof(struct perf_event_attr, aux_sample_size) + sizeof(__u32))

__u32 auxact_get(const struct perf_event_attr *attr)
{
	__u32 v;

	memcpy(&v, (const char *)attr + AUX_ACTION_OFF, sizeof(v));
	return v;
}

void auxact_set(struct perf_event_attr *attr, __u32 bits)
{
	memcpy((char *)attr + AUX_ACTION_OFF, &bits, sizeof(bits));
}

int auxact_uprobe_type(const char *sysfs_root, __u32 *type)
{
	char path[256];
	uint64_t v;
	int rc;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/uprobe/type",
		 sysfs_root ? sysfs_root : "/sys");
	rc = smallfile_u64(path, &v);
	if (rc == -EINVAL || (!rc && v > 0xffffffffULL))
		return -EINVAL;
	if (rc)
		return -ENOENT; /* no uprobe PMU here */
	*type = (__u32)v;
	return 0;
}

/* Members of a group follow its leader in and out: never disabled. */
static void member(struct perf_event_attr *a, const struct perf_event_attr *leader)
{
	a->size = sizeof(*a);
	a->sample_period = 1; /* every occurrence overflows: every hit acts */
	a->inherit = leader->inherit;
	a->inherit_thread = leader->inherit_thread;
}

void auxact_pause_attr(struct perf_event_attr *a, __u32 uprobe_type, const struct hitpoint *p,
		       const struct perf_event_attr *leader)
{
	memset(a, 0, sizeof(*a));
	a->type = uprobe_type;
	a->config = 0; /* format/retprobe is config:0: the entry, not a return */
	a->config1 = (__u64)(unsigned long)p->path; /* uprobe_path */
	a->config2 = p->offset; /* probe_offset */
	member(a, leader);
	auxact_set(a, AUXACT_PAUSE);
}

void auxact_resume_attr(struct perf_event_attr *a, const struct perf_event_attr *leader)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	/*
	 * Counted in perf_event_task_sched_out() while the thread's events
	 * are still in: the resume lands before PT is switched out with it.
	 */
	a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	member(a, leader);
	/*
	 * Not exclude_kernel: the switch is counted with the scheduler's
	 * (kernel) registers, and perf_exclude_event() would drop every one.
	 */
	auxact_set(a, AUXACT_RESUME);
}

void auxact_close(const struct perf_sys_ops *sys, struct auxact_fds *f)
{
	while (f->n)
		perf_sys_close(sys, &f->fd[--f->n]);
}

int auxact_open(const struct perf_sys_ops *sys, __u32 uprobe_type, const struct hitpoint *pts,
		unsigned int nr, const struct perf_event_attr *leader, int leader_fd, int cpu,
		pid_t pid, struct auxact_fds *out, char *err, size_t errlen)
{
	struct perf_event_attr a;
	unsigned int i;
	int fd;

	out->n = 0;
	if (nr > AUXACT_MAX_POINTS)
		return errbuf_set(err, errlen, -E2BIG, "more than %d --trigger-on points",
				  AUXACT_MAX_POINTS);
	for (i = 0; i <= nr; i++) {
		if (i < nr)
			auxact_pause_attr(&a, uprobe_type, &pts[i], leader);
		else
			auxact_resume_attr(&a, leader);
		fd = perf_sys_open(sys, &a, cpu, pid, leader_fd, 0, err, errlen);
		if (fd < 0) {
			auxact_close(sys, out);
			return fd;
		}
		out->fd[out->n++] = fd;
	}
	return 0;
}
