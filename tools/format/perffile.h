/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data file as ptbpf writes it and ptbpf-dump reads it: the file
 * header, the record types perf adds to the kernel's, and the header
 * feature numbers (perf's tools/perf/Documentation/perf.data-file-format.txt
 * and util/header.h give the same numbers).
 */
#ifndef PTBPF_PERFFILE_H
#define PTBPF_PERFFILE_H

#include <linux/types.h>
#include <linux/perf_event.h>

/*
 * perf refuses attrs larger than the struct it was built with; perf 6.1
 * knows PERF_ATTR_SIZE_VER7, so files carry that size.
 */
#define PERFFILE_ATTR_SIZE PERF_ATTR_SIZE_VER7

/* The sample ID bits every record in a ptbpf perf.data carries. */
#define PERFFILE_ID_BITS \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* perf's PERF_RECORD_AUXTRACE_INFO / AUXTRACE / TIME_CONV record types. */
#define PERFFILE_RECORD_AUXTRACE_INFO 70
#define PERFFILE_RECORD_AUXTRACE 71
#define PERFFILE_RECORD_TIME_CONV 79
#define PERFFILE_AUXTRACE_INTEL_PT 1

/* perf.data header feature bits (perf's HEADER_* numbers) */
enum perffile_feat {
	PERFFILE_FEAT_BUILD_ID = 2,
	PERFFILE_FEAT_HOSTNAME = 3,
	PERFFILE_FEAT_OSRELEASE = 4,
	PERFFILE_FEAT_VERSION = 5,
	PERFFILE_FEAT_ARCH = 6,
	PERFFILE_FEAT_NRCPUS = 7,
	PERFFILE_FEAT_CPUDESC = 8,
	PERFFILE_FEAT_CPUID = 9,
	PERFFILE_FEAT_TOTAL_MEM = 10,
	PERFFILE_FEAT_CMDLINE = 11,
	PERFFILE_FEAT_EVENT_DESC = 12,
	PERFFILE_FEAT_CPU_TOPOLOGY = 13,
	PERFFILE_FEAT_CLOCKID = 23,
	PERFFILE_FEAT_CLOCK_DATA = 29,
};

/* perf's build-id record misc bit: the size byte after the id is valid */
#define PERFFILE_MISC_BUILD_ID_SIZE (1 << 15)
#define PERFFILE_BUILD_ID_MAX 20

/* The on-disk file header (104 bytes). */
struct perffile_header {
	char magic[8]; /* "PERFILE2" */
	__u64 size; /* sizeof(struct perffile_header) */
	__u64 attr_size; /* PERFFILE_ATTR_SIZE + 16 */
	__u64 attrs_off, attrs_size;
	__u64 data_off, data_size;
	__u64 event_types_off, event_types_size;
	__u64 features[4]; /* bitmap of HEADER_* features present */
};

/* perf_file_section: where a part of the file lies */
struct perffile_section {
	__u64 offset, size;
};

/*
 * One entry of the attrs section: the attr (PERFFILE_ATTR_SIZE bytes in
 * ptbpf's files; the header's attr_size says) and where its IDs are.
 */
struct perffile_attr {
	struct perf_event_attr attr; /* the first attr_size - 16 bytes */
	struct perffile_section ids;
};

/* BUILD_ID feature: one per file, then its name NUL-padded to 64 */
struct perffile_build_id {
	struct perf_event_header header;
	__s32 pid; /* -1: perf's host machine */
	__u8 build_id[24]; /* PERFFILE_BUILD_ID_MAX bytes, [20] its size */
};

/* CLOCK_DATA feature: the clock, and one reading of it with the time of day */
struct perffile_clock_data {
	__u32 version; /* 1 */
	__u32 clockid;
	__u64 tod_ns, clock_ns;
};

#endif /* PTBPF_PERFFILE_H */
