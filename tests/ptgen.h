/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Making Intel PT snapshots in tests, on any machine: two hand-written
 * functions whose bytes are known, PT packets for one run through them
 * made with libipt's encoder, the context switches the kernel would write,
 * and a struct snapshot of this very process to hold them. The snapshot
 * can then be written with snapwrite_snapshot() like a real one.
 *
 * The path of one run: ptgen_outer+0x0 xor, +0x2 cmp, +0x5 jne (taken),
 * +0xa call ptgen_inner, ptgen_inner+0x0 add, +0x3 ret (compressed: a
 * taken TNT bit), ptgen_outer+0xf ret (its call was not traced: TIP.PGD).
 */
#ifndef PTBPF_TESTS_PTGEN_H
#define PTBPF_TESTS_PTGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <intel-pt.h>
#include <linux/perf_event.h>

#include "collect/ptbe.h"
#include "output/perfdata.h"
#include "proc/procinfo.h"
#include "base/snapshot.h"

__asm__(".text\n"
	".globl ptgen_outer\n"
	".type ptgen_outer, @function\n"
	"ptgen_outer:\n"
	"	xor %eax, %eax\n" /* +0x0, 2 bytes */
	"	cmp $1, %edi\n" /* +0x2, 3 */
	"	jne 1f\n" /* +0x5, 2 */
	"	add $1, %eax\n" /* +0x7, 3 */
	"1:	call ptgen_inner\n" /* +0xa, 5 */
	"	ret\n" /* +0xf */
	".size ptgen_outer, .-ptgen_outer\n"
	".globl ptgen_inner\n"
	".type ptgen_inner, @function\n"
	"ptgen_inner:\n"
	"	add $2, %eax\n" /* +0x0, 3 */
	"	ret\n" /* +0x3 */
	".size ptgen_inner, .-ptgen_inner\n");
int ptgen_outer(int x);
int ptgen_inner(int x);

/* One instruction of the path: function and offset. */
struct ptgen_step {
	bool inner;
	unsigned int off;
};

static const struct ptgen_step ptgen_path[] = {
	{ false, 0x0 }, { false, 0x2 }, { false, 0x5 }, { false, 0xa },
	{ true, 0x0 },	{ true, 0x3 },	{ false, 0xf },
};
#define PTGEN_PATH_LEN (sizeof(ptgen_path) / sizeof(ptgen_path[0]))

static inline uint64_t ptgen_ip(const struct ptgen_step *s)
{
	return (uint64_t)(uintptr_t)(s->inner ? ptgen_inner : ptgen_outer) + s->off;
}

/*
 * The 4 packets a stream starts with, into @pk (zeroed by the caller): a
 * PSB+ with TSC @tsc, then MODE.exec 64-bit.
 */
static inline void ptgen_psb(struct pt_packet *pk, uint64_t tsc)
{
	pk[0].type = ppt_psb;
	pk[1].type = ppt_tsc;
	pk[1].payload.tsc.tsc = tsc;
	pk[2].type = ppt_psbend;
	pk[3].type = ppt_mode;
	pk[3].payload.mode.leaf = pt_mol_exec;
	pk[3].payload.mode.bits.exec.csl = 1;
}

/*
 * Encodes the @n packets @pk at @off of @buf (@cap bytes) with libipt's
 * encoder. Returns the new offset, 0 when they do not fit or libipt
 * refuses a packet.
 */
static inline size_t ptgen_packets(uint8_t *buf, size_t cap, size_t off, const struct pt_packet *pk,
				   unsigned int n)
{
	struct pt_encoder *enc;
	struct pt_config cfg;
	uint64_t end = 0;
	unsigned int i;
	bool ok;

	pt_config_init(&cfg);
	cfg.begin = buf + off;
	cfg.end = buf + cap;
	enc = pt_alloc_encoder(&cfg);
	if (!enc)
		return 0;
	for (i = 0; i < n; i++)
		if (pt_enc_next(enc, &pk[i]) <= 0)
			break;
	ok = i == n && pt_enc_get_offset(enc, &end) == 0;
	pt_free_encoder(enc);
	return ok ? off + (size_t)end : 0;
}

/*
 * Encodes one pass through a function at @off of @buf (@cap bytes): PSB+
 * with TSC @tsc, MODE.exec 64-bit, TIP.PGE at @func, one TNT.8 of two
 * bits @tnt (the first branch in the MSB; 1 = taken), TIP.PGD to @back,
 * where the function's ret leaves the traced code. Returns the new offset,
 * 0 when it does not fit or libipt refuses a packet.
 */
