// SPDX-License-Identifier: GPL-2.0
/*
 * dump_gen OUT MIB: writes OUT/snapshot-000001, an intel-pt snapshot of
 * this process with MIB MiB of Intel PT made by libipt's encoder: the
 * path of tests/ptgen.h run over and over (TNT.8 + TIP.update16 per run,
 * 7 instructions in 4 bytes), a PSB+ every 4 KiB as the hardware would.
 *
 * dump_gen --bare pkt|insn|blk MIB: makes the same bytes in memory and
 * times one bare libipt loop over them, in this process so the image is
 * at the addresses the trace names: the packet decoder, the instruction
 * decoder, or the block decoder over a section cache (counting its
 * blocks' instructions). Prints "bare-KIND MB/s" of CPU time and the CPU
 * seconds. One loop a process, so that dump_throughput.sh can alternate
 * each with the ptbpf-dump mode it is the baseline of.
 */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ptgen.h"
#include "output/snapwrite.h"

/*
 * CPU time, not wall time: on a shared machine a loop waits for a CPU as
 * long as others run, which says nothing about the loop.
 */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int enc(struct pt_encoder *e, enum pt_packet_type t, uint64_t v, enum pt_ip_compression ipc)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = t;
	if (t == ppt_tsc)
		p.payload.tsc.tsc = v;
	else if (t == ppt_mode) {
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec.csl = 1;
	} else if (t == ppt_tnt_8) {
		p.payload.tnt.bit_size = 2;
		p.payload.tnt.payload = 3;
	} else {
		p.payload.ip.ipc = ipc;
		p.payload.ip.ip = v;
	}
	return pt_enc_next(e, &p);
}

static size_t generate(uint8_t *buf, size_t len)
{
	uint64_t outer = (uint64_t)(uintptr_t)ptgen_outer, off = 0, tsc = 1000;
	struct pt_encoder *e;
	struct pt_config cfg;
	size_t next_psb = 0;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	e = pt_alloc_encoder(&cfg);
	enc(e, ppt_psb, 0, 0);
	enc(e, ppt_tsc, tsc, 0);
	enc(e, ppt_mode, 0, 0);
	enc(e, ppt_psbend, 0, 0);
	enc(e, ppt_tip_pge, outer, pt_ipc_sext_48);
	for (;;) {
		pt_enc_get_offset(e, &off);
		if (off + 64 > len)
			break;
		if (off >= next_psb) {
			next_psb = off + 4096;
			tsc += 1000;
			enc(e, ppt_psb, 0, 0);
			enc(e, ppt_tsc, tsc, 0);
			enc(e, ppt_mode, 0, 0);
			enc(e, ppt_fup, outer, pt_ipc_sext_48);
			enc(e, ppt_psbend, 0, 0);
		}
		/* jne taken, inner's ret compressed; outer's ret: TIP */
		enc(e, ppt_tnt_8, 0, 0);
		enc(e, ppt_tip, outer, pt_ipc_update_16);
	}
	enc(e, ppt_tip_pgd, outer, pt_ipc_suppressed);
	pt_enc_get_offset(e, &off);
	pt_free_encoder(e);
	return (size_t)off;
}

/*
 * This program's file: readlink() rather than opening /proc/self/exe, so
 * that under valgrind (callgrind counts the loops' instructions, which a
 * busy machine leaves alone) the image is this program, not valgrind.
 */
static char self[4096];

static const char *self_path(void)
{
	ssize_t n;

	if (!self[0]) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			snprintf(self, sizeof(self), "/proc/self/exe");
		else
			self[n] = '\0';
	}
	return self;
}

/* The executable segments of this program, where they run. */
static int add_self(struct dl_phdr_info *info, size_t size, void *img)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			pt_image_add_file(img, self_path(), ph->p_offset, ph->p_filesz, NULL,
					  info->dlpi_addr + ph->p_vaddr);
	}
	return 1; /* the first object is the program itself */
}

static struct pt_image_section_cache *iscache;

/* The same, through the section cache (the block decoder's block cache
 * lives there). */
static int add_self_cached(struct dl_phdr_info *info, size_t size, void *img)
{
	int i, isid;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		isid = pt_iscache_add_file(iscache, self_path(), ph->p_offset, ph->p_filesz,
					   info->dlpi_addr + ph->p_vaddr);
		if (isid > 0)
			pt_image_add_cached(img, iscache, isid, NULL);
	}
	return 1;
}

