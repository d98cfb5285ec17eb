// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer tests: record layout and padding in memory, then end to
 * end with the real client: Debian's perf decodes a PT stream that libipt's
 * encoder made for a function of this very binary, and perf report names
 * the functions of hand-made samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "proc/vdso.h"
#include "output/perfdata.h"
#include "output/recwrite.h"
#include "proc/procinfo.h"
#include "ptbranches.h"
#include "ptgen.h"
#include "testio.h"
#include "snap.h"
#include "perfread.h"
#include "backtrace.h"
#include "last.h"
#include "symtab.h"

/* The traced path: path A of tests/ptbranches.h. */
#define PATH (&ptgen_branches_a)

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
		rm_tree(fx->dir);
	free(fx);
	return 0;
}

static size_t switches(__u8 *p, __u32 pid, __u32 tid)
{
	size_t n = 0;

	n += ptgen_switch(p + n, true, pid, tid, 0, 0, T_IN);
	n += ptgen_switch(p + n, false, 0, 0, pid, tid, T_IN);
	n += ptgen_switch(p + n, true, 0, 0, pid, tid, T_OUT);
	n += ptgen_switch(p + n, false, pid, tid, 0, 0, T_OUT);
	return n;
}

static void fill_common(struct fixture *fx, enum ptbpf_backend be)
{
	assert_int_equal(ptgen_snapshot_init(&fx->snap, &fx->core, be), 0);
	fx->core.sideband = fx->sb;
	fx->core.sideband_len = switches(fx->sb, (__u32)getpid(), (__u32)gettid());
	fx->core.tsc = T_READ;
}

static void fill_pt(struct fixture *fx)
{
	struct snapshot *s = &fx->snap;

	fill_common(fx, BACKEND_INTEL_PT);
	ptgen_pt_attr(&s->run.data_attr);
	fx->core.trace = fx->pt;
	/* the return address: anywhere in this binary but ptgen_branches */
	fx->core.trace_len = ptgen_encode(fx->pt, sizeof(fx->pt), 0, T_TSC,
					  (__u64)(uintptr_t)ptgen_branches, PATH->tnt,
					  (__u64)(uintptr_t)fill_pt);
	assert_true(fx->core.trace_len > 0);
	fx->core.head = fx->core.trace_len;
}

