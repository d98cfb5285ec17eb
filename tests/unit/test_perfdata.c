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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pt_end_to_end, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
