/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own PERF_RECORD_MMAP2 records (the sideband event asks for
 * them: evattr_sideband()) merged into the processes' /proc readings.
 *
 * Why: /proc/PID/maps is read on the writer thread, a few ms after an exec
 * and then once a second, and a reading needs the process alive. A
 * process that maps a library and dies before the next reading (dlopen()
 * then a crash; a short life on a loaded machine, where the writer runs
 * late) left the library out of every reading, and its frames unnamed.
 * The kernel writes its record at the mmap() itself, into the ring the
 * snapshot copies, whatever happens to the process next.
 */
#ifndef PTBPF_KMAPS_H
#define PTBPF_KMAPS_H

#include <stddef.h>

#include "base/snapshot.h"

/*
 * Adds mapping @m (its path copied) to @p's maps in address order, in
 * place of what it overlaps (trimmed, or split, as the kernel's mmap
 * over an older mapping leaves it). Returns 0, or -ENOMEM.
 */
int kmaps_add(struct snap_process *p, const struct snap_map *m);

/*
 * Merges the MMAP2 records among the perf records @buf (@len bytes, as a
 * staged ring holds them) into the reading of the process they name: @p
 * or one of @more (@nr_more); others are left alone. Returns how many
 * were merged, or -ENOMEM (what was merged before stays).
 */
int kmaps_merge(const void *buf, size_t len, struct snap_process *p, struct snap_process *more,
		unsigned int nr_more);

/*
 * Takes the MMAP2 records out of the perf records @buf (*@len bytes), in
 * place, the others kept in order; *@len is what is left. Once merged
 * into the readings they are written as the readings' own records (at
 * the file's start, as perf writes them): in the stream, Debian's perf
 * 6.1 was seen to stop unwinding the crash sample at a kernel record
 * of the code mapping (it reads .eh_frame_hdr through the file's start,
 * which only /proc's readings map). The FORK and EXIT records go too:
 * the kernel writes them to any event that asks for mmap records, and
 * perf would name a thread after its parent from its FORK, over the
 * name the snapshot gives it. A stream cut off ends it there.
 */
void kmaps_strip(void *buf, size_t *len);

#endif /* PTBPF_KMAPS_H */
