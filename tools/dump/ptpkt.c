// SPDX-License-Identifier: GPL-2.0
/* Intel PT packets: see ptpkt.h. */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "ptpkt.h"
#include "fmtnum.h"

void ptpkt_config(const struct dump_snap *s, const uint8_t *buf, size_t len, struct pt_config *cfg)
{
	pt_config_init(cfg);
	/* libipt wants a writable range type but never writes the trace */
	cfg->begin = (uint8_t *)buf;
	cfg->end = buf ? (uint8_t *)buf + len : cfg->begin;
	if (!s)
		return;
	if (!strcmp(s->cpu.vendor, "GenuineIntel")) {
		cfg->cpu.vendor = pcv_intel;
		cfg->cpu.family = (uint16_t)s->cpu.family;
		cfg->cpu.model = (uint8_t)s->cpu.model;
		cfg->cpu.stepping = (uint8_t)s->cpu.stepping;
		/* the decoder works around this CPU's errata only if told */
		pt_cpu_errata(&cfg->errata, &cfg->cpu);
	}
	cfg->mtc_freq = (uint8_t)s->cpu.mtc_freq;
	cfg->nom_freq = (uint8_t)s->cpu.max_nonturbo_ratio;
	/* CPUID leaf 0x15: eax is the denominator, ebx the numerator */
	cfg->cpuid_0x15_eax = s->cpu.tsc_ctc_ratio_d;
	cfg->cpuid_0x15_ebx = s->cpu.tsc_ctc_ratio_n;
}

const char *ptpkt_kind_name(int type)
{
	static const char *const names[DUMP_PT_KINDS] = {
		[ppt_invalid] = "invalid", [ppt_unknown] = "unknown", [ppt_pad] = "pad",
		[ppt_psb] = "psb",	   [ppt_psbend] = "psbend",   [ppt_fup] = "fup",
		[ppt_tip] = "tip",	   [ppt_tip_pge] = "tip.pge", [ppt_tip_pgd] = "tip.pgd",
		[ppt_tnt_8] = "tnt.8",	   [ppt_tnt_64] = "tnt.64",   [ppt_mode] = "mode",
		[ppt_pip] = "pip",	   [ppt_vmcs] = "vmcs",	      [ppt_cbr] = "cbr",
		[ppt_tsc] = "tsc",	   [ppt_tma] = "tma",	      [ppt_mtc] = "mtc",
		[ppt_cyc] = "cyc",	   [ppt_stop] = "stop",	      [ppt_ovf] = "ovf",
		[ppt_mnt] = "mnt",	   [ppt_exstop] = "exstop",   [ppt_mwait] = "mwait",
		[ppt_pwre] = "pwre",	   [ppt_pwrx] = "pwrx",	      [ppt_ptw] = "ptw",
	};

	if (type < 0 || type >= DUMP_PT_KINDS || !names[type])
		return "?";
	return names[type];
}

static const char *ipc_name(enum pt_ip_compression ipc)
{
	switch (ipc) {
	case pt_ipc_suppressed:
		return "suppressed";
	case pt_ipc_update_16:
		return "upd16";
	case pt_ipc_update_32:
		return "upd32";
	case pt_ipc_sext_48:
		return "sext48";
	case pt_ipc_update_48:
		return "upd48";
	case pt_ipc_full:
		return "full";
	}
	return "?";
}

/* TNT bits, oldest (the payload's most significant) first: ! taken. */
static void tnt_bits(const struct pt_packet_tnt *t, char *buf, size_t len)
{
	size_t i, n = t->bit_size < len ? t->bit_size : len - 1;

	for (i = 0; i < n; i++)
		buf[i] = t->payload >> (t->bit_size - 1 - i) & 1 ? '!' : '.';
	buf[n] = '\0';
}

