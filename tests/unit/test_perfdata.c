// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer tests: record layout and padding in memory, then end to
 * end with the real client: Debian's perf decodes a PT stream that libipt's
 * encoder made for a function of this very binary, and perf report names
 * the functions of hand-made samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include <intel-pt.h>

#include "perfdata.h"
#include "perfrec.h"
#include "procinfo.h"

/*
 * The traced function. Hand-written so its bytes, and so the offsets perf
 * prints, are known: the path taken is xor, cmp, jne (taken), add $2,
 * test, je (not taken), add $3, ret.
 */
__asm__(".text\n"
	".globl demo_branches\n"
	".type demo_branches, @function\n"
	"demo_branches:\n"
	"	xor %eax, %eax\n" /* +0x0, 2 bytes */
	"	cmp $1, %edi\n" /* +0x2, 3 */
	"	jne 1f\n" /* +0x5, 2 */
	"	add $1, %eax\n" /* +0x7, 3 */
	"1:	add $2, %eax\n" /* +0xa, 3 */
	"	test %edi, %edi\n" /* +0xd, 2 */
	"	je 2f\n" /* +0xf, 2 */
	"	add $3, %eax\n" /* +0x11, 3 */
	"2:	ret\n" /* +0x14 */
	".size demo_branches, .-demo_branches\n");
int demo_branches(int x);

static const unsigned int path_offs[] = { 0x0, 0x2, 0x5,  0xa,
					  0xd, 0xf, 0x11, 0x14 };
#define PATH_LEN (sizeof(path_offs) / sizeof(path_offs[0]))

/* perf time == TSC with these: mult 1, shift 0, zero 0 */
#define T_IN 900
#define T_TSC 1000
#define T_OUT 5000
#define T_READ 6000

struct fixture {
	char dir[64];
	char path[128];
	struct snapshot snap;
	struct snap_core core;
	__u8 pt[256];
	__u8 sb[512];
	__u8 trace[1024];
};

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/ptbpf-perfdata-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/perf.data", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	procinfo_free(&fx->snap.proc);
	/* PTBPF_TEST_KEEP=1 keeps the files, to run perf on them by hand */
	if (!getenv("PTBPF_TEST_KEEP"))
		nftw(fx->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(fx);
	return 0;
}

/* PSB+ with a TSC, MODE.exec 64-bit, TIP.PGE, TNT taken/not, TIP.PGD. */
static size_t encode_path(__u8 *buf, size_t cap, __u64 func, __u64 back)
{
	struct pt_packet pk[7];
	struct pt_encoder *enc;
	struct pt_config cfg;
	unsigned int i;
	uint64_t off;

	memset(pk, 0, sizeof(pk));
	pk[0].type = ppt_psb;
	pk[1].type = ppt_tsc;
	pk[1].payload.tsc.tsc = T_TSC;
	pk[2].type = ppt_psbend;
	pk[3].type = ppt_mode;
	pk[3].payload.mode.leaf = pt_mol_exec;
	pk[3].payload.mode.bits.exec.csl = 1;
	pk[4].type = ppt_tip_pge;
	pk[4].payload.ip.ipc = pt_ipc_sext_48;
	pk[4].payload.ip.ip = func;
	pk[5].type = ppt_tnt_8;
	pk[5].payload.tnt.bit_size = 2;
	pk[5].payload.tnt.payload = 0x2; /* first bit (MSB) taken */
	pk[6].type = ppt_tip_pgd;
	pk[6].payload.ip.ipc = pt_ipc_sext_48;
	pk[6].payload.ip.ip = back;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + cap;
	enc = pt_alloc_encoder(&cfg);
	assert_non_null(enc);
	for (i = 0; i < 7; i++)
		assert_true(pt_enc_next(enc, &pk[i]) > 0);
	assert_int_equal(pt_enc_get_offset(enc, &off), 0);
	pt_free_encoder(enc);
	return (size_t)off;
}

