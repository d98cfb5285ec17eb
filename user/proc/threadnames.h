/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names the target's threads had while they lived, from the BPF
 * events (thread_start: the name a new thread starts with; exec: the new
 * program's; thread_exit: the last one, after any rename), so a snapshot
 * names threads that had exited by the time /proc was read. Pure: no
 * locking, no I/O; the caller serialises.
 */
#ifndef PTBPF_THREADNAMES_H
#define PTBPF_THREADNAMES_H

#include "base/snapshot.h"

/* Threads remembered at most; the least recently noted go first. */
#define THREADNAMES_MAX 65536

struct threadnames {
	struct snap_thread *v; /* oldest note first */
	unsigned int n, cap;
	unsigned int max; /* 0: THREADNAMES_MAX */
};

/*
 * Notes that thread @tid is (or was last) called @comm (at most 15 bytes
 * kept). Returns 0, -EINVAL for NULL arguments, -ENOMEM.
 */
int threadnames_note(struct threadnames *t, uint32_t tid, const char *comm);

/*
 * The threads of @live (as /proc shows them; their names win) followed by
 * the remembered ones @live lacks, in a new array *@out of *@n entries
 * (free() it). Returns 0, -EINVAL for NULL arguments, -ENOMEM.
 */
int threadnames_merge(const struct threadnames *t, const struct snap_process *live,
		      struct snap_thread **out, unsigned int *n);

void threadnames_free(struct threadnames *t);

#endif /* PTBPF_THREADNAMES_H */
