/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LLDB intel-pt per-core trace bundle of a snapshot directory:
 * trace.json, its description (the schema `lldb -b -o "trace schema
 * intel-pt"` prints), the per-core file names it gives, and the per-core
 * context-switch files. ptbpf.json, the metadata every backend writes, is
 * ptbpfjson.h's.
 *
 * The JSON builder writes into a caller's struct json (json.h) so the
 * caller decides where the bytes go; what the directory holds besides is
 * the caller's to say, as data: the files are written by snapwrite.
 */
#ifndef PTBPF_BUNDLE_H
#define PTBPF_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"
#include "base/snapshot.h"
#include "snapfmt.h"

/*
 * Writes the path of core @cpu's @suffix file relative to the snapshot
 * directory ("cpus/3.intelpt_trace") into @buf of @len bytes.
 *
 * Returns 0, -EINVAL if @buf or @suffix is NULL, -ENAMETOOLONG if it does
 * not fit.
 */
int bundle_cpu_path(char *buf, size_t len, int cpu, const char *suffix);

/*
 * Builds trace.json for @snap in @j (one top-level object): type,
 * cpuInfo, processes (pid, threads with tid, modules with systemPath and
 * loadAddress = start - file offset of the module's executable mapping,
 * pseudo files like [uprobes] left out), cpus with iptTrace and
 * contextSwitchTrace paths, tscPerfZeroConversion. @vdso_saved: the
 * directory holds the vDSO image (SNAPFMT_VDSO), and the [vdso] of each
 * process marked SNAP_VDSO_NATIVE is a module, its "file" that image.
 *
 * Returns 0 or the json error (json_finish() semantics: -ENOSPC, -ENOMEM).
 * Returns -EINVAL if an argument is NULL, the backend is not intel-pt, or
 * @snap has cores but no core array.
 */
int bundle_trace_json(const struct snapshot *snap, bool vdso_saved, struct json *j);

/*
 * Writes core @idx's context switches to @fd as LLDB reads them: the
 * kernel's records re-encoded with exactly PERF_SAMPLE_TID|TIME sample
 * IDs (LLDB parses that layout and no other).
 *
 * Returns 0.
 * Returns -EINVAL if @snap is NULL or @idx out of range.
 * Returns -EBADMSG if the staged sideband is malformed.
 * Returns the -errno of a failed write.
 */
int bundle_write_switch_trace(int fd, const struct snapshot *snap, unsigned int idx);

#endif /* PTBPF_BUNDLE_H */
