/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading a snapshot directory into its model (snap.h): which files are
 * read, in what order, and what one may stand in for another, as the
 * snapshot's backend (dumpbe.h) says. Above the backends' table, with the
 * modes that load: the model below it cannot ask the table.
 */
#ifndef PTBPF_DUMP_LOAD_H
#define PTBPF_DUMP_LOAD_H

#include "snap.h"

/*
 * Loads the snapshot in directory @dir into @s. Problems in its files are
 * reported to @log and loading goes on with what is left.
 *
 * Returns 0 when the snapshot was read, even with problems in its files
 * (@log->nr_errors says how many).
 * Returns -EINVAL if an argument is NULL.
 * Returns -ENOENT if @dir holds no ptbpf.json (not a snapshot); reported.
 * Returns -ENOMEM if memory runs out.
 * @s is to be released with snap_free() in every case.
 */
int load_snapshot(const char *dir, struct dump_snap *s, struct dump_log *log);

#endif /* PTBPF_DUMP_LOAD_H */