const char *ptpkt_payload(const struct pt_packet *pkt, char *buf, size_t len)
{
	const struct pt_packet_mode *m = &pkt->payload.mode;

	buf[0] = '\0';
	switch (pkt->type) {
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		snprintf(buf, len, "0x%" PRIx64 " (%s)", pkt->payload.ip.ip,
			 ipc_name(pkt->payload.ip.ipc));
		break;
	case ppt_tnt_8:
	case ppt_tnt_64:
		tnt_bits(&pkt->payload.tnt, buf, len);
		break;
	case ppt_mode:
		if (m->leaf == pt_mol_exec)
			snprintf(buf, len, "exec %s",
				 m->bits.exec.csl ? (m->bits.exec.csd ? "?" : "64-bit") :
				 m->bits.exec.csd ? "32-bit" :
						    "16-bit");
		else
			snprintf(buf, len, "tsx%s%s", m->bits.tsx.intx ? " intx" : "",
				 m->bits.tsx.abrt ? " abrt" : "");
		break;
	case ppt_pip:
		snprintf(buf, len, "cr3 0x%" PRIx64 "%s", pkt->payload.pip.cr3,
			 pkt->payload.pip.nr ? " nr" : "");
		break;
	case ppt_tsc:
		snprintf(buf, len, "0x%" PRIx64, pkt->payload.tsc.tsc);
		break;
	case ppt_cbr:
		snprintf(buf, len, "%u", pkt->payload.cbr.ratio);
		break;
	case ppt_tma:
		snprintf(buf, len, "ctc 0x%x fc 0x%x", pkt->payload.tma.ctc, pkt->payload.tma.fc);
		break;
	case ppt_mtc:
		snprintf(buf, len, "0x%x", pkt->payload.mtc.ctc);
		break;
	case ppt_cyc:
		snprintf(buf, len, "0x%" PRIx64, pkt->payload.cyc.value);
		break;
	case ppt_vmcs:
		snprintf(buf, len, "0x%" PRIx64, pkt->payload.vmcs.base);
		break;
	case ppt_mnt:
		snprintf(buf, len, "0x%" PRIx64, pkt->payload.mnt.payload);
		break;
	case ppt_ptw:
		snprintf(buf, len, "0x%" PRIx64 "%s", pkt->payload.ptw.payload,
			 pkt->payload.ptw.ip ? " ip" : "");
		break;
	default:
		break;
	}
	return buf;
}

static void count(struct dump_pt_stats *st, const struct pt_packet *p)
{
	st->packets++;
	if ((int)p->type >= 0 && p->type < DUMP_PT_KINDS)
		st->kinds[p->type]++;
	if (p->type == ppt_psb)
		st->psb++;
	else if (p->type == ppt_ovf)
		st->ovf++;
	else if (p->type == ppt_tsc) {
		if (!st->has_tsc)
			st->first_tsc = p->payload.tsc.tsc;
		st->last_tsc = p->payload.tsc.tsc;
		st->has_tsc = true;
	}
}

/* After an error at @off: on to the next PSB, or to the end. */
static bool resync(struct pt_packet_decoder *d, const struct pt_config *cfg,
		   struct dump_pt_stats *st, uint64_t off, int err, dump_pt_err_fn err_fn,
		   void *ctx)
{
	uint64_t next = (uint64_t)(cfg->end - cfg->begin);
	int ret;

	st->errors++;
	if (st->errors == 1) {
		st->first_error_off = off;
		snprintf(st->first_error, sizeof(st->first_error), "%s",
			 pt_errstr(pt_errcode(err)));
	}
	ret = pt_pkt_sync_forward(d);
	/* a PSB that is not past the error would make this loop for ever */
	if (ret >= 0 && (pt_pkt_get_sync_offset(d, &next) < 0 || next <= off))
		ret = -pte_internal;
	if (ret < 0) {
		next = (uint64_t)(cfg->end - cfg->begin);
		st->tail_skipped = next - off;
	}
	if (err_fn)
		err_fn(ctx, off, pt_errstr(pt_errcode(err)), next);
	return ret >= 0;
}

/*
 * Packets libipt decoded, kept by their bytes (see ptpkt_scan() in
 * ptpkt.h): the packet, and an id that names those bytes for the caller.
 * The size a header byte (or an extended opcode's second byte) had last
 * says how many bytes to look up; a wrong guess is only a miss.
 */
#define MEMO_BITS 12

struct memo_e {
	uint64_t raw[2]; /* the packet's bytes, zero past its size */
	uint32_t id; /* 0: empty */
	struct pt_packet pkt;
};

struct memo {
	struct memo_e *e;
	uint8_t head[256], ext[256]; /* a header's size; 0: not seen */
	uint32_t next_id;
};

/* The mask that keeps the first @n bytes (0..8) of a little-endian word. */
static inline uint64_t first_bytes(unsigned int n)
{
	return n >= 8 ? ~0ULL : (1ULL << (8 * n)) - 1;
}