static void write_file(struct fixture *fx)
{
	int fd = open(fx->path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	assert_true(fd >= 0);
	assert_int_equal(perfdata_write(fd, &fx->snap, NULL), 0);
	close(fd);
}

static void test_pt_end_to_end(void **state)
{
	struct fixture *fx = *state;
	char cmd[512], sym[64], *out, *line, *save = NULL;
	unsigned long tid, ip;
	unsigned int n = 0, off;
	__u64 base = (__u64)(uintptr_t)ptgen_branches;

	fill_pt(fx);
	write_file(fx);
	snprintf(cmd, sizeof(cmd),
		 "perf script --itrace=i0ns -F tid,ip,sym,symoff -i %s "
		 "2>%s/perf.err",
		 fx->path, fx->dir);
	out = run_cmd(cmd);
	print_message("perf script printed:\n%s", out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(sscanf(line, "%lu %lx %63s", &tid, &ip, sym), 3);
		assert_true(n < PATH->n);
		assert_int_equal(tid, (unsigned long)gettid());
		assert_int_equal(ip, base + PATH->offs[n]);
		snprintf(cmd, sizeof(cmd), "ptgen_branches+0x%x", PATH->offs[n]);
		assert_string_equal(sym, cmd);
		n++;
	}
	assert_int_equal(n, PATH->n);
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
	__u64 base = (__u64)(uintptr_t)ptgen_branches;
	__u32 pid = (__u32)getpid(), tid = (__u32)gettid();
	struct snapshot *s = &fx->snap;
	size_t n = 0;

	fill_common(fx, BACKEND_SAMPLE);
	s->run.data_attr.type = PERF_TYPE_SOFTWARE;
	s->run.data_attr.config = PERF_COUNT_SW_CPU_CLOCK;
	s->run.data_attr.sample_period = 100000;
	s->run.data_attr.sample_id_all = 1;
	s->run.data_attr.exclude_kernel = 1;
	s->run.data_attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				       PERF_SAMPLE_CPU;
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
	__u64 base = (__u64)(uintptr_t)ptgen_branches;
	unsigned long tid, ip;
	unsigned int n = 0;

	fill_sample(fx);
	write_file(fx);
	snprintf(cmd, sizeof(cmd), "perf script -F comm,tid,ip,sym -i %s 2>%s/perf.err", fx->path,
		 fx->dir);
	out = run_cmd(cmd);
	print_message("perf script printed:\n%s", out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(sscanf(line, "%31s %lu %lx %63s", comm, &tid, &ip, sym), 4);
		assert_true(n < 3);
		assert_string_equal(comm, fx->snap.proc.comm);
		assert_int_equal(tid, (unsigned long)gettid());
		assert_int_equal(ip, base + offs[n]);
		assert_string_equal(sym, "ptgen_branches");
		n++;
	}
	assert_int_equal(n, 3);
	free(out);

	snprintf(cmd, sizeof(cmd),
		 "perf report --stdio --sort comm,sym -i %s 2>%s/perf.err | "
		 "grep -v '^#' | grep .",
		 fx->path, fx->dir);
	out = run_cmd(cmd);
	print_message("perf report printed:\n%s", out);
	assert_non_null(strstr(out, "100.00%"));
	assert_non_null(strstr(out, fx->snap.proc.comm));
	assert_non_null(strstr(out, "[.] ptgen_branches"));
	free(out);
}

/*
 * A sample that carries, besides registers and a stack, the fields the
 * kernel writes before them (perf_output_sample()): the period, a READ
 * group, a call chain, RAW bytes and a branch stack, each of the size its
 * attr says (read_format, branch_sample_type). The reader steps over each
 * one and still finds the registers and the stack.
 */
struct rich_case {
	const char *what;
	__u64 extra; /* sample_type bits besides IP|TID|TIME|CPU|regs|stack */
	__u64 read_format, branch_type;
};

#define RICH_REGS ((1ULL << 6) | (1ULL << 7) | (1ULL << 8)) /* BP, SP, IP */
#define RICH_STACK 64
#define RICH_DYN 40

static __u64 get_u64(const uint8_t *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static size_t u64s(__u8 *p, size_t n, const __u64 *v)
{
	memcpy(p, v, n * 8);
	return n * 8;
}

/* One sample of @rc's layout at @ip; the stack bytes are 0xa0, 0xa1, ... */
static size_t put_rich_sample(__u8 *p, const struct rich_case *rc, __u64 ip, __u32 pid, __u32 tid)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	__u64 v[8];
	__u32 raw = 12;
	size_t n = sizeof(h), i;

	v[0] = ip;
	v[1] = (__u64)tid << 32 | pid;
	v[2] = 1000; /* time */
	v[3] = 0; /* cpu 0, res */
	n += u64s(p + n, 4, v);
	if (rc->extra & PERF_SAMPLE_PERIOD)
		n += u64s(p + n, 1, (__u64[]){ 100000 });
	/* a group of two: nr, time_enabled, {value, id} x 2 */
	if (rc->extra & PERF_SAMPLE_READ)
		n += u64s(p + n, 6, (__u64[]){ 2, 5000, 11, 101, 22, 102 });
	if (rc->extra & PERF_SAMPLE_CALLCHAIN)
		n += u64s(p + n, 3, (__u64[]){ 2, (__u64)PERF_CONTEXT_USER, ip });
	if (rc->extra & PERF_SAMPLE_RAW) {
		/* 4 + 12 bytes: ends 8-aligned, as the kernel pads it */
		memcpy(p + n, &raw, sizeof(raw));
		memset(p + n + sizeof(raw), 0xee, raw);
		n += sizeof(raw) + raw;
	}
	if (rc->extra & PERF_SAMPLE_BRANCH_STACK) {
		n += u64s(p + n, 1, (__u64[]){ 2 });
		if (rc->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			n += u64s(p + n, 1, (__u64[]){ 7 });
		/* {from, to, flags} x 2 */
		n += u64s(p + n, 6, (__u64[]){ ip - 0x10, ip, 0, ip - 0x30, ip - 0x20, 0 });
	}
	/* REGS_USER: abi 64, then BP, SP, IP in bit order */
	n += u64s(p + n, 4, (__u64[]){ PERF_SAMPLE_REGS_ABI_64, 0xb0b0, 0x5050, ip });
	n += u64s(p + n, 1, (__u64[]){ RICH_STACK });
	for (i = 0; i < RICH_STACK; i++)
		p[n + i] = (__u8)(0xa0 + i);
	n += RICH_STACK;
	n += u64s(p + n, 1, (__u64[]){ RICH_DYN });
	h.size = (__u16)n;
	memcpy(p, &h, sizeof(h));
	return n;
}

static void rich_sample(struct fixture *fx, const struct rich_case *rc)
{
	__u64 ip = (__u64)(uintptr_t)ptgen_branches + 0x2;
	__u32 pid = (__u32)getpid(), tid = (__u32)gettid();
	struct dump_log log = { stderr, 0 };
	struct perf_event_attr *a = &fx->snap.run.data_attr;
	const struct dump_sample *smp;
	struct dump_snap ds;
	uint8_t *buf;
	size_t len, i;

	print_message("%s\n", rc->what);
	fill_sample(fx);
	a->sample_type |= rc->extra | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->read_format = rc->read_format;
	a->branch_sample_type = rc->branch_type;
	a->sample_regs_user = RICH_REGS;
	a->sample_stack_user = RICH_STACK;
	fx->core.trace_len = fx->core.head = put_rich_sample(fx->trace, rc, ip, pid, tid);
	write_file(fx);

	memset(&ds, 0, sizeof(ds));
	ds.pid = pid;
	assert_int_equal(snap_read_file(fx->path, SNAP_DATA_MAX, &buf, &len), 0);
	assert_int_equal(perfread_parse(&ds, buf, len, "perf.data", &log), 0);
	assert_int_equal(log.nr_errors, 0);
	assert_int_equal(ds.nr_cores, 1);
	assert_int_equal(ds.cores[0].nr_samples, 1);
	smp = &ds.cores[0].samples[0];
	assert_int_equal(smp->ip, ip);
	assert_int_equal(smp->tid, tid);
	if (rc->extra & PERF_SAMPLE_CALLCHAIN)
		assert_int_equal(smp->nr_chain, 2);
	/* the registers and the stack, whatever came before them */
	assert_non_null(smp->regs);
	assert_int_equal(smp->regs_mask, RICH_REGS);
	assert_int_equal(get_u64(smp->regs), 0xb0b0);
	assert_int_equal(get_u64(smp->regs + 8), 0x5050);
	assert_int_equal(get_u64(smp->regs + 16), ip);
	assert_non_null(smp->stack);
	assert_int_equal(smp->stack_len, RICH_DYN);
	for (i = 0; i < RICH_DYN; i++)
		assert_int_equal(smp->stack[i], 0xa0 + i);
	ds.perf_mapped = false; /* snap_read_file()'s: freed by snap_free() */
	snap_free(&ds);
}

static void test_sample_branch_regs_stack(void **state)
{
	static const struct rich_case cases[] = {
		{ "branch stack with hw_idx, call chain",
		  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_CALLCHAIN, 0,
		  PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX },
		{ "period, READ group, call chain, raw, branch stack",
		  PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			  PERF_SAMPLE_BRANCH_STACK,
		  PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID,
		  PERF_SAMPLE_BRANCH_ANY },
	};
	struct fixture *fx = *state;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		rich_sample(fx, &cases[i]);
		assert_int_equal(unlink(fx->path), 0);
		procinfo_free(&fx->snap.proc);
	}
}

/* Where the made-up [uprobes] mapping is: the kernel's XOL area's page */
#define UPROBES_AT 0x7fffffffe000ULL

/*
 * Code in mappings without a file, named as perf names them: a sample in
 * this process's [vdso], one in a [uprobes] page (a uprobe's out-of-line
 * step), their MMAP2 records written from the process's maps and read
 * back: the hottest functions, and a stack that returns through
 * [uprobes], say "[vdso]" and "[uprobes]", not raw addresses.
 */
static void test_pseudo_mappings(void **state)
{
	struct fixture *fx = *state;
	struct snap_process *p = &fx->snap.proc;
	__u64 vdso = getauxval(AT_SYSINFO_EHDR);
	__u32 pid = (__u32)getpid(), tid = (__u32)gettid();
	struct dump_log log = { stderr, 0 };
	struct dump_snap ds;
	struct dump_symtab tab;
	struct dump_hot hot[4];
	struct dump_sample up;
	struct snap_map *m;
	char stack[256];
	uint64_t total, chain[4];
	uint8_t *buf;
	size_t len, n = 0;
	bool seen_vdso = false, seen_up = false;
	int i, nh;

	assert_true(vdso != 0);
	fill_sample(fx);
	m = reallocarray(p->maps, p->nr_maps + 1, sizeof(*m));
	assert_non_null(m);
	p->maps = m;
	m = &p->maps[p->nr_maps++];
	memset(m, 0, sizeof(*m));
	m->start = UPROBES_AT;
	m->len = 0x1000;
	m->prot = PROT_READ | PROT_EXEC;
	m->path = strdup("[uprobes]");
	n += put_sample(fx->trace + n, vdso + 0x900, pid, tid, 1000);
	n += put_sample(fx->trace + n, UPROBES_AT + 0x80, pid, tid, 2000);
	fx->core.trace_len = fx->core.head = n;
	write_file(fx);

	memset(&ds, 0, sizeof(ds));
	ds.pid = pid;
	assert_int_equal(snap_read_file(fx->path, SNAP_DATA_MAX, &buf, &len), 0);
	assert_int_equal(perfread_parse(&ds, buf, len, "perf.data", &log), 0);
	assert_int_equal(log.nr_errors, 0);
	assert_int_equal(symtab_load(&tab, &ds, NULL, &log), 0);
	nh = last_hottest(&ds, &tab, hot, 4, &total);
	assert_int_equal(total, 2);
	for (i = 0; i < nh; i++) {
		print_message("%s (%s): %llu\n", hot[i].name, hot[i].module,
			      (unsigned long long)hot[i].samples);
		seen_vdso |= !strcmp(hot[i].name, "[vdso]");
		seen_up |= !strcmp(hot[i].name, "[uprobes]");
	}
	assert_true(seen_vdso && seen_up);
	/* a frame-pointer chain from [vdso] through a [uprobes] return */
	chain[0] = (uint64_t)PERF_CONTEXT_USER;
	chain[1] = vdso + 0x900;
	chain[2] = UPROBES_AT + 0x81;
	chain[3] = 0;
	memset(&up, 0, sizeof(up));
	up.ip = vdso + 0x900;
	up.pid = pid;
	up.chain = (const uint8_t *)chain;
	up.nr_chain = 4;
	last_stack_str(&up, &tab, 8, stack, sizeof(stack));
	print_message("stack: %s\n", stack);
	assert_string_equal(stack, "[vdso]+0x900 <- [uprobes]+0x80");
	symtab_free(&tab);
	ds.perf_mapped = false; /* snap_read_file()'s: freed by snap_free() */
	snap_free(&ds);
}

/* Finds the first record of @type in the data section, or fails. */
static const __u8 *find_rec(const __u8 *f, const struct perffile_header *h, __u32 type)
{
	const struct perf_event_header *r;
	__u64 off = h->data_off;
	__u64 aux;

	while (off < h->data_off + h->data_size) {
		r = (const void *)(f + off);
		if (r->type == type)
			return f + off;
		off += r->size;
		if (r->type == PERFFILE_RECORD_AUXTRACE) {
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
	struct perffile_header h;
	const __u8 *r;
	__u64 v[4], sec[2];
	size_t len;
	__u8 *f;

	fill_pt(fx);
	fx->core.trace_len = 13; /* not a multiple of 8: padded to 16 */
	fx->core.head = 4096 + 13;
	write_file(fx);
	f = read_whole(fx->path, &len);
	memcpy(&h, f, sizeof(h));
	assert_memory_equal(h.magic, "PERFILE2", 8);
	assert_int_equal(h.size, 104);
	assert_int_equal(h.attr_size, PERFFILE_ATTR_SIZE + 16);
	assert_int_equal(h.attrs_size, 2 * h.attr_size);
	assert_int_equal(h.data_off % 8, 0);
	/* the data attr: IDs and sample type perf needs */
	memcpy(sec, f + h.attrs_off + PERFFILE_ATTR_SIZE, 16);
	assert_int_equal(sec[1], 8);
	memcpy(v, f + sec[0], 8);
	assert_int_equal(v[0], 11);
	memcpy(v, f + h.attrs_off + offsetof(struct perf_event_attr, sample_type), 8);
	assert_int_equal(v[0] & PERFFILE_ID_BITS, PERFFILE_ID_BITS);
	/* AUXTRACE_INFO: type 1, then priv with masks, not bit numbers */
	r = find_rec(f, &h, PERFFILE_RECORD_AUXTRACE_INFO);
	assert_non_null(r);
	memcpy(v, r + 8, 8);
	assert_int_equal(v[0] & 0xffffffff, PERFFILE_AUXTRACE_INTEL_PT);
	memcpy(v, r + 16 + 5 * 8, 8);
	assert_int_equal(v[0], 1 << 10);
	memcpy(v, r + 16 + 7 * 8, 24);
	assert_int_equal(v[0], 3); /* CPU-wide context switches */
	assert_int_equal(v[2], 1); /* per-CPU mmaps */
	/* AUXTRACE: size padded, offset, TSC reference, idx, tid -1, cpu */
	r = find_rec(f, &h, PERFFILE_RECORD_AUXTRACE);
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
	assert_true(h.features[0] & (1ULL << PERFFILE_FEAT_ARCH));
	assert_true(h.features[0] & (1ULL << PERFFILE_FEAT_NRCPUS));
	assert_true(h.features[0] & (1ULL << PERFFILE_FEAT_CPUID));
	free(f);
}

/* perf itself reads the header back: the features say what was written */
static void test_header_features(void **state)
{
	struct fixture *fx = *state;
	char cmd[512], *out;

	fill_pt(fx);
	write_file(fx);
	snprintf(cmd, sizeof(cmd), "perf report --header-only -i %s 2>%s/perf.err", fx->path,
		 fx->dir);
	out = run_cmd(cmd);
	assert_non_null(strstr(out, "# cpuid : GenuineIntel,6,142,10"));
	assert_non_null(strstr(out, "# nrcpus online : 1"));
	assert_non_null(strstr(out, "# arch : "));
	assert_non_null(strstr(out, "intel_pt//u"));
	free(out);
}

/* A fixed build-id per file: the one of its first byte's name. */
static int fake_build_id(const char *path, __u8 *id, size_t *len)
{
	unsigned int i;

	for (i = 0; i < 20; i++)
		id[i] = (__u8)(0xa0 + i);
	*len = 20;
	return 0;
}

/* Every feature from a made-up host, as perf reads them back. */
static void test_all_features(void **state)
{
	static const char *const cores[] = { "0-3" }, *const threads[] = { "0-1", "2-3" },
				 *const dies[] = { "0-3" };
	static const char *const argv[] = { "ptbpf", "-o", "out" };
	static const struct perfhost_cpu_topo cpus[] = {
		{ 0, 0, 0 }, { 0, 0, 0 }, { 1, 0, 0 }, { 1, 0, 0 }
	};
	struct perfhost_topology topo = {
		.nr_cores = 1,
		.nr_threads = 2,
		.nr_dies = 1,
		.core_siblings = cores,
		.thread_siblings = threads,
		.die_siblings = dies,
		.nr_cpus = 4,
		.cpus = cpus,
	};
	struct perfhost host = {
		.hostname = "testhost",
		.osrelease = "9.9",
		.version = "v",
		.arch = "x86_64",
		.cpudesc = "Made-up CPU @ 1 GHz",
		.total_mem_kb = 123456,
		.argc = 3,
		.argv = argv,
		.topo = &topo,
		.clock_res_ns = 1,
		.clock_tod_ns = 1700000000ULL * 1000000000ULL,
		.clock_ns = 5000000000ULL,
		.build_id = fake_build_id,
	};
	struct fixture *fx = *state;
	char cmd[512], hex[2 * BUILDID_MAX + 1], *out;
	struct vdso_image vdso;
	int fd;

	fill_sample(fx);
	/* this process maps a [vdso]: its image is saved, and named */
	assert_int_equal(fx->snap.proc.vdso, SNAP_VDSO_NATIVE);
	assert_int_equal(vdso_image_read(NULL, &vdso), 0);
	fx->snap.run.vdso = &vdso;
	fx->snap.run.data_attr.use_clockid = 1;
	fx->snap.run.data_attr.clockid = CLOCK_MONOTONIC;
	fx->snap.run.sb_attr.use_clockid = 1;
	fx->snap.run.sb_attr.clockid = CLOCK_MONOTONIC;
	fx->snap.run.cpu_info.nr_cpus_avail = 4;
	fx->snap.run.cpu_info.nr_cpus_online = 4;
	fd = open(fx->path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(perfdata_write(fd, &fx->snap, &host), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "perf report --header-only -I -i %s 2>%s/perf.err", fx->path,
		 fx->dir);
	out = run_cmd(cmd);
	assert_non_null(strstr(out, "# hostname : testhost"));
	assert_non_null(strstr(out, "# cpudesc : Made-up CPU @ 1 GHz"));
	assert_non_null(strstr(out, "# total memory : 123456 kB"));
	assert_non_null(strstr(out, "# cmdline : ptbpf -o out"));
	assert_non_null(strstr(out, "# sibling threads : 2-3"));
	assert_non_null(strstr(out, "# CPU 2: Core ID 1, Die ID 0, Socket ID 0"));
	assert_non_null(strstr(out, "# clockid: monotonic (1)"));
	assert_non_null(strstr(out, "= 5.000000000 (monotonic)"));
	if (strstr(out, "missing features") &&
	    (strstr(out, " BUILD_ID") || strstr(out, " CPUDESC") || strstr(out, " TOTAL_MEM") ||
	     strstr(out, " CMDLINE") || strstr(out, " CPU_TOPOLOGY") || strstr(out, " CLOCKID") ||
	     strstr(out, " CLOCK_DATA")))
		fail_msg("features missing:\n%s", out);
	free(out);
	/* one build-id per file with code, as perf buildid-list reads them */
	snprintf(cmd, sizeof(cmd), "perf buildid-list -i %s 2>/dev/null", fx->path);
	out = run_cmd(cmd);
	assert_non_null(strstr(out, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 /"));
	/* the vDSO once, by its own id, under perf's name for it */
	buildid_hex(vdso.build_id, vdso.build_id_len, hex);
	snprintf(cmd, sizeof(cmd), "%s [vdso]\n", hex);
	if (!strstr(out, cmd))
		fail_msg("no \"%s\" in:\n%s", cmd, out);
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
		n = recwrite_mmap2(buf, sizeof(buf), 42, &m, PERFFILE_ID_BITS, &id);
		assert_int_equal(n, cases[i].size);
		memcpy(&h, buf, sizeof(h));
		assert_int_equal(h.type, PERF_RECORD_MMAP2);
		assert_int_equal(h.size, n);
		assert_string_equal((char *)buf + 72, cases[i].path);
		/* the pad after the NUL is zeros, not the garbage */
		assert_int_equal(buf[72 + strlen(cases[i].path)], 0);
		assert_int_equal(buf[n - 32 - 1], 0);
	}
	assert_int_equal(recwrite_mmap2(buf, 70, 42, &m, 0, &id), -ENOSPC);
	m.path = NULL;
	assert_int_equal(recwrite_mmap2(buf, sizeof(buf), 42, &m, 0, &id), -EINVAL);
}

static void test_comm_truncates(void **state)
{
	struct perfrec_id id = { 0 };
	__u8 buf[128];
	ssize_t n;

	memset(buf, 0xa5, sizeof(buf));
	n = recwrite_comm(buf, sizeof(buf), 5, 6, "a-very-long-thread-name", 0, &id);
	assert_int_equal(n, 8 + 8 + 16);
	assert_string_equal((char *)buf + 16, "a-very-long-thr");
	assert_int_equal(recwrite_comm(NULL, 64, 5, 6, "x", 0, &id), -EINVAL);
	assert_int_equal(recwrite_comm(buf, 16, 5, 6, "x", 0, &id), -ENOSPC);
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
		{ PERFFILE_ID_BITS, 32 },
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
	struct recwrite_conv to_perf = {
		.from_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.from_id_all = true,
		.to_type = PERFFILE_ID_BITS,
		.to_id_all = true,
		.id = 99,
		.cpu = 3,
	};
	struct recwrite_conv to_lldb = {
		.from_type = PERFFILE_ID_BITS,
		.from_id_all = true,
		.to_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.to_id_all = true,
		.id = 99,
		.cpu = 3,
	};
	__u8 rec[64], out[128], back[128];
	struct perfrec_id id;
	size_t len = ptgen_switch(rec, true, 7, 8, 9, 10, 12345);
	ssize_t n;

	memset(out, 0xa5, sizeof(out));
	n = recwrite_convert(rec, len, &to_perf, out, sizeof(out));
	assert_int_equal(n, 8 + 8 + 32);
	assert_int_equal(perfrec_id_get(out, n, PERFFILE_ID_BITS, &id), 0);
	assert_int_equal(id.pid, 9);
	assert_int_equal(id.tid, 10);
	assert_int_equal(id.time, 12345);
	assert_int_equal(id.cpu, 3);
	assert_int_equal(id.id, 99);
	memset(back, 0xa5, sizeof(back));
	n = recwrite_convert(out, n, &to_lldb, back, sizeof(back));
	assert_int_equal(n, len);
	assert_memory_equal(back, rec, len);
	assert_int_equal(recwrite_convert(rec, len, &to_perf, out, 40), -ENOSPC);
	assert_int_equal(recwrite_convert(NULL, len, &to_perf, out, 64), -EINVAL);
	assert_int_equal(recwrite_convert(rec, 4, &to_perf, out, 64), -EBADMSG);
}

static void test_convert_sample(void **state)
{
	struct recwrite_conv c = {
		.from_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		.to_type = PERF_SAMPLE_IP | PERFFILE_ID_BITS,
		.id = 77,
		.cpu = 2,
	};
	__u8 rec[64], out[128];
	__u64 v[6];
	size_t len = put_sample(rec, 0x401000, 5, 6, 4242);
	ssize_t n;

	memset(out, 0xa5, sizeof(out));
	n = recwrite_convert(rec, len, &c, out, sizeof(out));
	assert_int_equal(n, len + 8);
	memcpy(v, out + 8, sizeof(v) - 8);
	assert_int_equal(v[0], 77); /* IDENTIFIER comes first */
	assert_int_equal(v[1], 0x401000);
	assert_int_equal(v[2], 5 | (6ULL << 32));
	assert_int_equal(v[3], 4242);
	assert_int_equal(v[4], 2); /* cpu from the event, res 0 */
	/* a field past the fixed ones can't move: refused */
	c.to_type |= PERF_SAMPLE_PERIOD;
	assert_int_equal(recwrite_convert(rec, len, &c, out, sizeof(out)), -EINVAL);
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
		assert_int_equal(perfrec_next(rec, cases[i].len, &off, &h), cases[i].ret);
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
	fx->snap.run.backend = BACKEND_AUTO;
	assert_int_equal(perfdata_write(1, &fx->snap, NULL), -EINVAL);
	fx->snap.run.backend = BACKEND_INTEL_PT;
	assert_int_equal(perfdata_file_attr(NULL, &a), -EINVAL);
	assert_int_equal(perfdata_core_ids(&fx->snap, 1, &d, &sb), -EINVAL);
	fx->core.data_id = 0;
	assert_int_equal(perfdata_core_ids(&fx->snap, 0, &d, &sb), 0);
	assert_true(d != 0 && sb != 0 && d != sb);
	assert_int_equal(perfdata_auxtrace_info(NULL, buf, sizeof(buf)), -EINVAL);
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

/*
 * have_sched_switch tells perf how to read the switch records: 3 for the
 * CPU-wide ones (it fails on a PERF_RECORD_SWITCH), 2 for the
 * PERF_RECORD_SWITCH of process scope's task-bound events.
 */
static void test_sched_switch_by_scope(void **state)
{
	struct fixture *fx = *state;
	static const enum ptbpf_scope scopes[] = { SCOPE_CPU, SCOPE_CGROUP, SCOPE_PROCESS };
	__u8 buf[256];
	unsigned int i;
	__u64 v;

	fill_pt(fx);
	for (i = 0; i < 3; i++) {
		fx->snap.run.scope = scopes[i];
		assert_true(perfdata_auxtrace_info(&fx->snap, buf, sizeof(buf)) > 0);
		/* header, type and reserved, then the priv slots */
		memcpy(&v, buf + 16 + 7 * 8, sizeof(v));
		assert_int_equal(v, scopes[i] == SCOPE_PROCESS ? 2 : 3);
	}
}

/* The end of the mapping of this process that holds @addr (its stack). */
static __u64 mapping_end(__u64 addr)
{
	unsigned long long lo, hi;
	char line[512];
	__u64 end = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi)
			end = hi;
	fclose(f);
	assert_true(end > addr);
	return end;
}

/*
 * A crash record of this very thread, as the BPF program takes one: the
 * registers at a point of this function and the stack above it, so it
 * unwinds through this function's callers.
 */
static __attribute__((noinline)) void capture_here(struct snap_crash *k, __u8 *stack, size_t cap)
{
	__u64 ip, sp, bp, end;

	asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
		     : "=r"(ip), "=r"(sp), "=r"(bp));
	memset(k, 0, sizeof(*k));
	k->valid = true;
	k->pid = (__u32)getpid();
	k->tid = (__u32)gettid();
	k->sig = 11;
	k->at = "fault";
	k->ts = 2500;
	k->regs[PERFDATA_REG_IP] = ip;
	k->regs[7] = sp; /* PERF_REG_X86_SP */
	k->regs[6] = bp; /* PERF_REG_X86_BP */
	k->sp = sp;
	end = mapping_end(sp);
	k->stack_len = (__u32)(end - sp < cap ? end - sp : cap);
	k->stack_want = (__u32)cap;
	memcpy(stack, (const void *)(uintptr_t)sp, k->stack_len);
	k->stack = stack;
}

/*
 * The crash record, both backends: perf script unwinds the crash sample
 * through capture_here's callers, and ptbpf-dump reads it back (the
 * registers, the stack) and unwinds it the same way.
 */
static void crash_record(struct fixture *fx, bool pt)
{
	static __u8 stack[16384];
	struct dump_log log = { NULL, 0 };
	struct dump_frame f[64];
	struct dump_snap ds;
	char cmd[512], *out, *crash;
	uint8_t *buf;
	size_t len;
	int n, i, found = -1;

	if (pt)
		fill_pt(fx);
	else
		fill_sample(fx);
	capture_here(&fx->snap.crash, stack, sizeof(stack));
	write_file(fx);
	snprintf(cmd, sizeof(cmd), "perf script -F event,ip,sym -i %s 2>%s/perf.err", fx->path,
		 fx->dir);
	out = run_cmd(cmd);
	crash = strstr(out, "crash:");
	/*
	 * Debian's perf 6.1 lists the frames of an intel-pt file's crash
	 * sample without their addresses or names: the sample backend's only
	 */
	if (!crash || (!pt && (!strstr(crash, "capture_here") || !strstr(crash, "crash_record"))))
		fail_msg("perf script does not unwind the crash sample:\n%s", out);
	free(out);

	memset(&ds, 0, sizeof(ds));
	ds.pid = (uint32_t)getpid();
	assert_int_equal(snap_read_file(fx->path, SNAP_DATA_MAX, &buf, &len), 0);
	assert_int_equal(perfread_parse(&ds, buf, len, "perf.data", &log), 0);
	assert_int_equal(log.nr_errors, 0);
	assert_true(ds.has_crash);
	assert_int_equal(ds.crash.tid, (uint32_t)gettid());
	assert_int_equal(ds.crash.ip, fx->snap.crash.regs[PERFDATA_REG_IP]);
	assert_int_equal(ds.crash.stack_len, fx->snap.crash.stack_len);
	assert_memory_equal(ds.crash.stack, stack, fx->snap.crash.stack_len);
	/* not a sample of the recording: the counts are the data's */
	for (i = 0; i < (int)ds.nr_cores; i++)
		assert_int_equal(ds.cores[i].nr_samples, pt ? 0 : 3);
	n = backtrace_crash(&ds, NULL, f, 64);
	for (i = 0; i < n; i++)
		print_message("#%d %s\n", i, f[i].func);
	assert_true(n >= 2);
	assert_memory_equal(f[0].func, "capture_here", strlen("capture_here"));
	for (i = 1; i < n && found < 0; i++)
		if (!strncmp(f[i].func, "crash_record", strlen("crash_record")))
			found = i;
	assert_true(found > 0);
	snap_free(&ds);
}

static void test_crash_record_sample(void **state)
{
	crash_record(*state, false);
}

static void test_crash_record_pt(void **state)
{
	crash_record(*state, true);
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
		T(test_sched_switch_by_scope),
		T(test_header_features),
		T(test_all_features),
		T(test_invalid_args),
		T(test_pt_end_to_end),
		T(test_sample_end_to_end),
		T(test_sample_branch_regs_stack),
		T(test_pseudo_mappings),
		T(test_crash_record_sample),
		T(test_crash_record_pt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
