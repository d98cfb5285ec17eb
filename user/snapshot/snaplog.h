/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What is said of each snapshot, in events.jsonl and on stderr: the
 * "snapshot" line once it is written (its body: snapjson.h), and
 * "snapshot_error" for one that was lost (dropped by the queue, refused by
 * --max-size, failed to write) or had a core that could not be read.
 */
#ifndef PTBPF_SNAPLOG_H
#define PTBPF_SNAPLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "output/eventlog.h"
#include "base/snapshot.h"

/*
 * The output directory's books once a snapshot is written, for its line
 * (snapkeep_books() fills them): handed in as data, so what is said needs
 * nothing of the module that keeps the books.
 */
struct snaplog_books {
	bool limits; /* --max-size or --max-snapshots: the event has dir_bytes */
	uint64_t used; /* the bytes of the snapshots the directory holds */
	uint64_t max_size; /* --max-size; 0: none */
	unsigned int removed; /* the oldest snapshots removed for this one */
	uint64_t removed_bytes;
	bool removed_for_size; /* --max-size asked, not only --max-snapshots */
};

/* A "snapshot_error" event about snapshot @id of process @pid. */
void snaplog_error(struct eventlog *log, uint32_t pid, uint64_t id, const char *reason);

/*
 * Snapshot @id is lost for @reason: a "snapshot_error" event, and a line
 * on stderr unless @verbosity < 0.
 */
void snaplog_lost(struct eventlog *log, uint32_t pid, uint64_t id, const char *reason,
		  int verbosity);

/*
 * Snapshot @snap was written at @path in @write_ns: its "snapshot" event,
 * with the directory's bytes when @books has limits, and on stderr a line
 * with what @books says was removed for it (unless @verbosity < 0, or the
 * status line counts it and there is nothing more to say).
 */
void snaplog_written(struct eventlog *log, const struct snapshot *snap, const char *path,
		     uint64_t write_ns, const struct snaplog_books *books, int verbosity);

#endif /* PTBPF_SNAPLOG_H */