/* One PERF_RECORD_SWITCH_CPU_WIDE as the kernel writes it (TID|TIME). */
static size_t put_switch(__u8 *p, bool out, __u32 np_pid, __u32 np_tid,
			 __u32 pid, __u32 tid, __u64 time)
{
	struct {
		struct perf_event_header h;
		__u32 np_pid, np_tid, pid, tid;
		__u64 time;
	} r = {
		.h = { PERF_RECORD_SWITCH_CPU_WIDE,
		       out ? PERF_RECORD_MISC_SWITCH_OUT : 0, sizeof(r) },
		.np_pid = np_pid,
		.np_tid = np_tid,
		.pid = pid,
		.tid = tid,
		.time = time,
	};

	memcpy(p, &r, sizeof(r));
	return sizeof(r);
}

static size_t switches(__u8 *p, __u32 pid, __u32 tid)
{
	size_t n = 0;

	n += put_switch(p + n, true, pid, tid, 0, 0, T_IN);
	n += put_switch(p + n, false, 0, 0, pid, tid, T_IN);
	n += put_switch(p + n, true, 0, 0, pid, tid, T_OUT);
	n += put_switch(p + n, false, pid, tid, 0, 0, T_OUT);
	return n;
}

static void fill_common(struct fixture *fx, enum ptbpf_backend be)
{
	struct snapshot *s = &fx->snap;
	__u32 pid = (__u32)getpid();

	s->id = 1;
	s->backend = be;
	s->trigger = "stop";
	s->pid = pid;
	s->sb_attr.type = PERF_TYPE_SOFTWARE;
	s->sb_attr.config = PERF_COUNT_SW_DUMMY;
	s->sb_attr.context_switch = 1;
	s->sb_attr.sample_id_all = 1;
	s->sb_attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	s->sb_attr.exclude_kernel = 1;
	s->conv.valid = true;
	s->conv.time_mult = 1;
	strcpy(s->cpu_info.vendor, "GenuineIntel");
	s->cpu_info.family = 6;
	s->cpu_info.model = 142;
	s->cpu_info.stepping = 10;
	s->nr_cores = 1;
	s->cores = &fx->core;
	fx->core.cpu = 0;
	fx->core.sideband = fx->sb;
	fx->core.sideband_len = switches(fx->sb, pid, (__u32)gettid());
	fx->core.tsc = T_READ;
	fx->core.data_id = 11;
	fx->core.sb_id = 12;
	assert_int_equal(procinfo_read(NULL, pid, &s->proc), 0);
}

static void fill_pt(struct fixture *fx)
{
	struct snapshot *s = &fx->snap;

	fill_common(fx, BACKEND_INTEL_PT);
	s->data_attr.type = 8;
	s->data_attr.config = PERFDATA_PT_TSC;
	s->data_attr.exclude_kernel = 1;
	s->data_attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	fx->core.trace = fx->pt;
	/* the return address: anywhere in this binary but demo_branches */
	fx->core.trace_len = encode_path(fx->pt, sizeof(fx->pt),
					 (__u64)(uintptr_t)demo_branches,
					 (__u64)(uintptr_t)fill_pt);
	fx->core.head = fx->core.trace_len;
}

static void write_file(struct fixture *fx)
{
	int fd = open(fx->path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	assert_true(fd >= 0);
	assert_int_equal(perfdata_write(fd, &fx->snap, NULL), 0);
	close(fd);
}

/* Runs @cmd (perf) and returns its stdout, NUL-terminated. */
static char *run(const char *cmd)
{
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	FILE *f = popen(cmd, "r");
	size_t n;

	assert_non_null(out);
	assert_non_null(f);
	while ((n = fread(out + len, 1, cap - 1 - len, f)) > 0)
		len += n;
	out[len] = '\0';
	assert_int_equal(pclose(f), 0);
	return out;
}

static void test_pt_end_to_end(void **state)
{
	struct fixture *fx = *state;
	char cmd[512], sym[64], *out, *line, *save = NULL;
	unsigned long tid, ip;
	unsigned int n = 0, off;
	__u64 base = (__u64)(uintptr_t)demo_branches;

	fill_pt(fx);
	write_file(fx);
	snprintf(cmd, sizeof(cmd),
		 "perf script --itrace=i0ns -F tid,ip,sym,symoff -i %s "
		 "2>%s/perf.err",
		 fx->path, fx->dir);
	out = run(cmd);
	print_message("perf script printed:\n%s", out);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(sscanf(line, "%lu %lx %63s", &tid, &ip, sym),
				 3);
		assert_true(n < PATH_LEN);
		assert_int_equal(tid, (unsigned long)gettid());
		assert_int_equal(ip, base + path_offs[n]);
		snprintf(cmd, sizeof(cmd), "demo_branches+0x%x", path_offs[n]);
		assert_string_equal(sym, cmd);
		n++;
	}
	assert_int_equal(n, PATH_LEN);
	free(out);
	(void)off;
}

