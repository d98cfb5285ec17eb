/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output directory: made by ptbpf (mode 0700, owned by the user who ran
 * sudo) or an existing one that is safe to write into.
 */
#ifndef PTBPF_OUTDIR_H
#define PTBPF_OUTDIR_H

#include <stddef.h>
#include <stdint.h>

/*
 * Opens @path as the output directory, creating it when missing, once:
 * everything of the run is made relative to the fd returned, so swapping
 * the path for a symlink later changes nothing. Refuses a symlink (also
 * written "link/"), a non-directory, a directory owned by anyone but us or
 * @uid, and a directory another ptbpf run holds (flock on it, released
 * when the fd is closed). The path is walked a component at a time from /
 * (or the current directory), following a symlink on the way only when it
 * is owned by @uid (us when -1), or by root in a directory only root or
 * @uid can write to: another user's symlink is refused, not followed.
 * Returns a directory fd, or -errno with one line in @err (-EWOULDBLOCK:
 * in use by another run; -EPERM: a symlink on the way refused, or the
 * directory not ours; -ENOENT: a parent missing).
 */
int outdir_open(const char *path, int uid, int gid, char *err, size_t errlen);

/*
 * The highest N of the snapshot-NNNNNN directories in @dirfd (0 when none),
 * so a new run continues the numbering instead of colliding.
 */
uint64_t outdir_last_snapshot(int dirfd);

#endif /* PTBPF_OUTDIR_H */
