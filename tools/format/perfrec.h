/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf records, one at a time, as both ptbpf (writing) and ptbpf-dump
 * (reading) see them: walking a stream of them and encoding and decoding
 * their sample IDs and the fixed leading fields of a sample. The writers
 * that re-encode and synthesize records are the tracer's (recwrite.h).
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

/* The sample_type bits a sample ID (sample_id_all trailer) may hold. */
#define PERFREC_ID_BITS                                                                \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* A record may be at most this long: header.size is a __u16. */
#define PERFREC_MAX 65535

/*
 * The records ptbpf writes and reads by field, as the kernel and perf lay
 * them out (perf_event_open(2); perf's util/event.h for the AUXTRACE
 * ones). Variable parts (names, trace bytes) and the sample ID follow.
 */
struct perfrec_comm {
	struct perf_event_header header;
	__u32 pid, tid;
	/* char comm[], NUL-padded to 8, then the sample ID */
};

struct perfrec_mmap2 {
	struct perf_event_header header;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	__u32 maj, min;
	__u64 ino, ino_generation;
	__u32 prot, flags;
	/* char filename[], NUL-padded to 8, then the sample ID */
};

/* PERF_RECORD_SWITCH_CPU_WIDE: the task switched to (out) or from (in) */
struct perfrec_switch_cpu_wide {
	struct perf_event_header header;
	__u32 next_prev_pid, next_prev_tid;
	/* then the sample ID */
};

/* PERF_RECORD_AUXTRACE: header.size is 48; @size bytes of trace follow */
struct perfrec_auxtrace {
	struct perf_event_header header;
	__u64 size, offset, reference;
	__u32 idx, tid, cpu, reserved;
};

/* perf's PERF_RECORD_TIME_CONV: TSC to perf time */
struct perfrec_time_conv {
	struct perf_event_header header;
	__u64 time_shift, time_mult, time_zero, time_cycles, time_mask;
	__u8 cap_user_time_zero, cap_user_time_short, reserved[6];
};

/* The priv[] slots of an Intel PT AUXTRACE_INFO, in perf's intel-pt.h order. */
enum perfrec_pt_priv {
	PERFREC_PT_PMU_TYPE,
	PERFREC_PT_TIME_SHIFT,
	PERFREC_PT_TIME_MULT,
	PERFREC_PT_TIME_ZERO,
	PERFREC_PT_CAP_USER_TIME_ZERO,
	PERFREC_PT_TSC_BIT,
	PERFREC_PT_NORETCOMP_BIT,
	PERFREC_PT_HAVE_SCHED_SWITCH,
	PERFREC_PT_SNAPSHOT_MODE,
	PERFREC_PT_PER_CPU_MMAPS,
	PERFREC_PT_MTC_BIT,
	PERFREC_PT_MTC_FREQ_BITS,
	PERFREC_PT_TSC_CTC_N,
	PERFREC_PT_TSC_CTC_D,
	PERFREC_PT_CYC_BIT,
	PERFREC_PT_MAX_NONTURBO_RATIO,
	PERFREC_PT_FILTER_STR_LEN,
	PERFREC_PT_PRIV_NR,
};

/*
 * perf's PERF_RECORD_AUXTRACE_INFO: the AUX format's type (perf's enum
 * auxtrace_type, PERFFILE_AUXTRACE_*), then that format's private words
 * (Intel PT's: PERFREC_PT_PRIV_NR of them, enum perfrec_pt_priv).
 */
struct perfrec_auxtrace_info {
	struct perf_event_header header;
	__u32 type, reserved;
	__u64 priv[];
};

/* The values of a sample ID, and the fixed leading fields of a sample. */
struct perfrec_id {
	__u32 pid, tid;
	__u64 time;
	__u64 id; /* PERF_SAMPLE_ID and PERF_SAMPLE_IDENTIFIER */
	__u64 stream_id;
	__u32 cpu;
	__u64 ip, addr; /* PERF_RECORD_SAMPLE only */
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
int perfrec_id_get(const void *rec, size_t len, __u64 type, struct perfrec_id *id);

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
int perfrec_next(const void *buf, size_t len, size_t *off, const struct perf_event_header **hdr);

/* Returns the size of the fixed leading fields @type gives a sample. */
size_t perfrec_sample_size(__u64 type);

/*
 * Encodes @id as the fixed leading fields (IDENTIFIER, IP, TID, TIME, ADDR,
 * ID, STREAM_ID, CPU) of a PERF_RECORD_SAMPLE for @type at @dst, which must
 * have perfrec_sample_size(@type) bytes.
 */
void perfrec_sample_put(void *dst, __u64 type, const struct perfrec_id *id);

/*
 * Decodes the fixed leading fields of a sample for @type at @src (which has
 * perfrec_sample_size(@type) bytes) into @id; fields @type lacks are -1 for
 * pid/tid/cpu, else 0.
 */
void perfrec_sample_get(const void *src, __u64 type, struct perfrec_id *id);

/* Sets @id to "nothing known": -1 for pid/tid/cpu, 0 for the rest. */
void perfrec_id_get_none(struct perfrec_id *id);

#endif /* PTBPF_PERFREC_H */