static inline size_t ptgen_encode(uint8_t *buf, size_t cap, size_t off, uint64_t tsc, uint64_t func,
				  uint8_t tnt, uint64_t back)
{
	struct pt_packet pk[7];

	memset(pk, 0, sizeof(pk));
	ptgen_psb(pk, tsc);
	pk[4].type = ppt_tip_pge;
	pk[4].payload.ip.ipc = pt_ipc_sext_48;
	pk[4].payload.ip.ip = func;
	pk[5].type = ppt_tnt_8;
	pk[5].payload.tnt.bit_size = 2;
	pk[5].payload.tnt.payload = tnt;
	pk[6].type = ppt_tip_pgd;
	pk[6].payload.ip.ipc = pt_ipc_sext_48;
	pk[6].payload.ip.ip = back;

	return ptgen_packets(buf, cap, off, pk, 7);
}

/*
 * Encodes one run of ptgen_path at @off of @buf (@cap bytes): TIP.PGE at
 * ptgen_outer, TNT taken/taken, TIP.PGD to @back, after a PSB+ with TSC
 * @tsc. Returns the new offset, 0 when it does not fit.
 */
static inline size_t ptgen_run(uint8_t *buf, size_t cap, size_t off, uint64_t tsc, uint64_t back)
{
	return ptgen_encode(buf, cap, off, tsc, (uint64_t)(uintptr_t)ptgen_outer, 0x3, back);
}

/* One PERF_RECORD_SWITCH_CPU_WIDE as the kernel writes it (TID|TIME). */
static inline size_t ptgen_switch(uint8_t *p, bool out, uint32_t np_pid, uint32_t np_tid,
				  uint32_t pid, uint32_t tid, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t np_pid, np_tid, pid, tid;
		uint64_t time;
	} r = {
		.h = { PERF_RECORD_SWITCH_CPU_WIDE, out ? PERF_RECORD_MISC_SWITCH_OUT : 0,
		       sizeof(r) },
		.np_pid = np_pid,
		.np_tid = np_tid,
		.pid = pid,
		.tid = tid,
		.time = time,
	};

	memcpy(p, &r, sizeof(r));
	return sizeof(r);
}

/* The data attr of intel-pt as ptbpf opens it: TSC packets, user only. */
static inline void ptgen_pt_attr(struct perf_event_attr *a)
{
	a->type = 8;
	a->config = PTBE_TSC;
	a->exclude_kernel = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
}

/*
 * Zeroes @s and @core and fills what every backend shares, as ptbpf would
 * for one core (cpu 0) of this process: cause "stop", the switch
 * sideband attr, perf time == TSC (mult 1, shift 0, zero 0), the CPU, the
 * record IDs and the process. The caller sets the data attr, the core's
 * TSC, trace and sideband, and releases @s->proc with procinfo_free().
 * Returns procinfo_read()'s result.
 */
static inline int ptgen_snapshot_init(struct snapshot *s, struct snap_core *core,
				      enum ptbpf_backend backend)
{
	uint32_t pid = (uint32_t)getpid();

	memset(s, 0, sizeof(*s));
	memset(core, 0, sizeof(*core));
	s->id = 1;
	s->run.backend = backend;
	s->why.kind = SNAPCAUSE_STOP;
	s->run.pid = pid;
	s->run.sb_attr.type = PERF_TYPE_SOFTWARE;
	s->run.sb_attr.config = PERF_COUNT_SW_DUMMY;
	s->run.sb_attr.context_switch = 1;
	s->run.sb_attr.sample_id_all = 1;
	s->run.sb_attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	s->run.sb_attr.exclude_kernel = 1;
	s->run.conv.valid = true;
	s->run.conv.time_mult = 1;
	strcpy(s->run.cpu_info.vendor, "GenuineIntel");
	s->run.cpu_info.family = 6;
	s->run.cpu_info.model = 142;
	s->run.cpu_info.stepping = 10;
	s->nr_cores = 1;
	s->cores = core;
	core->cpu = 0;
	core->data_id = 11;
	core->sb_id = 12;
	return procinfo_read(NULL, pid, &s->proc);
}

/*
 * Fills @s as ptbpf would for one core (cpu 0) of this process, intel-pt,
 * stopped by SIGSTOP at 6000, the core read at TSC 9000. The caller sets
 * the core's trace and sideband, and releases @s->proc with
 * procinfo_free().
 */
static inline int ptgen_snapshot(struct snapshot *s, struct snap_core *core)
{
	int err = ptgen_snapshot_init(s, core, BACKEND_INTEL_PT);

	ptgen_pt_attr(&s->run.data_attr);
	s->why.ts = 6000;
	s->why.sig = 19; /* SIGSTOP */
	s->run.cpu_info.nr_cpus_online = 1;
	core->tsc = 9000;
	return err;
}

#endif /* PTBPF_TESTS_PTGEN_H */
