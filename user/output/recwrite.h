/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf records the tracer writes: re-encoding a kernel record for the
 * sample_type a file's attr declares, and synthesizing COMM and MMAP2.
 *
 * Why re-encode: perf needs every record of a multi-attr file to carry
 * PERF_SAMPLE_IDENTIFIER (and CPU for per-CPU AUX decoding) to find its
 * attr, while LLDB reads context switches that carry exactly TID and TIME.
 * The kernel wrote the records with whatever the sideband event asked for;
 * each consumer gets them in its own layout.
 *
 * Sizes are returned as positive counts, errors as -errno.
 */
#ifndef PTBPF_RECWRITE_H
#define PTBPF_RECWRITE_H

#include "perfrec.h"
#include "base/snapshot.h"

/* How recwrite_convert() re-encodes records of one event. */
struct recwrite_conv {
	__u64 from_type; /* the sample_type the kernel wrote with */
	bool from_id_all; /* the kernel appended sample IDs (sample_id_all) */
	__u64 to_type; /* the sample_type of the attr in the output */
	bool to_id_all; /* append sample IDs to non-sample records */
	__u64 id; /* the event's ID: overrides any ID in the record */
	__u32 cpu; /* the event's CPU: overrides any CPU in the record */
};

/*
 * Re-encodes the kernel record @rec (@len bytes) for @c->to_type into @dst
 * of @cap bytes: the sample ID of a non-sample record, or the leading fixed
 * fields (IDENTIFIER ... CPU) of a PERF_RECORD_SAMPLE. Values the record
 * lacks are filled with -1 (pid, tid) or 0 (time); ID and CPU always come
 * from @c. The rest of the record is copied unchanged.
 *
 * Returns the size of the new record.
 * Returns -EINVAL if an argument is NULL, or the types differ in a sample
 * field other than the fixed leading ones.
 * Returns -EBADMSG if @rec is shorter than its header says it needs.
 * Returns -ENOSPC if the result does not fit @cap or PERFREC_MAX.
 */
ssize_t recwrite_convert(const void *rec, size_t len, const struct recwrite_conv *c, void *dst,
			 size_t cap);

/*
 * Writes a PERF_RECORD_COMM for thread @tid of process @pid named @comm
 * (at most 15 bytes are kept) with the sample ID @id for @type (none when
 * @type is 0) into @dst of @cap bytes.
 *
 * Returns the record's size.
 * Returns -EINVAL if @dst, @comm or @id is NULL.
 * Returns -ENOSPC if it does not fit @cap.
 */
ssize_t recwrite_comm(void *dst, size_t cap, __u32 pid, __u32 tid, const char *comm, __u64 type,
		      const struct perfrec_id *id);

/*
 * Writes a PERF_RECORD_MMAP2 for mapping @m of process @pid (user space,
 * MAP_PRIVATE, file name NUL-padded to 8) with the sample ID @id for @type
 * into @dst of @cap bytes.
 *
 * Returns the record's size.
 * Returns -EINVAL if @dst, @m, @m->path or @id is NULL.
 * Returns -ENAMETOOLONG if the record would pass PERFREC_MAX.
 * Returns -ENOSPC if it does not fit @cap.
 */
ssize_t recwrite_mmap2(void *dst, size_t cap, __u32 pid, const struct snap_map *m, __u64 type,
		       const struct perfrec_id *id);

#endif /* PTBPF_RECWRITE_H */
