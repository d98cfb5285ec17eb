/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unit NAME.service: a systemd service is its cgroup. systemd puts each
 * service's processes in a cgroup of its own (ControlGroup=, e.g.
 * /system.slice/NAME.service), so the unit is traced as --scope cgroup
 * over that cgroup, its processes followed as they come and go.
 */
#ifndef PTBPF_UNIT_H
#define PTBPF_UNIT_H

#include <stddef.h>
#include <sys/types.h>

/* Where systemd says it runs (sd_booted(3)): this directory exists. */
#define UNIT_SYSTEMD_RUNTIME "/run/systemd/system"

/*
 * The cgroup and main process of @unit, from `systemctl show`: the
 * program in $PTBPF_SYSTEMCTL when set (it answers instead of systemd, as
 * the tests do on a machine without it), else systemctl, which needs
 * systemd running. @cg gets the cgroup's directory under @mnt (where
 * cgroup2 is mounted), @main_pid the unit's MainPID (0 when it has none).
 * Returns 0 or -errno with one line in @err: -ENOSYS without systemd,
 * -ESRCH when the unit has no cgroup (it is not running), or what running
 * systemctl returned.
 */
int unit_resolve(const char *unit, const char *mnt, char *cg, size_t len, pid_t *main_pid,
		 char *err, size_t errlen);

/*
 * The processes of cgroup directory @cg (its cgroup.procs) into *@pids
 * (malloc'd). Returns their number (0: none), or -errno.
 */
int unit_procs(const char *cg, pid_t **pids);

/*
 * Which of @pids the run is rooted at: @main_pid when it is one of them,
 * else the first. Returns it, or 0 when @n is 0.
 */
pid_t unit_pick(const pid_t *pids, int n, pid_t main_pid);

/*
 * The process a run of --unit @unit is rooted at, its unit's cgroup
 * directory into @cg (@len bytes): the unit's main process when it is in
 * its cgroup, else the first one there (unit_pick()); the others are the
 * run's to adopt. Returns the pid, or -errno with one line in @err:
 * -ENOENT when no cgroup v2 is mounted, unit_resolve()'s errors, -ESRCH
 * when the cgroup holds no process.
 */
pid_t unit_target(const char *unit, char *cg, size_t len, char *err, size_t errlen);

#endif /* PTBPF_UNIT_H */
