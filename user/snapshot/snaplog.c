// SPDX-License-Identifier: GPL-2.0
/* What is said of each snapshot (snaplog.h). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

#include "base/clock.h"
#include "output/snapjson.h"
#include "snaplog.h"
#include "base/status.h"

void snaplog_error(struct eventlog *log, uint32_t pid, uint64_t id, const char *reason)
{
	struct json *j = eventlog_begin(log, "snapshot_error", clock_now_ns(), pid);

	json_u64(j, "snapshot", id);
	json_str(j, "reason", reason);
	eventlog_end(log);
}

void snaplog_lost(struct eventlog *log, uint32_t pid, uint64_t id, const char *reason,
		  int verbosity)
{
	char line[PATH_MAX + 512];

	snaplog_error(log, pid, id, reason);
	if (verbosity < 0)
		return;
	snprintf(line, sizeof(line), "ptbpf: snapshot %" PRIu64 " lost: %s", id, reason);
	status_say_limited(line);
}

void snaplog_written(struct eventlog *log, const struct snapshot *snap, const char *path,
		     uint64_t write_ns, const struct snaplog_books *books, int verbosity)
{
	uint64_t lost, pmax, psum, bytes;
	char line[PATH_MAX + 256];
	bool wrapped = false;
	struct json *j;
	unsigned int i;
	size_t n;

	bytes = snapjson_staged(snap, &lost, &pmax, &psum);
	/*
	 * The line tells what the snapshot holds: a fatal one written for its
	 * crash record alone (nothing new on the cores) holds the record, not
	 * 0.0 KiB. The event's "bytes" stay the cores' (snapjson.h).
	 */
	if (snap->crash.valid)
		bytes += sizeof(snap->crash.regs) + snap->crash.stack_len;
	for (i = 0; i < snap->nr_cores; i++)
		wrapped |= snap->cores[i].wrapped;
	/* --follow: the line names the process the cause was in */
	j = eventlog_begin(log, "snapshot", clock_now_ns(),
			   snap->why.pid ? snap->why.pid : snap->run.pid);
	snapjson_line(j, snap, path, write_ns);
	if (books->limits)
		json_u64(j, "dir_bytes", books->used);
	eventlog_end(log);
	if (verbosity < 0)
		return;
	/* the status line counts it, when it is drawn (not after Ctrl-Z) */
	if (status_snapshot(bytes, books->used, books->max_size) && verbosity == 0 &&
	    !books->removed)
		return;
	/* one write: the control thread prints lines of its own meanwhile */
	n = snprintf(line, sizeof(line), "ptbpf: snapshot %" PRIu64 " (%s): %s, %.1f KiB%s",
		     snap->id, snapcause_name(snap->why.kind), path, bytes / 1024.0,
		     wrapped ? ", wrapped" : "");
	if (snap->why.folded)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      ", %u earlier stop%s folded in", snap->why.folded,
			      snap->why.folded == 1 ? "" : "s");
	if (snap->why.folded_hits)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      ", %u earlier hit%s folded in", snap->why.folded_hits,
			      snap->why.folded_hits == 1 ? "" : "s");
	if (books->removed)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      "; removed %u oldest (%.1f KiB) for %s", books->removed,
			      books->removed_bytes / 1024.0,
			      books->removed_for_size ? "--max-size" : "--max-snapshots");
	if (books->max_size)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      "; %.1f of %.1f MiB used", books->used / 1048576.0,
			      books->max_size / 1048576.0);
	status_say_limited(line);
}
