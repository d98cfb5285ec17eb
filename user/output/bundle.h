/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON of a snapshot directory: trace.json, the description of an LLDB
 * intel-pt per-core trace bundle (the schema `lldb -b -o "trace schema
 * intel-pt"` prints), and ptbpf.json, ptbpf's own metadata for every
 * backend; plus the per-core context-switch files the bundle names.
 *
 * The JSON builders write into a caller's struct json (json.h) so the
 * caller decides where the bytes go; the file writer lives in snapwrite.
 */
#ifndef PTBPF_BUNDLE_H
#define PTBPF_BUNDLE_H

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
 * pseudo files like [uprobes] left out; a [vdso] ptbpf saved the image of
 * is one, its "file" SNAPFMT_VDSO), cpus with iptTrace and
 * contextSwitchTrace paths, tscPerfZeroConversion.
 *
 * Returns 0 or the json error (json_finish() semantics: -ENOSPC, -ENOMEM).
 * Returns -EINVAL if an argument is NULL, the backend is not intel-pt, or
 * @snap has cores but no core array.
 */
int bundle_trace_json(const struct snapshot *snap, struct json *j);

/*
 * Builds ptbpf.json for @snap in @j: version, snapshot id, backend,
 * trigger, signal, timestamp, pid and threads, per-core bytes, wrapped,
 * lost_bytes, head and pause time, the attrs (PMU type, config,
 * sample_type), time conversion, and the CPU identification with the
 * options ptxed needs (--cpu, --mtc-freq, --nom-freq, --cpuid-0x15.*).
 * @formats (SNAPWRITE_*) records which files were written.
 *
 * Returns 0 or the json error; -EINVAL if an argument is NULL or @snap has
 * cores but no core array.
 */
int bundle_ptbpf_json(const struct snapshot *snap, unsigned int formats, struct json *j);

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