/* cpu-clock samples as the kernel writes them: IP|TID|TIME|CPU. */
static size_t put_sample(__u8 *p, __u64 ip, __u32 pid, __u32 tid, __u64 t)
{
	struct {
		struct perf_event_header h;
		__u64 ip;
		__u32 pid, tid;
		__u64 time;
		__u32 cpu, res;
	} r = {
		.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) },
		.ip = ip,
		.pid = pid,
		.tid = tid,
		.time = t,
	};

	memcpy(p, &r, sizeof(r));
	return sizeof(r);
}

static void fill_sample(struct fixture *fx)
{
	__u64 base = (__u64)(uintptr_t)demo_branches;
	__u32 pid = (__u32)getpid(), tid = (__u32)gettid();
	struct snapshot *s = &fx->snap;
	size_t n = 0;

	fill_common(fx, BACKEND_SAMPLE);
	s->data_attr.type = PERF_TYPE_SOFTWARE;
	s->data_attr.config = PERF_COUNT_SW_CPU_CLOCK;
	s->data_attr.sample_period = 100000;
	s->data_attr.sample_id_all = 1;
	s->data_attr.exclude_kernel = 1;
	s->data_attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	n += put_sample(fx->trace + n, base + 0x2, pid, tid, 1000);
	n += put_sample(fx->trace + n, base + 0xa, pid, tid, 2000);
	n += put_sample(fx->trace + n, base + 0x14, pid, tid, 3000);
	fx->core.trace = fx->trace;
	fx->core.trace_len = n;
	fx->core.head = n;
}

static void test_sample_end_to_end(void **state)
{
	static const unsigned int offs[] = { 0x2, 0xa, 0x14 };
	struct fixture *fx = *state;
	char cmd[512], comm[32], sym[64], *out, *line, *save = NULL;
	__u64 base = (__u64)(uintptr_t)demo_branches;
	unsigned long tid, ip;
	unsigned int n = 0;

	fill_sample(fx);
	write_file(fx);
	snprintf(cmd, sizeof(cmd),
		 "perf script -F comm,tid,ip,sym -i %s 2>%s/perf.err", fx->path,
		 fx->dir);
	out = run(cmd);
	print_message("perf script printed:\n%s", out);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(sscanf(line, "%31s %lu %lx %63s", comm, &tid,
					&ip, sym),
				 4);
		assert_true(n < 3);
		assert_string_equal(comm, fx->snap.proc.comm);
		assert_int_equal(tid, (unsigned long)gettid());
		assert_int_equal(ip, base + offs[n]);
		assert_string_equal(sym, "demo_branches");
		n++;
	}
	assert_int_equal(n, 3);
	free(out);

	snprintf(cmd, sizeof(cmd),
		 "perf report --stdio --sort comm,sym -i %s 2>%s/perf.err | "
		 "grep -v '^#' | grep .",
		 fx->path, fx->dir);
	out = run(cmd);
	print_message("perf report printed:\n%s", out);
	assert_non_null(strstr(out, "100.00%"));
	assert_non_null(strstr(out, fx->snap.proc.comm));
	assert_non_null(strstr(out, "[.] demo_branches"));
	free(out);
}

