/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The snapshot writer's readings of /proc: the target's COMM and MMAP2
 * records and LLDB modules, the followed processes', and the names of
 * threads that have exited.
 *
 * A process that has exited (or is a zombie) has no maps left, so the last
 * good reading is kept, refreshed when the writer is idle, and used when
 * the live one comes back empty; the kernel's MMAP2 records of each
 * snapshot are merged into it, so code mapped since the last reading is
 * not lost. The control thread tells of forks, exits and thread names
 * (short critical sections); the writer thread reads.
 */
#ifndef PTBPF_PROCCACHE_H
#define PTBPF_PROCCACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "procset.h"
#include "base/snapshot.h"
#include "threadnames.h"

struct proccache {
	uint32_t pid; /* the target */
	const char *proc_root; /* NULL: "/proc" */
	struct snap_process last; /* the last reading with maps */
	/*
	 * --follow: the other processes (the writer's own), and the forks
	 * and exits the control thread told of since (under lock): pid, or
	 * -pid for an exit.
	 */
	struct procset followed;
	long *news;
	unsigned int nr_news, cap_news;
	struct threadnames names; /* under lock: from the BPF events */
	pthread_mutex_t lock;
};

/* Readings of process @pid under @proc_root (NULL: "/proc"): none yet. */
void proccache_init(struct proccache *pc, const char *proc_root, uint32_t pid);

/*
 * Remembers that thread @tid of the target is (or was last) named @comm,
 * for snapshots written after it exited. For the control thread. NULL
 * @pc or @comm: nothing.
 */
void proccache_note_thread(struct proccache *pc, uint32_t tid, const char *comm);

/*
 * --follow: process @pid joined (@gone false) or exited: snapshots hold
 * its COMM and MMAP2 records as /proc last showed it with maps, read on
 * the writer thread. For the control thread. Returns 0, -EINVAL for a
 * NULL @pc or 0 @pid, -ENOMEM (that process goes without its records).
 */
int proccache_follow(struct proccache *pc, uint32_t pid, bool gone);

/* Reads /proc again and keeps what has maps: the writer's idle work. */
void proccache_refresh(struct proccache *pc);

/*
 * The processes of snapshot @snap, before it is written: the kernel's
 * MMAP2 records of its sideband merged into the readings (and taken out
 * of it), then the target's and the followed processes' readings, with
 * the threads gone by now under the names they had. @snap borrows them
 * until proccache_put(); *@threads is the caller's to free() after it.
 */
void proccache_fill(struct proccache *pc, struct snapshot *snap, struct snap_thread **threads);

/* @snap hands back what proccache_fill() lent it. */
void proccache_put(struct snapshot *snap);

/* Releases the readings; @pc can be initialised again. NULL is fine. */
void proccache_free(struct proccache *pc);

#endif /* PTBPF_PROCCACHE_H */
