/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ending a staged snapshot at an instant: the records of a perf stream
 * stamped after it are left out, in place. For --trigger-on snapshots of
 * the sample backend, whose records carry their CLOCK_MONOTONIC time (the
 * clock of the hit's kernel timestamp), so the snapshot's data ends at the
 * hit although it was staged a little later. Memory only; pure.
 */
#ifndef PTBPF_SNAPCUT_H
#define PTBPF_SNAPCUT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "base/snapshot.h"

/*
 * Removes from the record stream @buf (*@len bytes, as perfrec_next()
 * walks it) every record stamped after @ts: PERF_RECORD_SAMPLE by its
 * TIME field (@sample_type of its event), other records by their sample
 * ID (@id_all: the event has sample_id_all). Records without a time stay.
 * *@len becomes the kept length; @cut (may be NULL) gets what was left
 * out, and after_hit_ns the latest time seen past @ts, minus @ts.
 *
 * Returns 0, -EINVAL for NULL @buf or @len, or -EBADMSG for a malformed
 * stream (then nothing is changed).
 */
int snapcut_stream(uint8_t *buf, size_t *len, __u64 sample_type, int id_all, uint64_t ts,
		   struct snap_cut *cut);

/*
 * Cuts every core of @s (trace and sideband) at @s->why.ts, filling
 * @s->cut ("time"). For sample-backend snapshots only: -EINVAL otherwise.
 * Returns 0 or the first -EBADMSG (that core's stream is left whole).
 */
int snapcut_snapshot(struct snapshot *s);

#endif /* PTBPF_SNAPCUT_H */