/* The @n bytes at @src (16 readable) as a key in @raw; its slot. */
static inline __attribute__((always_inline)) struct memo_e *
memo_slot(struct memo *m, const uint8_t *src, unsigned int n, uint64_t raw[2])
{
	uint64_t h;

	memcpy(raw, src, 16);
	raw[0] &= first_bytes(n);
	raw[1] &= n > 8 ? first_bytes(n - 8) : 0;
	h = (raw[0] ^ raw[1] * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;
	return &m->e[h >> (64 - MEMO_BITS)];
}

/* The size the header at @src had last; 0: none seen. */
static inline unsigned int memo_size(const struct memo *m, const uint8_t *src)
{
	return src[0] == 0x02 ? m->ext[src[1]] : m->head[src[0]];
}

/* The packet of @n bytes at @src (16 bytes readable) if they are kept. */
static inline __attribute__((always_inline)) const struct memo_e *
memo_find(struct memo *m, const uint8_t *src, unsigned int n)
{
	const struct memo_e *e;
	uint64_t raw[2];

	e = memo_slot(m, src, n, raw);
	if (e->id && e->pkt.size == n && e->raw[0] == raw[0] && e->raw[1] == raw[1])
		return e;
	return NULL;
}

/* Keeps @pkt, which libipt decoded from @src (16 bytes readable); its id,
 * or 0. */
static uint32_t memo_keep(struct memo *m, const uint8_t *src, const struct pt_packet *pkt)
{
	struct memo_e *e;
	uint64_t raw[2];

	if (!pkt->size || pkt->size > 16)
		return 0;
	if (src[0] == 0x02)
		m->ext[src[1]] = pkt->size;
	else
		m->head[src[0]] = pkt->size;
	e = memo_slot(m, src, pkt->size, raw);
	e->raw[0] = raw[0];
	e->raw[1] = raw[1];
	e->pkt = *pkt;
	e->id = ++m->next_id ? m->next_id : ++m->next_id;
	return e->id;
}

int ptpkt_scan(const struct pt_config *cfg, struct dump_pt_stats *st, dump_pt_pkt_fn pkt_fn,
	       dump_pt_err_fn err_fn, void *ctx)
{
	struct memo m = { 0 };
	struct pt_packet_decoder *d;
	const struct memo_e *e;
	struct pt_packet pkt;
	uint64_t off = 0, lib_off, len;
	unsigned int n;
	uint32_t id;
	int ret;

	if (!cfg || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	if (cfg->end == cfg->begin)
		return 0;
	len = (uint64_t)(cfg->end - cfg->begin);
	m.e = calloc(1u << MEMO_BITS, sizeof(*m.e));
	d = m.e ? pt_pkt_alloc_decoder(cfg) : NULL;
	if (!d) {
		free(m.e);
		return -ENOMEM;
	}
	if (pt_pkt_sync_forward(d) < 0) {
		/* not one PSB: nothing in here can be decoded */
		st->head_skipped = len;
		pt_pkt_free_decoder(d);
		free(m.e);
		return 0;
	}
	st->has_psb = true;
	pt_pkt_get_sync_offset(d, &st->head_skipped);
	pt_pkt_get_offset(d, &off);
	lib_off = off; /* where libipt decodes next */
	while (off < len) {
		/* the last 16 bytes always go to libipt: a key reads 16 */
		n = off + 16 <= len ? memo_size(&m, cfg->begin + off) : 0;
		e = n ? memo_find(&m, cfg->begin + off, n) : NULL;
		if (e) {
			count(st, &e->pkt);
			if (pkt_fn)
				pkt_fn(ctx, off, &e->pkt, e->id);
			/* by the header's size, not the entry's (the same):
			 * the next packet need not wait for the entry */
			off += n;
			continue;
		}
		if (lib_off != off && pt_pkt_sync_set(d, off) < 0)
			break;
		ret = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (ret == -pte_eos)
			break;
		if (ret < 0) {
			if (!resync(d, cfg, st, off, ret, err_fn, ctx))
				break;
			pt_pkt_get_offset(d, &off);
			lib_off = off;
			continue;
		}
		lib_off = off + pkt.size;
		id = off + 16 <= len ? memo_keep(&m, cfg->begin + off, &pkt) : 0;
		count(st, &pkt);
		if (pkt_fn)
			pkt_fn(ctx, off, &pkt, id);
		/* the decoder moved on by the packet: no call to ask where */
		off += pkt.size;
	}
	pt_pkt_free_decoder(d);
	free(m.e);
	return 0;
}

/*
 * Each packet's text after its offset, kept by the id of its bytes
 * (ptpkt_scan()): the text is made from the bytes alone.
 */
#define PTEXT_BITS 12
#define PTEXT_MAX 48

struct ptext_e {
	uint32_t id; /* 0: empty */
	uint8_t len;
	char text[PTEXT_MAX];
};

/*
 * Offsets are written in as many hex digits as the trace's length needs,
 * at least OFF_DIGITS (8 for up to 4 GiB): every line of a core the same
 * width, and half the 16 of a u64 that no AUX buffer comes near.
 */
#define OFF_DIGITS 8

struct print_ctx {
	FILE *out;
	const struct dump_core *c;
	struct dump_log *log;
	bool started;
	unsigned int width; /* of an offset, in hex digits */
	struct fmt_out *o; /* the packet lines */
	struct ptext_e *texts;
	uint64_t hex_hi; /* off >> 8 of hex_text; ~0: none */
	/* 16 bytes, an offset's 16 digits (the last with that hex_hi), 16
	 * more: the width's last digits are copied as 16 bytes from it */
	char hex_text[48];
};

/* strlen(ipc_name(@ipc)), known at compile time. */
static size_t ipc_len(enum pt_ip_compression ipc)
{
	switch (ipc) {
	case pt_ipc_suppressed:
		return sizeof("suppressed") - 1;
	case pt_ipc_update_16:
	case pt_ipc_update_32:
	case pt_ipc_update_48:
		return sizeof("upd16") - 1;
	case pt_ipc_sext_48:
		return sizeof("sext48") - 1;
	case pt_ipc_full:
		return sizeof("full") - 1;
	}
	return 1;
}

/*
 * The payloads of the packets a trace is mostly made of, without printf;
 * NULL for the others (ptpkt_payload() then). Same text as it.
 */
static char *fast_payload(char *p, const struct pt_packet *pkt)
{
	const char *name;
	unsigned int i;
	size_t n;

	switch (pkt->type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
		for (i = 0; i < pkt->payload.tnt.bit_size && i < 64; i++)
			*p++ = pkt->payload.tnt.payload >> (pkt->payload.tnt.bit_size - 1 - i) & 1 ?
				       '!' :
				       '.';
		return p;
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		p = fmt_0x(p, pkt->payload.ip.ip);
		*p++ = ' ';
		*p++ = '(';
		name = ipc_name(pkt->payload.ip.ipc);
		n = ipc_len(pkt->payload.ip.ipc);
		memcpy(p, name, n);
		p += n;
		*p++ = ')';
		return p;
	case ppt_tsc:
		return fmt_0x(p, pkt->payload.tsc.tsc);
	case ppt_mtc:
		return fmt_0x(p, pkt->payload.mtc.ctc);
	case ppt_cyc:
		return fmt_0x(p, pkt->payload.cyc.value);
	case ppt_pad:
	case ppt_psb:
	case ppt_psbend:
	case ppt_ovf:
	case ppt_stop:
		return p; /* no payload */
	default:
		return NULL;
	}
}

/* Each kind's name as printed, alone and padded to its column ("%-8s "). */
struct kind_text {
	char name[16], padded[16]; /* 16: copied whole */
	uint8_t n, np;
};

static const struct kind_text *kind_text(int type)
{
	static struct kind_text t[DUMP_PT_KINDS + 1];
	static bool ready;
	int i;

	if (!ready) {
		for (i = 0; i <= DUMP_PT_KINDS; i++) {
			const char *k = ptpkt_kind_name(i);

			t[i].n = (uint8_t)snprintf(t[i].name, sizeof(t[i].name), "%s", k);
			t[i].np = (uint8_t)snprintf(t[i].padded, sizeof(t[i].padded), "%-8s ", k);
		}
		ready = true;
	}
	return &t[type >= 0 && type < DUMP_PT_KINDS ? type : DUMP_PT_KINDS];
}

/*
 * print_pkt() for a packet whose text is not kept (or before the first):
 * @e is where the text goes, after the offset. The rare case, out of the
 * common one's way.
 */
static __attribute__((noinline)) void print_new(struct print_ctx *x, uint64_t off,
						const struct pt_packet *pkt, struct ptext_e *t,
						uint32_t id, char *e)
{
	const struct kind_text *k = kind_text(pkt->type);
	char *text = e, *pl, *pe;

	/* a cyclic buffer's oldest bytes are usually the tail of a packet */
	if (!x->started) {
		x->started = true;
		if (off) {
			char head[16];

			memcpy(head, e - x->width, x->width);
			x->o->len = (size_t)(e - x->width - x->o->buf);
			fmt_out_flush(x->o);
			fprintf(x->out, "%0*x  skipped: %" PRIu64 " bytes before the first PSB\n",
				(int)x->width, 0, off);
			e = fmt_out_reserve(x->o, 16 + 2 + 24 + 128 + 1);
			memcpy(e, head, x->width);
			e += x->width;
			text = e;
		}
	}
	*e++ = ' ';
	*e++ = ' ';
	memcpy(e, k->padded, 16);
	pl = e + k->np;
	pe = fast_payload(pl, pkt);
	if (!pe) {
		ptpkt_payload(pkt, pl, 128);
		pe = pl + strlen(pl);
	}
	if (pe == pl) { /* no payload: the name alone */
		memcpy(e, k->name, 16);
		pe = e + k->n;
	}
	*pe++ = '\n';
	fmt_out_commit(x->o, pe);
	if (id && (size_t)(pe - text) <= PTEXT_MAX) {
		t->id = id;
		t->len = (uint8_t)(pe - text);
		memcpy(t->text, text, t->len);
	}
}

static void print_pkt(void *ctx, uint64_t off, const struct pt_packet *pkt, uint32_t id)
{
	struct print_ctx *x = ctx;
	struct ptext_e *t = &x->texts[id & ((1u << PTEXT_BITS) - 1)];
	char *line, *e;

	/* "OFFSET  %-8s %s\n", or "OFFSET  %s\n" */
	line = fmt_out_reserve(x->o, 16 + 2 + 24 + 128 + 1);
	/* offsets go up a few bytes a packet: the first 14 digits rarely
	 * change, the last two are a byte's pair (16 copied, the width kept) */
	if (off >> 8 != x->hex_hi) {
		x->hex_hi = off >> 8;
		fmt_hex16(x->hex_text + 16, off);
	}
	memcpy(line, x->hex_text + 32 - x->width, 16);
	e = line + x->width;
	memcpy(e - 2, fmtnum_pairs + 2 * (off & 0xff), 2);
	if (id && t->id == id && x->started) {
		/* constant-size copy (the line has room): no rep movs */
		memcpy(e, t->text, PTEXT_MAX);
		fmt_out_commit(x->o, e + t->len);
		return;
	}
	print_new(x, off, pkt, t, id, e);
}

static void print_err(void *ctx, uint64_t off, const char *why, uint64_t next)
{
	struct print_ctx *x = ctx;
	uint64_t end = x->c->trace_len;

	fmt_out_flush(x->o);
	fprintf(x->out, "%0*" PRIx64 "  error: %s\n", (int)x->width, off, why);
	if (next < end)
		fprintf(x->out, "%0*" PRIx64 "  resync: next PSB, %" PRIu64 " bytes skipped\n",
			(int)x->width, next, next - off);
	else
		fprintf(x->out,
			"%0*" PRIx64 "  end: no PSB after the error, "
			"%" PRIu64 " bytes skipped\n",
			(int)x->width, end, end - off);
	snap_error(x->log, x->c->trace_file, (int64_t)(x->c->trace_off + off),
		   "cpu %d trace offset 0x%" PRIx64 ": %s", x->c->cpu, off, why);
}

int ptpkt_print(FILE *out, const struct dump_snap *s, const struct dump_core *c,
		struct dump_log *log)
{
	struct print_ctx x = { .out = out, .c = c, .log = log, .hex_hi = ~0ULL };
	struct dump_pt_stats st;
	struct pt_config cfg;
	int ret;

	x.o = malloc(sizeof(*x.o));
	x.texts = calloc(1u << PTEXT_BITS, sizeof(*x.texts));
	if (!x.o || !x.texts) {
		free(x.o);
		free(x.texts);
		return -ENOMEM;
	}
	x.o->f = out;
	x.o->len = 0;
	x.width = OFF_DIGITS;
	while (x.width < 16 && c->trace_len > 1ULL << 4 * x.width)
		x.width++;
	fprintf(out, "cpu %d: %zu bytes of Intel PT from %s at offset 0x%" PRIx64 "\n", c->cpu,
		c->trace_len, c->trace_file[0] ? c->trace_file : "-", c->trace_off);
	ptpkt_config(s, c->trace, c->trace_len, &cfg);
	ret = ptpkt_scan(&cfg, &st, print_pkt, print_err, &x);
	fmt_out_flush(x.o);
	free(x.o);
	free(x.texts);
	if (ret)
		return ret;
	if (!st.has_psb && c->trace_len) {
		fprintf(out,
			"%0*x  error: no PSB in %zu bytes: nothing "
			"decodes\n",
			(int)x.width, 0, c->trace_len);
		snap_error(log, c->trace_file, (int64_t)c->trace_off,
			   "cpu %d: no PSB in %zu bytes of trace", c->cpu, c->trace_len);
	}
	return 0;
}
