/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small files of /proc and /sys read whole: a sysctl, a PMU's type, a CPU's
 * online flag, a task's stat line (perf's tools/lib/api/fs is the model).
 * One read(2) of at most the caller's buffer, no stdio, nothing allocated.
 */
#ifndef PTBPF_SMALLFILE_H
#define PTBPF_SMALLFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Reads @path into @buf (@cap bytes, @cap > 1), NUL-terminated, without
 * its trailing whitespace. Returns the length kept (>= 0), -EINVAL for a
 * NULL or too small buffer, or -errno of open(2) or read(2).
 */
int smallfile_read(const char *path, char *buf, size_t cap);

/*
 * The whole of @path as one unsigned decimal number (trailing whitespace
 * allowed, nothing else: no sign, no leading space) into *@v. Returns 0,
 * -errno of opening or reading it, or -EINVAL when it holds anything else
 * (an empty file included).
 */
int smallfile_u64(const char *path, uint64_t *v);

#endif /* PTBPF_SMALLFILE_H */
