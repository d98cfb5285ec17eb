/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptbpf-dump --last: joined over the stream of snapshots that precede
 * one, everything the target did in its last DURATION, from the samples
 * of each (last.h), in time order.
 */
#ifndef PTBPF_DUMP_LASTJOIN_H
#define PTBPF_DUMP_LASTJOIN_H

#include <stdint.h>
#include <stdio.h>

#include "last.h"

/* Snapshots --last joins at most (older ones are not looked at). */
#define DUMP_LAST_MAX_SNAPS 4096

/*
 * ptbpf-dump --last: the target's samples in the @dur ns before the
 * cause of the snapshot in directory @dir, from it and the snapshots
 * before it in the same output directory (as many as the window needs,
 * back to the first of the same process), oldest first, one
 * last_moment_print() line each under a line saying what was joined.
 * Problems are reported to @log (a missing or unreadable snapshot ends the
 * join there, and says so).
 *
 * Returns 0.
 * Returns -EINVAL if an argument is NULL.
 * Returns -ENOENT if @dir is not a snapshot (reported).
 * Returns -EOPNOTSUPP for an intel-pt snapshot (reported: use --insn).
 * Returns -ENOMEM.
 */
int last_join(FILE *out, const char *dir, uint64_t dur, struct dump_log *log);

/*
 * last_join() for process @pid of a --follow run (0: the process the
 * snapshot's cause happened in): its samples in every snapshot joined.
 */
int last_join_pid(FILE *out, const char *dir, uint64_t dur, uint32_t pid, struct dump_log *log);

#endif /* PTBPF_DUMP_LASTJOIN_H */