/* Reads the whole file at @path. */
static __u8 *slurp(const char *path, size_t *len)
{
	struct stat st;
	__u8 *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Finds the first record of @type in the data section, or fails. */
static const __u8 *find_rec(const __u8 *f, const struct perfdata_header *h,
			    __u32 type)
{
	const struct perf_event_header *r;
	__u64 off = h->data_off;
	__u64 aux;

	while (off < h->data_off + h->data_size) {
		r = (const void *)(f + off);
		if (r->type == type)
			return f + off;
		off += r->size;
		if (r->type == PERFDATA_RECORD_AUXTRACE) {
			memcpy(&aux, f + off - r->size + 8, 8);
			off += aux; /* the data follows the record */
		}
	}
	fail_msg("no record of type %u in the data section", type);
	return f + h->data_off;
}

static void test_file_layout(void **state)
{
	struct fixture *fx = *state;
	struct perfdata_header h;
	const __u8 *r;
	__u64 v[4], sec[2];
	size_t len;
	__u8 *f;

	fill_pt(fx);
	fx->core.trace_len = 13; /* not a multiple of 8: padded to 16 */
	fx->core.head = 4096 + 13;
	write_file(fx);
	f = slurp(fx->path, &len);
	memcpy(&h, f, sizeof(h));
	assert_memory_equal(h.magic, "PERFILE2", 8);
	assert_int_equal(h.size, 104);
	assert_int_equal(h.attr_size, PERFDATA_ATTR_SIZE + 16);
	assert_int_equal(h.attrs_size, 2 * h.attr_size);
	assert_int_equal(h.data_off % 8, 0);
	/* the data attr: IDs and sample type perf needs */
	memcpy(sec, f + h.attrs_off + PERFDATA_ATTR_SIZE, 16);
	assert_int_equal(sec[1], 8);
	memcpy(v, f + sec[0], 8);
	assert_int_equal(v[0], 11);
	memcpy(v,
	       f + h.attrs_off + offsetof(struct perf_event_attr, sample_type),
	       8);
	assert_int_equal(v[0] & PERFDATA_ID_BITS, PERFDATA_ID_BITS);
	/* AUXTRACE_INFO: type 1, then priv with masks, not bit numbers */
	r = find_rec(f, &h, PERFDATA_RECORD_AUXTRACE_INFO);
	assert_non_null(r);
	memcpy(v, r + 8, 8);
	assert_int_equal(v[0] & 0xffffffff, PERFDATA_AUXTRACE_INTEL_PT);
	memcpy(v, r + 16 + 5 * 8, 8);
	assert_int_equal(v[0], 1 << 10);
	memcpy(v, r + 16 + 7 * 8, 24);
	assert_int_equal(v[0], 3); /* CPU-wide context switches */
	assert_int_equal(v[2], 1); /* per-CPU mmaps */
	/* AUXTRACE: size padded, offset, TSC reference, idx, tid -1, cpu */
	r = find_rec(f, &h, PERFDATA_RECORD_AUXTRACE);
	assert_non_null(r);
	memcpy(v, r + 8, 24);
	assert_int_equal(v[0], 16);
	assert_int_equal(v[1], 4096);
	assert_int_equal(v[2], T_READ);
	memcpy(v, r + 32, 16);
	assert_int_equal(v[0] & 0xffffffff, 0); /* idx */
	assert_int_equal(v[0] >> 32, 0xffffffff); /* tid */
	assert_int_equal(v[1] & 0xffffffff, 0); /* cpu */
	assert_memory_equal(r + 48, fx->pt, 13);
	assert_int_equal(r[48 + 13] | r[48 + 14] | r[48 + 15], 0);
	/* features: ARCH, NRCPUS, CPUID at least, table after the data */
	assert_true(h.features[0] & (1ULL << PERFDATA_FEAT_ARCH));
	assert_true(h.features[0] & (1ULL << PERFDATA_FEAT_NRCPUS));
	assert_true(h.features[0] & (1ULL << PERFDATA_FEAT_CPUID));
	free(f);
}

/* perf itself reads the header back: the features say what was written */
static void test_header_features(void **state)
{
	struct fixture *fx = *state;
	char cmd[512], *out;

	fill_pt(fx);
	write_file(fx);
	snprintf(cmd, sizeof(cmd),
		 "perf report --header-only -i %s 2>%s/perf.err", fx->path,
		 fx->dir);
	out = run(cmd);
	assert_non_null(strstr(out, "# cpuid : GenuineIntel,6,142,10"));
	assert_non_null(strstr(out, "# nrcpus online : 1"));
	assert_non_null(strstr(out, "# arch : "));
	assert_non_null(strstr(out, "intel_pt//u"));
	free(out);
}

struct padcase {
	const char *path;
	size_t size; /* header + body (64) + name padded + ID (32) */
};

static void test_mmap2_padding(void **state)
{
	static const struct padcase cases[] = {
		{ "/", 8 + 64 + 8 + 32 },
		{ "/a/b/c/d", 8 + 64 + 16 + 32 }, /* 8 chars + NUL */
		{ "/bin/ls", 8 + 64 + 8 + 32 }, /* 7 chars + NUL = 8 */
		{ "/odd name\twith tab", 8 + 64 + 24 + 32 },
	};
	struct perfrec_id id = { .pid = 1, .tid = 1, .id = 7 };
	struct snap_map m = { .start = 0x1000, .len = 0x2000 };
	struct perf_event_header h;
	__u8 buf[512];
	unsigned int i;
	ssize_t n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 0xa5, sizeof(buf));
		m.path = (char *)cases[i].path;
		n = perfrec_mmap2(buf, sizeof(buf), 42, &m, PERFDATA_ID_BITS,
				  &id);
		assert_int_equal(n, cases[i].size);
		memcpy(&h, buf, sizeof(h));
		assert_int_equal(h.type, PERF_RECORD_MMAP2);
		assert_int_equal(h.size, n);
		assert_string_equal((char *)buf + 72, cases[i].path);
		/* the pad after the NUL is zeros, not the garbage */
		assert_int_equal(buf[72 + strlen(cases[i].path)], 0);
		assert_int_equal(buf[n - 32 - 1], 0);
	}
	assert_int_equal(perfrec_mmap2(buf, 70, 42, &m, 0, &id), -ENOSPC);
	m.path = NULL;
	assert_int_equal(perfrec_mmap2(buf, sizeof(buf), 42, &m, 0, &id),
			 -EINVAL);
}

