/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots: staged on the control path with memory copies only (each
 * core paused just for its copy), written by a thread of their own.
 *
 * Staging buffers are allocated once, at start, for a bounded queue of
 * snapshots waiting for the writer plus the one being written. When the
 * writer falls behind and the queue is full, the oldest waiting snapshot is
 * dropped (a snapshot_error event says which): the control path never waits
 * for the disk.
 *
 * With --max-size or --max-snapshots the writer keeps the directory within
 * them: before a snapshot is written, the oldest snapshots are removed
 * until a generous estimate of its size fits; once written, its real size
 * is counted. Each removal is a snapshot_removed event.
 *
 * The writer reads /proc/PID for the COMM and MMAP2 records and the LLDB
 * modules. A process that has exited (or is a zombie) has no maps left, so
 * the writer keeps the last good reading, refreshed when idle, and uses it
 * when the live one comes back empty.
 */
#ifndef PTBPF_SNAPSHOT_H
#define PTBPF_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "cores.h"
#include "eventlog.h"

#define SNAPSHOT_DEFAULT_QUEUE 3

struct snapshots_config {
	const char *out_dir;
	int dirfd; /* of out_dir: everything is made relative to it */
	const char *run; /* the run's id for events.jsonl, or NULL */
	int uid, gid; /* owner of what is written; -1: as is */
	unsigned int formats; /* enum format_bits */
	unsigned int max_snapshots; /* 0: keep all */
	unsigned long long max_size; /* bytes of snapshots in out_dir; 0: any */
	unsigned int queue_len; /* 0: SNAPSHOT_DEFAULT_QUEUE */
	bool full; /* whole buffers each time */
	uint32_t pid;
	uint64_t first_id; /* the id of the first snapshot of this run */
	uint64_t run_start_ns; /* CLOCK_MONOTONIC of the run's start, or 0 */
	const char *proc_root; /* NULL: "/proc" */
	const char *buildid_cache; /* perf's, to fill; NULL: none */
	int verbosity; /* >= 0: a line on stderr per snapshot written */
	/*
	 * Process scope: whether the target ran on @cpu since the last
	 * snapshot (watch_cpu_take()); cores it did not are not read. NULL:
	 * read every core.
	 */
	const char *scope_why; /* why auto fell back, kept for the run */
	bool (*cpu_ran)(void *ctx, int cpu);
	void *cpu_ran_ctx;
};

struct snapshots;

/*
 * Allocates the staging buffers for @cores and starts the writer thread.
 * @log is the control thread's event log, for the drop notices; the writer
 * opens its own (appending) for its events. Returns NULL with errno set
 * and one line in @err.
 */
struct snapshots *snapshots_start(const struct snapshots_config *cfg,
				  struct cores *cores, struct eventlog *log,
				  char *err, size_t errlen);

/*
 * Stages a snapshot of every core and queues it for the writer. Only
 * memory copies and the pause/restore ioctls: for the control path.
 * @t->name: "stop", "fatal", "exit", "requested", "end". Returns the
 * snapshot's id (> 0), or -errno: -EIO when a core could not be read (the
 * rest are staged all the same and the snapshot is still queued), -ENODATA
 * when no core had new bytes (nothing is queued; a snapshot_skipped event
 * says so).
 */
int64_t snapshots_stage(struct snapshots *s, const struct snap_trigger *t);

/*
 * Remembers that thread @tid of the target is (or was last) named @comm,
 * for snapshots written after it exited (from thread_start, exec and
 * thread_exit events). A short critical section shared with the writer.
 */
void snapshots_note_thread(struct snapshots *s, uint32_t tid, const char *comm);

/*
 * --follow: process @pid joined (@gone false) or exited: snapshots hold
 * its COMM and MMAP2 records as /proc last showed them with maps, read on
 * the writer thread. Memory only, for the control path.
 */
void snapshots_follow(struct snapshots *s, uint32_t pid, bool gone);

/* Asks the writer to refresh its reading of /proc/PID (after an exec). */
void snapshots_refresh_proc(struct snapshots *s);

/*
 * Writes what is queued, stops the writer thread and frees everything.
 * Returns the number of snapshots written in the run. NULL is fine.
 */
unsigned long snapshots_stop(struct snapshots *s);

#endif /* PTBPF_SNAPSHOT_H */