/* One run of the bare block loop: its time in *@tb, instructions *@nb. */
static void bare_blk(const uint8_t *buf, size_t len, double *tb, uint64_t *nb)
{
	struct pt_block_decoder *bd;
	struct pt_config cfg;
	struct pt_image *img;
	struct pt_block blk;
	struct pt_event ev;
	uint64_t n = 0;
	double t;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	iscache = pt_iscache_alloc(NULL);
	img = pt_image_alloc(NULL);
	dl_iterate_phdr(add_self_cached, img);
	bd = pt_blk_alloc_decoder(&cfg);
	pt_blk_set_image(bd, img);
	t = now();
	for (st = pt_blk_sync_forward(bd); st >= 0;) {
		while (st >= 0 && (st & pts_event_pending))
			st = pt_blk_event(bd, &ev, sizeof(ev));
		if (st < 0)
			break;
		st = pt_blk_next(bd, &blk, sizeof(blk));
		n += blk.ninsn;
	}
	*tb = now() - t;
	*nb = n;
	pt_blk_free_decoder(bd);
	pt_image_free(img);
	pt_iscache_free(iscache);
}

/* One run of the bare packet loop: its time in *@t, packets in *@n. */
static void bare_pkt(const uint8_t *buf, size_t len, double *tp, uint64_t *np)
{
	struct pt_packet_decoder *pd;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t n = 0;
	double t;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	pd = pt_pkt_alloc_decoder(&cfg);
	t = now();
	for (st = pt_pkt_sync_forward(pd); st >= 0;)
		if ((st = pt_pkt_next(pd, &pkt, sizeof(pkt))) >= 0)
			n++;
	*tp = now() - t;
	*np = n;
	pt_pkt_free_decoder(pd);
}

/* One run of the bare instruction loop: its time in *@ti, instructions
 * in *@ni. */
static void bare_insn(const uint8_t *buf, size_t len, double *ti, uint64_t *ni)
{
	struct pt_insn_decoder *id;
	struct pt_config cfg;
	struct pt_image *img;
	struct pt_insn insn;
	struct pt_event ev;
	uint64_t n = 0;
	double t;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	img = pt_image_alloc(NULL);
	dl_iterate_phdr(add_self, img);
	id = pt_insn_alloc_decoder(&cfg);
	pt_insn_set_image(id, img);
	t = now();
	for (st = pt_insn_sync_forward(id); st >= 0;) {
		while (st & pts_event_pending)
			st = pt_insn_event(id, &ev, sizeof(ev));
		if (st < 0 || (st = pt_insn_next(id, &insn, sizeof(insn))) < 0)
			break;
		n++;
	}
	*ti = now() - t;
	*ni = n;
	pt_insn_free_decoder(id);
	pt_image_free(img);
}

/* dump_gen --bare KIND MIB */
static int bare(const char *kind, size_t len)
{
	uint8_t *pt = malloc(len);
	uint64_t n = 0;
	double t = 0;

	if (!pt)
		return 1;
	len = generate(pt, len);
	if (!strcmp(kind, "pkt"))
		bare_pkt(pt, len, &t, &n);
	else if (!strcmp(kind, "insn"))
		bare_insn(pt, len, &t, &n);
	else if (!strcmp(kind, "blk"))
		bare_blk(pt, len, &t, &n);
	else {
		fprintf(stderr, "dump_gen: --bare pkt, insn or blk, not '%s'\n", kind);
		free(pt);
		return 2;
	}
	free(pt);
	if (t <= 0)
		t = 1e-6;
	printf("bare-%s %.1f MB/s (%.3f s of CPU, %llu %s)\n", kind, len / t / 1e6, t,
	       (unsigned long long)n, !strcmp(kind, "pkt") ? "packets" : "instructions");
	return 0;
}

int main(int argc, char **argv)
{
	struct snapwrite_opts o = { .dirfd = -1, .uid = -1, .gid = -1 };
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)gettid();
	struct snap_core core;
	struct snapshot s;
	uint8_t *pt, sb[128];
	char err[256];
	size_t len, n = 0;

	if (argc == 4 && !strcmp(argv[1], "--bare"))
		return bare(argv[2], strtoul(argv[3], NULL, 10) << 20);
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: dump_gen OUT [MIB] | dump_gen --bare pkt|insn|blk MIB\n");
		return 2;
	}
	len = argc > 2 ? strtoul(argv[2], NULL, 10) << 20 : 64 << 20;
	pt = malloc(len);
	if (!pt || ptgen_snapshot(&s, &core))
		return 1;
	core.trace = pt;
	core.trace_len = generate(pt, len);
	core.head = core.trace_len;
	n += ptgen_switch(sb + n, false, 0, 0, pid, tid, 0);
	core.sideband = sb;
	core.sideband_len = n;
	o.out_dir = argv[1];
	if (snapwrite_snapshot(&s, &o, NULL, 0, err, sizeof(err))) {
		fprintf(stderr, "dump_gen: %s\n", err);
		return 1;
	}
	printf("generated %zu bytes\n", core.trace_len);
	procinfo_free(&s.proc);
	free(pt);
	return 0;
}
