/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target's last moments as a picture: a file in the Chrome trace event
 * format ({"traceEvents": [...]}), which Perfetto's UI and chrome://tracing
 * open. Times are perf clock (CLOCK_MONOTONIC on x86) in microseconds, so
 * ptbpf's own events.jsonl, stamped with CLOCK_MONOTONIC, line up with the
 * trace.
 *
 * intel-pt: each run of a target thread on a core is a stack of nested
 * slices ("B"/"E"), opened at each call and closed at each return of the
 * decoded flow, named after the function. sample: a flame chart in time
 * per thread: each sample a stack of nested slices ("B"/"E", outermost
 * first, the leaf carrying the IP and cpu), lasting until the thread's next
 * sample, its core's next context switch or one period, whichever is first
 * (so slices on a track never overlap); frames that consecutive samples
 * share stay one slice. events.jsonl: one instant event ("i") per line, named after the
 * event, its fields as args.
 */
#ifndef PTBPF_DUMP_TIMELINE_H
#define PTBPF_DUMP_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <intel-pt.h>

#include "symtab.h"
#include "snap.h"

struct dump_tl {
	FILE *out;
	uint64_t nr_events;
	bool begun;
};

/* Starts the document on @out. Returns 0, or -EINVAL if an arg is NULL. */
int timeline_begin(struct dump_tl *tl, FILE *out);

/* Ends the document. Returns 0, or -EIO if writing @tl->out failed. */
int timeline_end(struct dump_tl *tl);

/*
 * Adds snapshot @s: names for its process and threads, then its slices:
 * decoded over @image with names from @tab (intel-pt), or from its
 * samples. Decode errors are reported to @log.
 *
 * Returns 0, or -EINVAL if an argument is NULL, -ENOMEM.
 */
int timeline_snapshot(struct dump_tl *tl, const struct dump_snap *s, struct pt_image *image,
		      const struct dump_symtab *tab, struct dump_log *log);

/*
 * Adds each line of events.jsonl, the text @buf of @len bytes (named
 * @file in messages), as an instant event. A line that is not a JSON
 * object with a string "event" and numbers "ts" and "pid" is reported with
 * its offset and left out; the others still go in.
 *
 * Returns the number of events added (>= 0), or -EINVAL, -ENOMEM.
 */
int timeline_events(struct dump_tl *tl, const char *buf, size_t len, const char *file,
		    struct dump_log *log);

#endif /* PTBPF_DUMP_TIMELINE_H */
