/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output directory: made by ptbpf (mode 0700, owned by the user who ran
 * sudo) or an existing one that is safe to write into.
 */
#ifndef PTBPF_OUTDIR_H
#define PTBPF_OUTDIR_H

#include <stddef.h>

/*
 * Opens @path as the output directory, creating it when missing. Refuses a
 * symlink, a non-directory, and a directory owned by anyone but us or @uid.
 * Returns a directory fd, or -errno with one line in @err.
 */
int outdir_open(const char *path, int uid, int gid, char *err, size_t errlen);

/*
 * The highest N of the snapshot-NNNNNN directories in @dirfd (0 when none),
 * so a new run continues the numbering instead of colliding.
 */
unsigned long long outdir_last_snapshot(int dirfd);

#endif /* PTBPF_OUTDIR_H */
