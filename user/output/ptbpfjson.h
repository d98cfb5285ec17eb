/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptbpf.json, ptbpf's own metadata for every snapshot of every backend:
 * version, snapshot id, backend, scope, sampling, cause, crash record
 * and clocks, pid, per-core bytes and losses, the attrs, the time
 * conversion, the CPU with the options ptxed needs, the processes, and
 * which files the snapshot directory holds.
 *
 * What the directory holds is its writer's to say (snapwrite.h writes the
 * files and knows the formats): it is handed in as data, so this module
 * needs nothing of the writer. The builder writes into a caller's struct
 * json (json.h) so the caller decides where the bytes go.
 */
#ifndef PTBPF_PTBPFJSON_H
#define PTBPF_PTBPFJSON_H

#include <stdbool.h>

#include "json.h"
#include "base/snapshot.h"

/* One key of ptbpf.json's "files": a format, and whether it was written. */
struct ptbpfjson_file {
	const char *name; /* --format's word */
	bool written;
};

/* What the snapshot directory holds besides ptbpf.json. */
struct ptbpfjson_dir {
	const struct ptbpfjson_file *files; /* "files", in this order */
	unsigned int nr_files;
	/* vdso.so (SNAPFMT_VDSO) holds snap_run.vdso, the [vdso] of every
	 * process marked SNAP_VDSO_NATIVE */
	bool vdso;
};

/*
 * Builds ptbpf.json for @snap, whose directory holds what @dir says, in
 * @j: version, snapshot id, backend, scope, sampling, cause, crash
 * record, clocks, pid, "files" (@dir->files), "vdso" (when @dir->vdso),
 * per-core bytes, wrapped, lost_bytes, head and pause time, the attrs (PMU
 * type, config, sample_type), time conversion, the CPU identification with
 * the options ptxed needs (--cpu, --mtc-freq, --nom-freq, --cpuid-0x15.*;
 * backends with an LLDB bundle only), and each process with what backs its
 * [vdso].
 *
 * Returns 0 or the json error (json_finish() semantics: -ENOSPC, -ENOMEM).
 * Returns -EINVAL if @snap, @dir or @j is NULL, @snap has cores but no
 * core array, @dir has files but no array of them, or @dir->vdso is set
 * while @snap has no vDSO image.
 */
int ptbpfjson_build(const struct snapshot *snap, const struct ptbpfjson_dir *dir, struct json *j);

#endif /* PTBPF_PTBPFJSON_H */
