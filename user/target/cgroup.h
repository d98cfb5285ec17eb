/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --scope cgroup: the cgroup v2 directory whose tasks the per-core events
 * count (PERF_FLAG_PID_CGROUP): the target's own unless a path is given, or
 * for a launched command one made for it.
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
int cgroup_open(const char *mnt, const char *proc, pid_t pid, const char *path, char *err,
		size_t errlen);

/*
 * --scope cgroup with -- COMMAND: a leaf cgroup made for the held child
 * @child, so the scope is exactly the command and what it starts. Makes
 * "ptbpf-<child>.<ptbpf's pid>" in ptbpf's own cgroup v2 (after removing the
 * leaves dead runs left there) (mode 0755), moves @child into it
 * (it is blocked before its exec: perf counts it from its next switch-in)
 * and stores the directory in @path (@len bytes, PATH_MAX suffices).
 * Returns an O_RDONLY directory fd for perf, or -errno with one line in
 * @err; on error nothing is left behind.
 */
int cgroup_make_leaf(const char *proc, pid_t child, char *path, size_t len, char *err,
		     size_t errlen);

/*
 * Removes the leaves "ptbpf-CHILD.OWNER" in the cgroup directory @dir whose
 * OWNER run is dead (no such process, a zombie, or a pid reused by another
 * program): a ptbpf killed before its end, whose guardian could not remove
 * them. Other names, and live runs' leaves, are left alone.
 * Returns how many were removed, or -errno of reading @dir.
 */
int cgroup_remove_stale(const char *dir);

/*
 * Removes a leaf made by cgroup_make_leaf(): what still lives in it (the
 * command's daemonized children) goes back to the parent cgroup first.
 * Returns 0 or -errno of the rmdir.
 */
int cgroup_remove_leaf(const char *path);

#endif /* PTBPF_CGROUP_H */
