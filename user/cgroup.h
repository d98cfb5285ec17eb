/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --cgroup: the cgroup v2 directory whose tasks the per-core events count
 * (PERF_FLAG_PID_CGROUP), the target's own unless a path is given.
 */
#ifndef PTBPF_CGROUP_H
#define PTBPF_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The cgroup v2 path of @pid ("/user.slice/...") from @proc/PID/cgroup, its
 * "0::" line. Returns 0, -ENOENT when the process has no cgroup v2 entry
 * (a v1-only system), or -errno of reading the file.
 */
int cgroup_of(const char *proc, pid_t pid, char *path, size_t len);

/* Where cgroup2 is mounted (from /proc/self/mounts). 0, or -ENOENT. */
int cgroup_mount(char *mnt, size_t len);

/*
 * Opens the cgroup directory for perf: @path when given (absolute, or
 * relative to @mnt), else @pid's own cgroup under @mnt (NULL: where
 * cgroup2 is mounted).
 * Returns an O_RDONLY directory fd or -errno, with one line in @err that
 * says why it can't be used.
 */
int cgroup_open(const char *mnt, const char *proc, pid_t pid, const char *path,
		char *err, size_t errlen);

#endif /* PTBPF_CGROUP_H */
