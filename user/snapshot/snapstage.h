/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots staged on the control path: each core paused just for the
 * memory copy of its rings into a buffer of the writer's queue
 * (snapqueue.h), which a thread of its own writes out. No allocation, no
 * file I/O but the event log's lines.
 *
 * What every snapshot of the run shares (backend, scope, attrs, TSC
 * conversion, CPU info) is given once at start, as a struct snap_run.
 *
 *	snapstage_layout(cores, &qc);
 *	q = snapqueue_start(&qc);
 *	s = snapstage_start(&cfg, cores, q, log, err, sizeof(err));
 *	...
 *	snapstage_stop(s);
 *	written = snapqueue_stop(q);
 */
#ifndef PTBPF_SNAPSTAGE_H
#define PTBPF_SNAPSTAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/cores.h"
#include "base/ptbpf_types.h"
#include "output/eventlog.h"
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
	/* >= 0: a lost snapshot is said on stderr; > 0: a skipped one too */
	int verbosity;
};

struct snapstage;

/*
 * The staging buffers a queue needs for the cores of @cores: sets
 * @qc->nr_cores, trace_cap and sb_cap.
 */
void snapstage_layout(struct cores *cores, struct snapqueue_config *qc);

/*
 * Stages the cores of @cores into the buffers of @queue, which was started
 * with snapstage_layout() of @cores and outlives the stager. @log is the
 * control thread's event log, for the drop notices; the writer has its
 * own. Returns NULL with errno set (EINVAL for a NULL @cfg, @cfg->run,
 * @cores or @queue; ENOMEM) and one line in @err.
 */
struct snapstage *snapstage_start(const struct snapstage_config *cfg, struct cores *cores,
				  struct snapqueue *queue, struct eventlog *log, char *err,
				  size_t errlen);

/*
 * Stages a snapshot of every core and queues it for the writer. Only
 * memory copies and the pause/restore ioctls: for the control path.
 * @cause->kind: what asked for it (snapcause.h). Returns the
 * snapshot's id (> 0), or -errno: -EIO when a core could not be read (the
 * rest are staged all the same and the snapshot is still queued), -ENODATA
 * when no core had new bytes (nothing is queued; a snapshot_skipped event
 * says so), -EBUSY when no staging buffer could be had.
 */
int64_t snapstage_stage(struct snapstage *s, const struct snap_cause *cause);

/*
 * Keeps crash record @c (@len bytes of it) for the fatal snapshot of its
 * thread, staged next. Memory only: the control path.
 */
void snapstage_crash(struct snapstage *s, const struct ptbpf_crash *c, size_t len);

/*
 * Frees the stager; what it staged stays queued (snapqueue_stop() writes
 * it). NULL is fine.
 */
void snapstage_stop(struct snapstage *s);

#endif /* PTBPF_SNAPSTAGE_H */
