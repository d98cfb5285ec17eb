/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --follow: the processes a snapshot describes besides the target, each
 * as /proc last showed it with its maps. A process that exited keeps its
 * last reading: its samples or trace may still be in the buffers, and perf
 * names their code from its MMAP2 records. Not thread-safe: one owner (the
 * snapshot writer) reads and refreshes it.
 */
#ifndef PTBPF_PROCSET_H
#define PTBPF_PROCSET_H

#include <stdbool.h>

#include "base/snapshot.h"

/* How many processes are kept; past it the oldest gone one makes room. */
#define PROCSET_MAX 1024

struct procset {
	struct snap_process *v; /* readings, in the order they were added */
	bool *live; /* still there: read again at each refresh */
	unsigned int n, cap;
};

/*
 * Adds process @pid (nothing when it is there already): read at the next
 * procset_refresh(). Returns 0, or -ENOMEM; -ENOSPC when PROCSET_MAX live
 * processes are kept (then it is not added).
 */
int procset_add(struct procset *ps, uint32_t pid);

/* Process @pid exited: its last reading stays, it is read no more. */
void procset_gone(struct procset *ps, uint32_t pid);

/*
 * Reads every live process again from @proc_root/PID; a reading without
 * maps (a zombie, gone already) does not replace the last one that had
 * them.
 */
void procset_refresh(struct procset *ps, const char *proc_root);

void procset_free(struct procset *ps);

#endif /* PTBPF_PROCSET_H */
