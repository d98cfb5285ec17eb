/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target's last moments as a picture, for Perfetto's UI: Chrome trace
 * event JSON (tljson.c) or Perfetto's own protobuf (tlpf.c), the same
 * tracks and events in both. Times are perf clock (CLOCK_MONOTONIC on
 * x86), so ptbpf's own events.jsonl, stamped with CLOCK_MONOTONIC, line
 * up with the trace; the Perfetto file also pairs that clock with
 * CLOCK_REALTIME (the snapshot's clock pair) for times of day.
 *
 * Tracks: every process (the target and each followed one) and each of
 * its threads, a track per CPU, counters per core. On a thread's track,
 * intel-pt: each run on a core is a stack of nested slices, opened at
 * each call and closed at each return of the decoded flow, named after
 * the function; sample: a flame chart in time: each sample a stack of
 * nested slices (outermost first, the leaf carrying the IP and cpu),
 * lasting until the thread's next sample, its core's next context switch
 * or one period, whichever is first (so slices on a track never overlap);
 * frames that consecutive samples share stay one slice. On a CPU's track,
 * a slice for each time a traced thread ran there (its switch records).
 * Each snapshot is an instant on its cause's thread, with its facts
 * (cause, signal, kind, ip, fault address), and sets its cores'
 * "bytes" and "lost bytes" counters; events.jsonl: one instant per line,
 * named after the event, its fields as args.
 *
 * This module draws what every snapshot has (processes, threads, the
 * snapshot's facts, the CPU tracks); the threads' slices are the part of
 * the snapshot's backend that its row names (dumpbe.h): intel-pt's in
 * ptshow.c, sample's in sampshow.c.
 */
#ifndef PTBPF_DUMP_TIMELINE_H
#define PTBPF_DUMP_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <intel-pt.h>

#include "symtab.h"
#include "snap.h"

#include "tlout.h"

struct dump_tl {
	struct tl_writer w;
	bool begun;
};

/*
 * Starts a timeline in format @fmt on @out. Returns 0, or -EINVAL if an
 * arg is NULL, -ENOMEM.
 */
int timeline_begin_fmt(struct dump_tl *tl, FILE *out, enum tl_format fmt);

/* timeline_begin_fmt() in Chrome's JSON. */
int timeline_begin(struct dump_tl *tl, FILE *out);

/*
 * The format a --timeline FILE gets by its name: Perfetto's for ".pftrace"
 * and ".perfetto-trace", JSON otherwise.
 */
enum tl_format timeline_format_of(const char *file);

/* Ends the document. Returns 0, or -EIO if writing failed, -ENOMEM. */
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