static void test_comm_truncates(void **state)
{
	struct perfrec_id id = { 0 };
	__u8 buf[128];
	ssize_t n;

	memset(buf, 0xa5, sizeof(buf));
	n = perfrec_comm(buf, sizeof(buf), 5, 6, "a-very-long-thread-name", 0,
			 &id);
	assert_int_equal(n, 8 + 8 + 16);
	assert_string_equal((char *)buf + 16, "a-very-long-thr");
	assert_int_equal(perfrec_comm(NULL, 64, 5, 6, "x", 0, &id), -EINVAL);
	assert_int_equal(perfrec_comm(buf, 16, 5, 6, "x", 0, &id), -ENOSPC);
}

struct idcase {
	__u64 type;
	size_t size;
};

static void test_id_sizes(void **state)
{
	static const struct idcase cases[] = {
		{ 0, 0 },
		{ PERF_SAMPLE_TID | PERF_SAMPLE_TIME, 16 },
		{ PERFDATA_ID_BITS, 32 },
		{ PERFREC_ID_BITS, 48 },
		{ PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, 0 }, /* not in IDs */
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(perfrec_id_size(cases[i].type), cases[i].size);
}

/* A kernel TID|TIME switch record, re-encoded both ways. */
static void test_convert_switch(void **state)
{
	struct perfrec_conv to_perf = {
		.from_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.from_id_all = true,
		.to_type = PERFDATA_ID_BITS,
		.to_id_all = true,
		.id = 99,
		.cpu = 3,
	};
	struct perfrec_conv to_lldb = {
		.from_type = PERFDATA_ID_BITS,
		.from_id_all = true,
		.to_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.to_id_all = true,
		.id = 99,
		.cpu = 3,
	};
	__u8 rec[64], out[128], back[128];
	struct perfrec_id id;
	size_t len = put_switch(rec, true, 7, 8, 9, 10, 12345);
	ssize_t n;

	memset(out, 0xa5, sizeof(out));
	n = perfrec_convert(rec, len, &to_perf, out, sizeof(out));
	assert_int_equal(n, 8 + 8 + 32);
	assert_int_equal(perfrec_id_get(out, n, PERFDATA_ID_BITS, &id), 0);
	assert_int_equal(id.pid, 9);
	assert_int_equal(id.tid, 10);
	assert_int_equal(id.time, 12345);
	assert_int_equal(id.cpu, 3);
	assert_int_equal(id.id, 99);
	memset(back, 0xa5, sizeof(back));
	n = perfrec_convert(out, n, &to_lldb, back, sizeof(back));
	assert_int_equal(n, len);
	assert_memory_equal(back, rec, len);
	assert_int_equal(perfrec_convert(rec, len, &to_perf, out, 40), -ENOSPC);
	assert_int_equal(perfrec_convert(NULL, len, &to_perf, out, 64),
			 -EINVAL);
	assert_int_equal(perfrec_convert(rec, 4, &to_perf, out, 64), -EBADMSG);
}

static void test_convert_sample(void **state)
{
	struct perfrec_conv c = {
		.from_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		.to_type = PERF_SAMPLE_IP | PERFDATA_ID_BITS,
		.id = 77,
		.cpu = 2,
	};
	__u8 rec[64], out[128];
	__u64 v[6];
	size_t len = put_sample(rec, 0x401000, 5, 6, 4242);
	ssize_t n;

	memset(out, 0xa5, sizeof(out));
	n = perfrec_convert(rec, len, &c, out, sizeof(out));
	assert_int_equal(n, len + 8);
	memcpy(v, out + 8, sizeof(v) - 8);
	assert_int_equal(v[0], 77); /* IDENTIFIER comes first */
	assert_int_equal(v[1], 0x401000);
	assert_int_equal(v[2], 5 | (6ULL << 32));
	assert_int_equal(v[3], 4242);
	assert_int_equal(v[4], 2); /* cpu from the event, res 0 */
	/* a field past the fixed ones can't move: refused */
	c.to_type |= PERF_SAMPLE_PERIOD;
	assert_int_equal(perfrec_convert(rec, len, &c, out, sizeof(out)),
			 -EINVAL);
}

struct nextcase {
	__u16 size;
	size_t len;
	int ret;
};

static void test_next_bad_sizes(void **state)
{
	static const struct nextcase cases[] = {
		{ 16, 16, 1 },	      { 0, 16, -EBADMSG }, { 12, 16, -EBADMSG },
		{ 24, 16, -EBADMSG }, { 16, 4, -EBADMSG }, { 16, 0, 0 },
	};
	const struct perf_event_header *h;
	struct perf_event_header rec[4];
	unsigned int i;
	size_t off;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(rec, 0, sizeof(rec));
		rec[0].type = PERF_RECORD_SWITCH;
		rec[0].size = cases[i].size;
		off = 0;
		h = (void *)0x1;
		assert_int_equal(perfrec_next(rec, cases[i].len, &off, &h),
				 cases[i].ret);
		if (cases[i].ret == 1) {
			assert_ptr_equal(h, rec);
			assert_int_equal(off, 16);
		}
	}
	assert_int_equal(perfrec_next(NULL, 8, &off, &h), -EINVAL);
}

