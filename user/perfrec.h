/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf records, one at a time: walking a staged stream of them, reading and
 * writing their sample IDs, re-encoding a kernel record for the sample_type
 * a file's attr declares, and synthesizing COMM and MMAP2 records.
 *
 * Why re-encode: perf needs every record of a multi-attr file to carry
 * PERF_SAMPLE_IDENTIFIER (and CPU for per-CPU AUX decoding) to find its
 * attr, while LLDB reads context switches that carry exactly TID and TIME.
 * The kernel wrote the records with whatever the sideband event asked for;
 * each consumer gets them in its own layout.
 *
 * Sizes are returned as positive counts, errors as -errno.
 */
#ifndef PTBPF_PERFREC_H
#define PTBPF_PERFREC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "snapdata.h"

/* The sample_type bits a sample ID (sample_id_all trailer) may hold. */
#define PERFREC_ID_BITS                                        \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
	 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* A record may be at most this long: header.size is a __u16. */
#define PERFREC_MAX 65535

/* The values of a sample ID, and the fixed leading fields of a sample. */
struct perfrec_id {
	__u32 pid, tid;
	__u64 time;
	__u64 id; /* PERF_SAMPLE_ID and PERF_SAMPLE_IDENTIFIER */
	__u64 stream_id;
	__u32 cpu;
	__u64 ip, addr; /* PERF_RECORD_SAMPLE only */
};

/* How perfrec_convert() re-encodes records of one event. */
struct perfrec_conv {
	__u64 from_type; /* the sample_type the kernel wrote with */
	bool from_id_all; /* the kernel appended sample IDs (sample_id_all) */
	__u64 to_type; /* the sample_type of the attr in the output */
	bool to_id_all; /* append sample IDs to non-sample records */
	__u64 id; /* the event's ID: overrides any ID in the record */
	__u32 cpu; /* the event's CPU: overrides any CPU in the record */
};

/* Returns the size of the sample ID that @type gives non-sample records. */
size_t perfrec_id_size(__u64 type);

/*
 * Encodes @id as the sample ID for @type at @dst, which must have
 * perfrec_id_size(@type) bytes.
 */
void perfrec_id_put(void *dst, __u64 type, const struct perfrec_id *id);

/*
 * Decodes the sample ID for @type from the last bytes of the record @rec of
 * @len bytes into @id (fields @type lacks are -1 for pid/tid/cpu, else 0).
 *
 * Returns 0.
 * Returns -EINVAL if @rec or @id is NULL.
 * Returns -EBADMSG if @len is shorter than a header plus the sample ID.
 */
int perfrec_id_get(const void *rec, size_t len, __u64 type,
		   struct perfrec_id *id);

/*
 * Finds the record at *@off in the stream @buf of @len bytes, as the kernel
 * writes them into a ring: each starts with a struct perf_event_header whose
 * size covers the whole record and is a multiple of 8.
 *
 * Returns 1 and sets *@hdr and advances *@off past it when there is one.
 * Returns 0 at the end of the stream.
 * Returns -EINVAL if @buf (with @len != 0), @off or @hdr is NULL.
 * Returns -EBADMSG if a header is cut off or its size is 0, not a multiple
 * of 8, or runs past @len; *@off then names the bad offset.
 */
int perfrec_next(const void *buf, size_t len, size_t *off,
		 const struct perf_event_header **hdr);

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
ssize_t perfrec_convert(const void *rec, size_t len,
			const struct perfrec_conv *c, void *dst, size_t cap);

/*
 * Writes a PERF_RECORD_COMM for thread @tid of process @pid named @comm
 * (at most 15 bytes are kept) with the sample ID @id for @type (none when
 * @type is 0) into @dst of @cap bytes.
 *
 * Returns the record's size.
 * Returns -EINVAL if @dst, @comm or @id is NULL.
 * Returns -ENOSPC if it does not fit @cap.
 */
ssize_t perfrec_comm(void *dst, size_t cap, __u32 pid, __u32 tid,
		     const char *comm, __u64 type, const struct perfrec_id *id);

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
ssize_t perfrec_mmap2(void *dst, size_t cap, __u32 pid,
		      const struct snap_map *m, __u64 type,
		      const struct perfrec_id *id);

#endif /* PTBPF_PERFREC_H */
