/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --pid --follow: the processes a running target forked before ptbpf
 * attached, and theirs, found in /proc by their parent (PPid), to be
 * followed from the start as the ones it forks later are.
 */
#ifndef PTBPF_DESCEND_H
#define PTBPF_DESCEND_H

#include <sys/types.h>

/*
 * The live descendants of process @root (children, theirs ...) under
 * @proc, parents before their children, into *@pids (malloc'd). Returns
 * their number (0: none), or -errno: -ENOENT when @proc can't be read,
 * -ENOMEM.
 */
int descend_list(const char *proc, pid_t root, pid_t **pids);

#endif /* PTBPF_DESCEND_H */
