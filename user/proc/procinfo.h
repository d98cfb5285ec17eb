/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target as /proc shows it at snapshot time: its name, executable,
 * threads and executable file mappings, for the COMM and MMAP2 records of
 * perf.data and the modules of trace.json. Read on the writer thread,
 * never on the control path.
 */
#ifndef PTBPF_PROCINFO_H
#define PTBPF_PROCINFO_H

#include <stdint.h>

#include "base/snapshot.h"

/*
 * Fills @p for process @pid from @proc_root ("/proc" when NULL; tests pass
 * a fake tree): comm, the exe link (NULL if it can't be read, as for a
 * zombie), every thread under task/ with its comm (sorted by tid), and the
 * executable mappings of maps in address order. @p is overwritten; free it
 * with procinfo_free().
 *
 * Returns 0 on success.
 * Returns -EINVAL if @p is NULL or @pid is 0.
 * Returns -ENAMETOOLONG if @proc_root is too long for a path.
 * Returns -ENOENT or another open(2) -errno if the process is gone or its
 * maps can't be read (@p is then empty, not half-filled).
 * Returns -ESRCH if the process let go of its memory while its maps were
 * read (it was exiting: the reading may end early, and is not kept).
 * Returns -EBADMSG if the maps file holds a line that is not a mapping.
 * Returns -ENOMEM if memory runs out.
 */
int procinfo_read(const char *proc_root, uint32_t pid, struct snap_process *p);

/* Frees what procinfo_read() allocated and zeroes @p; NULL is a no-op. */
void procinfo_free(struct snap_process *p);

#endif /* PTBPF_PROCINFO_H */
