/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which snapshots the output directory keeps, with --max-size or
 * --max-snapshots: those already there are counted at start; before a
 * snapshot is written, the oldest are removed until a generous estimate
 * of its size fits; once written, its real size is counted. Each removal
 * is a snapshot_removed event. Also the temporary directories a killed
 * run left, removed at start. The writer thread's alone (budget.h keeps
 * the books).
 */
#ifndef PTBPF_SNAPKEEP_H
#define PTBPF_SNAPKEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "snaplog.h"
#include "output/eventlog.h"
#include "base/snapshot.h"
#include "output/snapwrite.h"

struct snapkeep {
	const struct snapwrite_opts *write; /* the directory and the formats */
	uint64_t max_size; /* bytes of snapshots and events.jsonl; 0: any */
	bool limits; /* max_size or max_snapshots */
	struct budget budget;
	unsigned long block; /* the output directory's block size */
	struct eventlog *log; /* where removals are told */
	uint32_t pid; /* the target, for the events */
};

/* What was removed for one snapshot, for its line (snaplog.h). */
struct snapkeep_removed {
	unsigned int n;
	uint64_t bytes;
	bool size; /* --max-size asked, not only --max-snapshots */
};

/*
 * Counts the snapshots in @write->dirfd against @max_size bytes (0: any;
 * events.jsonl has its share of it) and @max_snapshots (0: all); removals
 * are told in @log, in the name of process @pid.
 * Returns 0, -ENOMEM, or the -errno of reading the directory.
 */
int snapkeep_init(struct snapkeep *k, const struct snapwrite_opts *write, uint64_t max_size,
		  unsigned int max_snapshots, struct eventlog *log, uint32_t pid);

/*
 * Removes the temporary directories a killed run left (they would take
 * the name of this run's snapshot of that number, and disk space
 * --max-size does not see): a warning event, and a line on stderr unless
 * @verbosity < 0.
 */
void snapkeep_remove_stale(struct snapkeep *k, int verbosity);

/*
 * Makes room for @snap before it is written, adding what was removed to
 * @rm. Returns 0, or -EFBIG with one line in @err when it can't fit even
 * alone.
 */
int snapkeep_make_room(struct snapkeep *k, const struct snapshot *snap, struct snapkeep_removed *rm,
		       char *err, size_t errlen);

/* Counts @snap just written, then trims to the limits again into @rm. */
void snapkeep_account(struct snapkeep *k, const struct snapshot *snap, struct snapkeep_removed *rm);

/*
 * The books of @k once a snapshot is written, with @rm, what was removed
 * for it, into @books: what its line says (snaplog_written()).
 */
void snapkeep_books(const struct snapkeep *k, const struct snapkeep_removed *rm,
		    struct snaplog_books *books);

void snapkeep_free(struct snapkeep *k);

#endif /* PTBPF_SNAPKEEP_H */
