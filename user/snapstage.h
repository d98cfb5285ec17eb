/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots staged on the control path: each core paused just for the
 * memory copy of its rings into a buffer of the writer's queue
 * (snapqueue.h), which a thread of its own writes out. No allocation, no
 * file I/O but the event log's lines.
 *
 * What every snapshot of the run shares (backend, scope, attrs, TSC
 * conversion, CPU info) is given once at start, as a struct snap_run.
 */
#ifndef PTBPF_SNAPSTAGE_H
#define PTBPF_SNAPSTAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "cores.h"
#include "ptbpf_types.h"
#include "eventlog.h"
#include "snapqueue.h"

struct snapstage_config {
	const struct snap_run *run; /* copied: pid, full, attrs ... */
	uint64_t first_id; /* the id of the first snapshot of this run */
	/*
	 * Process scope: whether the target ran on @cpu since the last
	 * snapshot (watch_cpu_take()); cores it did not are not read. NULL:
	 * read every core.
	 */
	bool (*cpu_ran)(void *ctx, int cpu);
	void *cpu_ran_ctx;
	/* the writer's; nr_cores, cpus, trace_cap, sb_cap and pid are set
	 * from the cores and @run */
	struct snapqueue_config writer;
};

struct snapstage;

/*
 * Starts the writer's queue with a staging buffer per core of @cores for
 * each snapshot it can hold. @log is the control thread's event log, for
 * the drop notices; the writer opens its own. Returns NULL with errno set
 * (EINVAL for a NULL @cfg, @cfg->run or @cores; else snapqueue_start()'s)
 * and one line in @err.
 */
struct snapstage *snapstage_start(const struct snapstage_config *cfg, struct cores *cores,
				  struct eventlog *log, char *err, size_t errlen);

/*
 * Stages a snapshot of every core and queues it for the writer. Only
 * memory copies and the pause/restore ioctls: for the control path.
 * @t->kind: what asked for it (snaptrig.h). Returns the
 * snapshot's id (> 0), or -errno: -EIO when a core could not be read (the
 * rest are staged all the same and the snapshot is still queued), -ENODATA
 * when no core had new bytes (nothing is queued; a snapshot_skipped event
 * says so), -EBUSY when no staging buffer could be had.
 */
int64_t snapstage_stage(struct snapstage *s, const struct snap_trigger *t);

/*
 * Remembers that thread @tid of the target is (or was last) named @comm,
 * for snapshots written after it exited (from thread_start, exec and
 * thread_exit events). NULL @s: nothing.
 */
/*
 * Keeps crash record @c (@len bytes of it) for the fatal snapshot of its
 * thread, staged next. Memory only: the control path.
 */
void snapstage_crash(struct snapstage *s, const struct ptbpf_crash *c, size_t len);

void snapstage_note_thread(struct snapstage *s, uint32_t tid, const char *comm);

/* --follow: snapqueue_follow(). NULL @s: nothing. */
void snapstage_follow(struct snapstage *s, uint32_t pid, bool gone);

/* Asks the writer to refresh its reading of /proc/PID (after an exec). */
void snapstage_refresh_proc(struct snapstage *s);

/*
 * Writes what is queued, stops the writer thread and frees everything.
 * Returns the number of snapshots written in the run. NULL is fine.
 */
unsigned long snapstage_stop(struct snapstage *s);

#endif /* PTBPF_SNAPSTAGE_H */
