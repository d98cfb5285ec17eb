/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The snapshot writer: a bounded queue of staged snapshots and the thread
 * that writes them out (snapwrite.h), off the control path.
 *
 * The staging buffers are allocated once, at start: the queue's length of
 * snapshots waiting for the writer plus the one being written. The stager
 * (snapstage.h) takes a free buffer, fills it with memory copies only and
 * pushes it. When the writer falls behind and no buffer is free, the oldest
 * waiting snapshot is dropped (its id is handed back, for a snapshot_error
 * event): the control path never waits for the disk.
 *
 * Before each snapshot is written the writer takes its processes from
 * /proc (proccache.h) and makes room for it within the limits
 * (snapkeep.h); once written, it is said (snaplog.h). When idle, it reads
 * /proc again, soon after an exec or a fork.
 */
#ifndef PTBPF_SNAPQUEUE_H
#define PTBPF_SNAPQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/eventlog.h"
#include "proc/proccache.h"
#include "base/snapshot.h"
#include "output/snapwrite.h"

#define SNAPQUEUE_DEFAULT_LEN 3

struct snapqueue_config {
	/*
	 * How each snapshot is written, and where (its dirfd: everything is
	 * made relative to it): the caller's, for the queue's life.
	 */
	const struct snapwrite_opts *write;
	/* the target's /proc readings: the caller's, for the queue's life */
	struct proccache *procs;
	const char *run_id; /* the run's id for events.jsonl, or NULL */
	unsigned int max_snapshots; /* 0: keep all */
	uint64_t max_size; /* bytes of snapshots in the directory; 0: any */
	/* --max-size: events.jsonl's rotation, shared with the control's log */
	struct eventlog_rot *events_rot;
	unsigned int queue_len; /* 0: SNAPQUEUE_DEFAULT_LEN */
	uint32_t pid; /* the target, for the events */
	int verbosity; /* >= 0: a line on stderr per snapshot written */
	/* the staging buffers: nr_cores of trace_cap then sb_cap bytes */
	unsigned int nr_cores;
	size_t trace_cap, sb_cap;
};

/* One staging buffer: a snapshot and the bytes its cores point into. */
struct snapqueue_buf {
	struct snapshot snap; /* snap.cores: the buffer's nr_cores entries */
	struct snap_core *cores;
	uint8_t *mem; /* one mapping: every core's trace then sideband bytes */
	size_t mem_len;
	uint8_t *crash_mem; /* snap.crash.stack: allocated at its first crash */
	int state; /* the queue's: free, queued, taken */
};

struct snapqueue;

/*
 * Allocates the staging buffers, opens the writer's own (appending) event
 * log in cfg->write->dirfd, counts the snapshots already there against the
 * limits and starts the writer thread. Returns NULL with errno set: EINVAL
 * for a NULL @cfg, cfg->write or cfg->procs, ENOMEM, or the errno of
 * scanning the directory, opening the log or starting the thread.
 */
struct snapqueue *snapqueue_start(const struct snapqueue_config *cfg);

/*
 * A buffer for the caller to stage into, on the control path: no system
 * call but a futex. A free one, or else the oldest waiting one, whose
 * snapshot id is stored in *@dropped (0 when none was dropped). Returns
 * NULL only if no buffer is free and none waits (it cannot happen: one is
 * written at a time).
 */
struct snapqueue_buf *snapqueue_take(struct snapqueue *q, uint64_t *dropped);

/* Queue @buf (from snapqueue_take()) for the writer, or hand it back unused. */
void snapqueue_push(struct snapqueue *q, struct snapqueue_buf *buf);
void snapqueue_put_back(struct snapqueue *q, struct snapqueue_buf *buf);

/*
 * Where core @idx's bytes go in @buf: trace_cap bytes for its trace, then
 * sb_cap bytes for its sideband.
 */
uint8_t *snapqueue_core_mem(const struct snapqueue *q, struct snapqueue_buf *buf, unsigned int idx);

/*
 * --follow: process @pid joined (@gone false) or exited: told to the
 * readings of /proc (proccache_follow()), and a new one is read soon,
 * before it may be gone. For the control path. NULL @q: nothing.
 */
void snapqueue_follow(struct snapqueue *q, uint32_t pid, bool gone);

/* Asks the writer to read /proc/PID again soon (after an exec). NULL @q: nothing. */
void snapqueue_refresh_proc(struct snapqueue *q);

/*
 * Writes what is queued, stops the writer thread and frees everything.
 * Returns the number of snapshots written. NULL is fine.
 */
unsigned long snapqueue_stop(struct snapqueue *q);

#endif /* PTBPF_SNAPQUEUE_H */