static void test_invalid_args(void **state)
{
	struct fixture *fx = *state;
	struct perf_event_attr a;
	__u64 d, sb;
	__u8 buf[256];
	int fd;

	fill_pt(fx);
	assert_int_equal(perfdata_write(1, NULL, NULL), -EINVAL);
	fx->snap.backend = BACKEND_AUTO;
	assert_int_equal(perfdata_write(1, &fx->snap, NULL), -EINVAL);
	fx->snap.backend = BACKEND_INTEL_PT;
	assert_int_equal(perfdata_file_attr(NULL, &a), -EINVAL);
	assert_int_equal(perfdata_core_ids(&fx->snap, 1, &d, &sb), -EINVAL);
	fx->core.data_id = 0;
	assert_int_equal(perfdata_core_ids(&fx->snap, 0, &d, &sb), 0);
	assert_true(d != 0 && sb != 0 && d != sb);
	assert_int_equal(perfdata_auxtrace_info(NULL, buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(perfdata_auxtrace_info(&fx->snap, buf, 64), -ENOSPC);
	/* a full disk and a read-only descriptor are reported, not hidden */
	fd = open("/dev/full", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(perfdata_write(fd, &fx->snap, NULL), -ENOSPC);
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	assert_int_equal(perfdata_write(fd, &fx->snap, NULL), -EBADF);
	close(fd);
	/* a malformed staged record fails the file */
	fx->sb[0] = 0;
	fx->sb[6] = 3; /* size 3: not a record */
	fx->sb[7] = 0;
	fd = open(fx->path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_int_equal(perfdata_write(fd, &fx->snap, NULL), -EBADMSG);
	close(fd);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_sizes),
		cmocka_unit_test(test_mmap2_padding),
		cmocka_unit_test(test_comm_truncates),
		cmocka_unit_test(test_convert_switch),
		cmocka_unit_test(test_convert_sample),
		cmocka_unit_test(test_next_bad_sizes),
		T(test_file_layout),
		T(test_header_features),
		T(test_invalid_args),
		T(test_pt_end_to_end),
		T(test_sample_end_to_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
