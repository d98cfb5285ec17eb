/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data writer: turns a staged snapshot into a file that `perf script`
 * and `perf report` open (tools/perf/Documentation/perf.data-file-format.txt
 * in the kernel tree).
 *
 * Layout: file header, the attrs' ID arrays, the attrs section, the data
 * section, then the feature section table and the features perf record
 * writes for the same events: BUILD_ID (every code-mapped file of the
 * target), HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID,
 * TOTAL_MEM, CMDLINE, EVENT_DESC, CPU_TOPOLOGY, and CLOCKID/CLOCK_DATA
 * when the data event has its own clock (backend_ops.clockid).
 *
 * Two attrs per file: the data event (the backend's: intel_pt, cpu-clock)
 * and the
 * context-switch sideband (dummy). Each core's events contribute one ID to
 * each attr. Every record in the data section carries a sample ID with
 * PERF_SAMPLE_IDENTIFIER, TID, TIME and CPU: perf needs IDENTIFIER to find
 * a record's attr once a file has two, and CPU to give per-CPU AUX data its
 * thread from the context switches.
 *
 * The data section of a backend with an AUX area (intel-pt):
 * PERF_RECORD_AUXTRACE_INFO (its type and words from the backend's row),
 * TIME_CONV, COMM and MMAP2 of the target, the context switches and the
 * data event's own records, one PERF_RECORD_AUXTRACE per core with that
 * core's trace bytes. Of one whose data ring is the trace (sample):
 * TIME_CONV, COMM, MMAP2, the context switches and the samples (and any
 * other record the data ring held).
 */
#ifndef PTBPF_PERFDATA_H
#define PTBPF_PERFDATA_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "perffile.h"
#include "perfhost.h"
#include "base/snapshot.h"

/* The most private words an AUXTRACE_INFO takes (Intel PT's: 17). */
#define PERFDATA_AUXTRACE_PRIV_MAX 64

/*
 * Fills @attr with the attr the file declares for @in: @in's fields,
 * size PERFFILE_ATTR_SIZE, sample_id_all set, and PERFFILE_ID_BITS and
 * PERF_SAMPLE_IP added to sample_type.
 *
 * Returns 0, or -EINVAL if an argument is NULL.
 */
int perfdata_file_attr(const struct perf_event_attr *in, struct perf_event_attr *attr);

/*
 * The IDs the file gives core @idx's data and sideband events: the
 * PERF_EVENT_IOC_ID values staged in @snap, or unique made-up ones where
 * the collection left them 0.
 *
 * Returns 0, or -EINVAL if an argument is NULL or @idx is out of range.
 */
int perfdata_core_ids(const struct snapshot *snap, unsigned int idx, __u64 *data_id, __u64 *sb_id);

/*
 * Writes the PERF_RECORD_AUXTRACE_INFO of @snap's backend into @dst of
 * @cap bytes: the AUX format's type and its private words, both from the
 * backend's row (backend_ops.auxtrace_type and auxtrace_priv: for Intel
 * PT, ptbe_auxtrace_priv()).
 *
 * Returns the record size.
 * Returns -EINVAL if @snap or @dst is NULL, or the backend has no AUX
 * area (no auxtrace_priv).
 * Returns -ENOSPC if @cap is too small.
 */
ssize_t perfdata_auxtrace_info(const struct snapshot *snap, void *dst, size_t cap);

/*
 * Writes the whole perf.data for @snap to @fd, which must be a new, empty
 * regular file open for writing (the header is filled in last with
 * pwrite). @host may be NULL: features then come from hostinfo_read().
 *
 * Returns 0 on success.
 * Returns -EINVAL if @snap is NULL, its backend is not known
 * (backend_known()), or it has no cores (the IDs of synthesized records are those of
 * the first core's sideband event).
 * Returns -EBADMSG if a core's staged records are malformed.
 * Returns -ENOMEM if memory runs out.
 * Returns the -errno of a failed write (-ENOSPC, -EIO, -EBADF ...).
 */
int perfdata_write(int fd, const struct snapshot *snap, const struct perfhost *host);

/*
 * The crash record's registers in perf.data (its attr's sample_regs_user):
 * perf's x86-64 set for DWARF unwinding, every general-purpose register but
 * DS, ES, FS and GS (perf_event_x86_regs numbering, as snap_crash.regs).
 */
#define PERFDATA_CRASH_REGS (((1ULL << 24) - 1) & ~(0xfULL << 12))
#define PERFDATA_REG_IP 8

/*
 * @snap's crash record as a PERF_RECORD_SAMPLE of the crash attr, with
 * sample ID @id, into @dst (@cap bytes): returns its size, -EINVAL when
 * @snap has no crash record or no core, -E2BIG when it does not fit.
 */
ssize_t perfdata_crash_record(const struct snapshot *snap, __u64 id, void *dst, size_t cap);

#endif /* PTBPF_PERFDATA_H */
