/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aux-action (Linux >= 6.13): events in an Intel PT group that pause or
 * resume PT in the kernel, on the CPU, at their own overflow
 * (__perf_event_overflow() -> perf_event_aux_pause()), with no IPI and no
 * user space in the way. ptbpf puts, in each PT group of process scope:
 *
 * - one uprobe event per --trigger-on point with aux_pause: PT stops at the
 *   hit itself, so a hit's snapshot of that CPU ends there;
 * - one software context-switches event with aux_resume: the thread's next
 *   switch-out resumes PT (a paused event stays paused until a resume:
 *   hw.aux_paused survives disable, enable and sched-out), so tracing goes
 *   on from the thread's next run.
 *
 * The attr field is the u32 after aux_sample_size (aux_action: bit 0
 * aux_start_paused, bit 1 aux_pause, bit 2 aux_resume); a kernel without
 * the feature has it reserved and refuses it non-zero (EINVAL), and one
 * whose PMU can't pause says EOPNOTSUPP: opening is the probe.
 */
#ifndef PTBPF_AUXACT_H
#define PTBPF_AUXACT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "target/hitpoint.h"
#include "perf_sys.h"

#define AUXACT_MAX_POINTS 8

#define AUXACT_START_PAUSED (1U << 0)
#define AUXACT_PAUSE (1U << 1)
#define AUXACT_RESUME (1U << 2)

/* One group's aux-action events: the pause uprobes, then the resumer. */
struct auxact_fds {
	int fd[AUXACT_MAX_POINTS + 1];
	unsigned int n;
};

/* The aux_action bits of @attr (0 on a header that predates them). */
__u32 auxact_get(const struct perf_event_attr *attr);
void auxact_set(struct perf_event_attr *attr, __u32 bits);

/*
 * The uprobe PMU's dynamic type from @sysfs_root (NULL: "/sys")
 * bus/event_source/devices/uprobe/type. Returns 0, -ENOENT or -EINVAL.
 */
int auxact_uprobe_type(const char *sysfs_root, __u32 *type);

/*
 * The pause uprobe at @p for a group whose leader has @leader's inherit
 * bits, and the context-switch resumer.
 */
void auxact_pause_attr(struct perf_event_attr *a, __u32 uprobe_type, const struct hitpoint *p,
		       const struct perf_event_attr *leader);
void auxact_resume_attr(struct perf_event_attr *a, const struct perf_event_attr *leader);

/*
 * Opens @nr pause uprobes (@pts) and the resumer in the group of
 * @leader_fd (@leader its attr) on @cpu for @pid, into @out (emptied
 * first). On failure closes what it opened and returns -errno: -EINVAL
 * or -EOPNOTSUPP where the kernel or PMU has no aux-action, -E2BIG for
 * more than AUXACT_MAX_POINTS.
 */
int auxact_open(const struct perf_sys_ops *sys, __u32 uprobe_type, const struct hitpoint *pts,
		unsigned int nr, const struct perf_event_attr *leader, int leader_fd, int cpu,
		pid_t pid, struct auxact_fds *out, char *err, size_t errlen);

/* Closes every descriptor of @f; @f is empty after. */
void auxact_close(const struct perf_sys_ops *sys, struct auxact_fds *f);

#endif /* PTBPF_AUXACT_H */
