// SPDX-License-Identifier: GPL-2.0
/* Instruction flow per thread: see insn.h. */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <capstone/capstone.h>

#include "insn.h"
#include "ptpkt.h"
#include "fmtnum.h"
#include "textesc.h"

/* Decoded instructions kept, by address: code runs the same paths over. */
#define ICACHE_BITS 14
#define ICACHE_SIZE (1u << ICACHE_BITS)

/* One instruction as the block's expansion needs it. */
struct icache_e {
	uint64_t ip; /* 0: empty */
	uint64_t next; /* the next instruction's address in the block */
	int isid;
	uint8_t size;
	uint8_t iclass; /* enum pt_insn_class */
	uint8_t mode; /* enum pt_exec_mode */
};

/*
 * Blocks expanded, by where they start: the instructions of a block are the
 * same each time libipt gives it (its start, length, section and mode say
 * which code it is), so each is expanded once and given again from here.
 */
#define BCACHE_BITS 12
#define BCACHE_SIZE (1u << BCACHE_BITS)

struct bcache_e {
	uint64_t ip, end_ip; /* ip 0: empty */
	int isid;
	uint16_t ninsn;
	uint8_t mode, iclass; /* the block's; iclass: of its last instruction */
	uint64_t id;
	struct dump_insn *v; /* ninsn of them */
};

struct walk {
	const struct dump_snap *s;
	struct pt_block_decoder *d;
	struct pt_image_section_cache *iscache;
	const struct dump_insn_ops *ops;
	void *ctx;
	struct dump_insn_stats *st;
	struct dump_insn_at at;
	uint64_t len;
	uint64_t last_off, same_off, unchecked; /* see stuck() */
	uint64_t tsc; /* of the last locate(); ~0 before the first */
	csh cs[3]; /* capstone, per mode: 16, 32, 64-bit; 0 until used */
	cs_insn *ci[3];
	struct icache_e *ic;
	struct bcache_e *bc;
	uint64_t next_id; /* of the next block kept */
	struct dump_insn *tmp; /* a block being expanded: 65535 */
};

/* Who is on the core now, by the decoder's last TSC. */
static void locate(struct walk *w)
{
	uint64_t tsc = 0;
	uint32_t lost_mtc, lost_cyc;

	/* -pte_no_time before the first TSC: the time stays 0 */
	pt_blk_time(w->d, &tsc, &lost_mtc, &lost_cyc);
	/* the time moves only at timing packets: most blocks share the
	 * last one's, and its task */
	if (tsc == w->tsc)
		return;
	w->tsc = tsc;
	w->at.time = snap_tsc_to_ns(&w->s->conv, tsc);
	snap_core_task(w->at.core, w->at.time, &w->at.pid, &w->at.tid);
	w->at.target = w->at.pid < 0 || (uint32_t)w->at.pid == w->s->pid;
}

/* Reports error @why at trace offset @off, counted by whose code it was. */
static void report(struct walk *w, uint64_t off, const char *why, uint64_t next)
{
	if (!w->at.target) {
		w->st->other_errors++;
	} else {
		w->st->errors++;
		if (w->ops->error)
			w->ops->error(w->ctx, &w->at, off, why, next);
	}
}

/* Reports the error @err at the decoder's position, then resyncs. */
static int recover(struct walk *w, int err)
{
	uint64_t off = 0, sync = 0, next = w->len;
	int ret;

	/* whose code failed decides whether it is worth a message */
	locate(w);
	pt_blk_get_offset(w->d, &off);
	pt_blk_get_sync_offset(w->d, &sync);
	ret = pt_blk_sync_forward(w->d);
	/* a sync point not past the last would loop for ever */
	if (ret >= 0 && (pt_blk_get_sync_offset(w->d, &next) < 0 || next <= sync))
		ret = -pte_eos;
	if (ret < 0)
		next = w->len;
	report(w, off, pt_errstr(pt_errcode(err)), next);
	return ret;
}

/* Drains pending events; an overflow is trace lost, said in place. */
static int events(struct walk *w, int status)
{
	struct pt_event ev;

	while (status >= 0 && (status & pts_event_pending)) {
		status = pt_blk_event(w->d, &ev, sizeof(ev));
		if (status >= 0 && ev.type == ptev_overflow && w->ops->error) {
			uint64_t off = 0;

			pt_blk_get_offset(w->d, &off);
			locate(w);
			w->st->errors++;
			w->ops->error(w->ctx, &w->at, off, "overflow: the CPU dropped trace here",
				      off);
		}
	}
	return status;
}

/*
 * Direct jumps and calls need no trace, so code that loops through them
 * only (a "jmp ." or a wrong image) would give blocks for ever without the
 * decoder moving in the trace. Counted, and cut off. The decoder is asked
 * where it is once per STUCK_EVERY instructions, not at each block (the
 * question cost as much as the rest of a block's own work here).
 */
#define STUCK_EVERY 4096

static bool stuck(struct walk *w, unsigned int ninsn)
{
	uint64_t off = 0;

	w->unchecked += ninsn;
	if (w->unchecked < STUCK_EVERY)
		return false;
	pt_blk_get_offset(w->d, &off);
	if (off != w->last_off) {
		w->last_off = off;
		w->same_off = 0;
		w->unchecked = 0;
		return false;
	}
	w->same_off += w->unchecked;
	w->unchecked = 0;
	return w->same_off > DUMP_INSN_MAX_UNTRACED;
}

static const cs_mode cs_modes[3] = { CS_MODE_16, CS_MODE_32, CS_MODE_64 };

/* libipt's class of capstone's instruction @ci. */
static enum pt_insn_class classify(const cs_insn *ci)
{
	const cs_detail *d = ci->detail;
	unsigned int i;

	for (i = 0; d && i < d->groups_count; i++) {
		switch (d->groups[i]) {
		case CS_GRP_RET:
			return ci->id == X86_INS_RETF || ci->id == X86_INS_RETFQ ? ptic_far_return :
										   ptic_return;
		case CS_GRP_IRET:
			return ptic_far_return;
		case CS_GRP_CALL:
			return ci->id == X86_INS_LCALL ? ptic_far_call : ptic_call;
		case CS_GRP_INT:
			return ptic_far_call;
		case CS_GRP_JUMP:
			if (ci->id == X86_INS_LJMP)
				return ptic_far_jump;
			return ci->id == X86_INS_JMP ? ptic_jump : ptic_cond_jump;
		default:
			break;
		}
	}
	if (ci->id == X86_INS_SYSCALL || ci->id == X86_INS_SYSENTER)
		return ptic_far_call;
	if (ci->id == X86_INS_SYSRET || ci->id == X86_INS_SYSEXIT)
		return ptic_far_return;
	return ptic_other;
}

/*
 * Decodes the instruction at @ip of section @isid (the block's last one's
 * bytes from @b when libipt says they are cut at the section's end) into
 * @e: its size, its class, and where the block goes on after it: past it,
 * or for a direct jump or call its target (a conditional branch ends a
 * block, so its next address is never used). Returns 0 or -pte_*.
 */
static int decode(struct walk *w, uint64_t ip, int isid, enum pt_exec_mode mode,
		  const struct pt_block *b, bool last, struct icache_e *e)
{
	uint8_t bytes[pt_max_insn_size];
	const uint8_t *code = bytes;
	unsigned int m = mode == ptem_16bit ? 0 : mode == ptem_32bit ? 1 : 2;
	const cs_x86 *x;
	uint64_t addr = ip;
	size_t n;
	int got;

	if (mode == ptem_unknown)
		return -pte_bad_insn;
	if (last && b->truncated) {
		code = b->raw;
		n = b->size;
	} else {
		got = pt_iscache_read(w->iscache, bytes, sizeof(bytes), isid, ip);
		if (got <= 0)
			return -pte_nomap;
		n = (size_t)got;
	}
	if (!w->cs[m]) {
		if (cs_open(CS_ARCH_X86, cs_modes[m], &w->cs[m]) != CS_ERR_OK)
			return -pte_nomem;
		cs_option(w->cs[m], CS_OPT_DETAIL, CS_OPT_ON);
		w->ci[m] = cs_malloc(w->cs[m]);
		if (!w->ci[m])
			return -pte_nomem;
	}
	if (!cs_disasm_iter(w->cs[m], &code, &n, &addr, w->ci[m]))
		return -pte_bad_insn;
	e->ip = ip;
	e->isid = isid;
	e->mode = (uint8_t)mode;
	e->size = (uint8_t)w->ci[m]->size;
	e->iclass = (uint8_t)classify(w->ci[m]);
	e->next = ip + e->size;
	x = &w->ci[m]->detail->x86;
	if ((e->iclass == ptic_jump || e->iclass == ptic_call) && x->op_count == 1 &&
	    x->operands[0].type == X86_OP_IMM)
		e->next = (uint64_t)x->operands[0].imm;
	return 0;
}

/* Instruction @ip of the block, from the cache or decoded into it. */
static const struct icache_e *insn_at(struct walk *w, uint64_t ip, const struct pt_block *b,
				      bool last, int *err)
{
	struct icache_e *e = &w->ic[(ip ^ ip >> ICACHE_BITS) & (ICACHE_SIZE - 1)];

	if (e->ip == ip && e->isid == b->isid && e->mode == b->mode && !(last && b->truncated))
		return e;
	*err = decode(w, ip, b->isid, b->mode, b, last, e);
	if (*err)
		e->ip = 0;
	return *err ? NULL : e;
}

/* Gives the @n instructions at @v (of one block) to the ops, with @id,
 * the block's in the cache (0: not kept), and counts them. */
static void give(struct walk *w, const struct dump_insn *v, unsigned int n, uint64_t id)
{
	struct dump_insn_run r = { v, n, id };

	if (w->at.target)
		w->st->target_insns += n;
	else
		w->st->other_insns += n;
	if (w->ops->run && n)
		w->ops->run(w->ctx, &w->at, &r);
}

static bool same_block(const struct bcache_e *e, const struct pt_block *b)
{
	return e->ip == b->ip && e->ninsn == b->ninsn && e->end_ip == b->end_ip &&
	       e->isid == b->isid && e->mode == b->mode && e->iclass == b->iclass;
}

/* Keeps the expansion of @b (in w->tmp) in @e. */
static void keep(struct walk *w, struct bcache_e *e, const struct pt_block *b)
{
	struct dump_insn *v = realloc(e->v, b->ninsn * sizeof(*v));

	e->ip = 0;
	if (!v)
		return; /* not kept: expanded again next time */
	memcpy(v, w->tmp, b->ninsn * sizeof(*v));
	*e = (struct bcache_e){ .ip = b->ip,
				.end_ip = b->end_ip,
				.isid = b->isid,
				.ninsn = b->ninsn,
				.mode = (uint8_t)b->mode,
				.iclass = (uint8_t)b->iclass,
				.id = ++w->next_id,
				.v = v };
}

/*
 * Gives the instructions of block @b to the ops, as libipt's instruction
 * decoder would have: the addresses from the code, following direct
 * jumps and calls; the last one's class as libipt knows it. Returns 0, or
 * -pte_* when the code cannot be read or decoded (reported, after the
 * instructions before it were given).
 */
static int expand(struct walk *w, const struct pt_block *b)
{
	struct bcache_e *e = &w->bc[(b->ip ^ b->ip >> BCACHE_BITS ^ b->ninsn) & (BCACHE_SIZE - 1)];
	const struct icache_e *c;
	uint64_t ip = b->ip, off = 0;
	unsigned int i;
	int err = 0;

	if (same_block(e, b)) {
		give(w, e->v, b->ninsn, e->id);
		return 0;
	}
	for (i = 0; i < b->ninsn; i++) {
		bool last = i + 1 == b->ninsn;

		c = insn_at(w, ip, b, last, &err);
		if (!c)
			break;
		w->tmp[i].ip = ip;
		w->tmp[i].size = c->size;
		w->tmp[i].iclass = last && b->iclass != ptic_error ? (uint8_t)b->iclass : c->iclass;
		ip = c->next;
	}
	if (!err && b->ninsn && w->tmp[b->ninsn - 1].ip != b->end_ip)
		err = -pte_bad_insn; /* the code is not what was traced */
	if (!err && !b->truncated)
		keep(w, e, b);
	give(w, w->tmp, i, !err && !b->truncated && e->ip ? e->id : 0);
	if (err) {
		pt_blk_get_offset(w->d, &off);
		report(w, off, pt_errstr(pt_errcode(err)), off);
	}
	return err;
}

static void loop(struct walk *w, int status)
{
	struct pt_block b;

	for (;;) {
		status = events(w, status);
		b.ninsn = 0;
		if (status >= 0)
			status = pt_blk_next(w->d, &b, sizeof(b));
		/* a block cut short by an error still ran: given first */
		if (b.ninsn) {
			locate(w);
			expand(w, &b);
		}
		if (status == -pte_eos)
			return;
		if (status >= 0 && stuck(w, b.ninsn))
			status = -pte_bad_insn;
		if (status < 0) {
			w->same_off = 0;
			w->unchecked = 0;
			status = recover(w, status);
			if (status < 0)
				return;
		}
	}
}

int insn_walk(const struct dump_snap *s, const struct dump_core *c, struct pt_image *image,
	      const struct dump_symtab *tab, const struct dump_insn_ops *ops, void *ctx,
	      struct dump_insn_stats *st)
{
	struct dump_insn_stats dummy;
	struct walk w = { .s = s, .ops = ops, .ctx = ctx, .st = st ? st : &dummy, .tsc = ~0ULL };
	struct pt_config cfg;
	unsigned int i;
	int status;

	if (!s || !c || !image || !tab || !ops)
		return -EINVAL;
	memset(w.st, 0, sizeof(*w.st));
	if (!c->trace_len)
		return 0;
	w.at.core = c;
	w.len = c->trace_len;
	w.iscache = tab->iscache;
	w.ic = calloc(ICACHE_SIZE, sizeof(*w.ic));
	w.bc = calloc(BCACHE_SIZE, sizeof(*w.bc));
	w.tmp = malloc(UINT16_MAX * sizeof(*w.tmp));
	ptpkt_config(s, c->trace, c->trace_len, &cfg);
	w.d = w.ic && w.bc && w.tmp ? pt_blk_alloc_decoder(&cfg) : NULL;
	if (!w.d) {
		free(w.ic);
		free(w.bc);
		free(w.tmp);
		return -ENOMEM;
	}
	pt_blk_set_image(w.d, image);
	status = pt_blk_sync_forward(w.d);
	if (status >= 0)
		loop(&w, status);
	pt_blk_free_decoder(w.d);
	for (i = 0; i < 3; i++) {
		if (w.ci[i])
			cs_free(w.ci[i], 1);
		if (w.cs[i])
			cs_close(&w.cs[i]);
	}
	for (i = 0; i < BCACHE_SIZE; i++)
		free(w.bc[i].v);
	free(w.bc);
	free(w.tmp);
	free(w.ic);
	return 0;
}

/*
 * Each block's lines kept, by the run's id: a block met again is one copy.
 * A block's text longer than TEXT_MAX is made again each time it is met
 * (long blocks are few, and their lines many: the copy would save little).
 */
#define TEXTS_BITS 12
#define TEXT_MAX 2048
/* the longest line: "  ", 16 digits, "  ", func+off, "\n" */
#define LINE_ROOM (2 + 16 + 2 + 320 + 1)
/* a block of at most this many instructions is made in one piece */
#define BLOCK_LINES (FMT_OUT_SIZE / LINE_ROOM)

/*
 * A function as the lines name it: its name (NULL for a bare address,
 * never the same as the line above) and where its offsets count from.
 */
struct fn_id {
	const char *name;
	uint64_t lo;
};

static bool same_fn(struct fn_id a, struct fn_id b)
{
	return a.name && a.name == b.name && a.lo == b.lo;
}

/*
 * A block's lines, kept twice: @text with its first line's name (when the
 * line above it is in another function), @cont without it (when the
 * function goes on: "  func+0xoff" cut out of the first line); and the
 * functions of its first and last lines. Each is followed by COPY_PAD
 * bytes of room, so that it is copied in whole chunks.
 */
#define COPY_PAD 32

struct text_e {
	uint64_t id; /* 0: empty */
	uint32_t len, cont_len;
	struct fn_id first, last;
	char *text, *cont; /* one allocation */
};

struct print {
	FILE *out;
	const struct dump_snap *s;
	const struct dump_symtab *tab;
	struct dump_log *log;
	int32_t tid; /* of the last line printed; -2 before the first */
	uint64_t hidden; /* instructions of others since */
	struct dump_sym_cache sym;
	struct fn_id fn; /* of the last instruction line; name NULL: none */
	struct fmt_out *o; /* the instruction lines */
	struct text_e *texts;
};

static void thread_line(struct print *p, const struct dump_insn_at *at)
{
	char comm[TEXTESC_SIZE(16)];

	fmt_out_flush(p->o);
	p->fn.name = NULL; /* the first line after it names its function */
	if (p->hidden)
		fprintf(p->out, "  (%" PRIu64 " instructions of other tasks)\n", p->hidden);
	p->hidden = 0;
	if (at->tid < 0)
		fprintf(p->out, "tid ? (no context switch yet) at %" PRIu64 ".%09" PRIu64 " s:\n",
			at->time / 1000000000, at->time % 1000000000);
	else
		fprintf(p->out, "tid %d (%s) at %" PRIu64 ".%09" PRIu64 " s:\n", at->tid,
			textesc_str(comm, sizeof(comm), snap_thread_comm(p->s, (uint32_t)at->tid)),
			at->time / 1000000000, at->time % 1000000000);
	p->tid = at->tid;
}

/*
 * "  %" PRIx64 "\n" at @line, without printf, and "  func+0xoff" before
 * the newline when the function is not the line above's (p->fn, which it
 * sets): a line without a name is in the same function as the line above,
 * at an offset as much further as its address. Returns the line's end.
 */
static char *format_line(struct print *p, uint64_t ip, char *line)
{
	struct fn_id was = p->fn;
	char *e, *n;

	line[0] = line[1] = ' ';
	e = fmt_hex(line + 2, ip);
	n = symtab_format_fast(p->tab, &p->sym, ip, e + 2);
	p->fn = (struct fn_id){ p->sym.fn, p->sym.fn_lo };
	if (!same_fn(p->fn, was)) {
		e[0] = e[1] = ' ';
		e = n;
	}
	*e++ = '\n';
	return e;
}

/* @n bytes from @src to @dst in COPY_PAD chunks (both have room past @n):
 * no call, no length dispatch, for the few dozen bytes of a block. */
static void copy_chunks(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += COPY_PAD)
		memcpy(dst + i, src + i, COPY_PAD);
}

/* Puts the lines of kept block @t after the line above's. */
static void put_text(struct print *p, const struct text_e *t)
{
	bool cont = same_fn(p->fn, t->first);
	size_t n = cont ? t->cont_len : t->len;
	char *line = fmt_out_reserve(p->o, n + COPY_PAD);

	copy_chunks(line, cont ? t->cont : t->text, n);
	fmt_out_commit(p->o, line + n);
	p->fn = t->last;
}

/* The digits of @ip in hex, no leading zeros. */
static size_t hex_len(uint64_t ip)
{
	return (size_t)(64 - __builtin_clzll(ip | 1) + 3) / 4;
}

/*
 * Writes the lines of @r (at most BLOCK_LINES) at @line (room for them
 * all) as put_text() would from a kept text, and keeps that text in @t
 * when @t is not NULL and it is short enough.
 */
static void make_text(struct print *p, const struct dump_insn_run *r, char *line, struct text_e *t)
{
	struct fn_id was = p->fn, first;
	size_t skip_at, skip_len, len;
	char *e;
	unsigned int i;

	/* the first line with its name, as kept */
	p->fn.name = NULL;
	e = format_line(p, r->v[0].ip, line);
	first = p->fn;
	skip_at = 2 + hex_len(r->v[0].ip);
	skip_len = (size_t)(e - line) - 1 - skip_at;
	for (i = 1; i < r->n; i++)
		e = format_line(p, r->v[i].ip, e);
	len = (size_t)(e - line);
	if (t && len <= TEXT_MAX) {
		size_t cont_len = len - skip_len;
		char *text = realloc(t->text, len + cont_len + 2 * COPY_PAD);

		t->id = 0;
		if (text) {
			*t = (struct text_e){ .id = r->id,
					      .len = (uint32_t)len,
					      .cont_len = (uint32_t)cont_len,
					      .first = first,
					      .last = p->fn,
					      .text = text,
					      .cont = text + len + COPY_PAD };
			memcpy(t->text, line, len);
			memcpy(t->cont, line, skip_at);
			memcpy(t->cont + skip_at, line + skip_at + skip_len,
			       len - skip_at - skip_len);
		}
	}
	/* the name cut out when the function goes on from the line above */
	if (same_fn(was, first)) {
		memmove(line + skip_at, line + skip_at + skip_len, len - skip_at - skip_len);
		e -= skip_len;
	}
	fmt_out_commit(p->o, e);
}

/* print_run() for a block not kept: made, and kept if it can be (the
 * rare case, out of the common one's way). */
static __attribute__((noinline)) void print_new(struct print *p, const struct dump_insn_run *r,
						struct text_e *t)
{
	unsigned int i;
	char *line, *e;

	if (r->n <= BLOCK_LINES) {
		line = fmt_out_reserve(p->o, r->n * LINE_ROOM);
		make_text(p, r, line, r->id ? t : NULL);
		return;
	}
	/* a long block: its lines in place, a buffer's worth at a time */
	for (i = 0; i < r->n;) {
		line = fmt_out_reserve(p->o, LINE_ROOM);
		e = line;
		for (; i < r->n && (size_t)(e - p->o->buf) + LINE_ROOM <= FMT_OUT_SIZE; i++)
			e = format_line(p, r->v[i].ip, e);
		fmt_out_commit(p->o, e);
		if (i < r->n)
			fmt_out_flush(p->o);
	}
}

static void print_run(void *ctx, const struct dump_insn_at *at, const struct dump_insn_run *r)
{
	struct print *p = ctx;
	struct text_e *t = &p->texts[r->id & ((1u << TEXTS_BITS) - 1)];

	if (!at->target) {
		p->hidden += r->n;
		return;
	}
	if (at->tid != p->tid || p->hidden)
		thread_line(p, at);
	if (r->id && t->id == r->id)
		put_text(p, t);
	else if (r->n)
		print_new(p, r, t);
}

static void print_error(void *ctx, const struct dump_insn_at *at, uint64_t off, const char *why,
			uint64_t resync)
{
	struct print *p = ctx;
	const struct dump_core *c = at->core;

	fmt_out_flush(p->o);
	p->fn.name = NULL; /* the line after it names its function */
	fprintf(p->out, "  error at trace offset 0x%" PRIx64 ": %s; ", off, why);
	if (resync < c->trace_len)
		fprintf(p->out, "resync at 0x%" PRIx64 "\n", resync);
	else
		fprintf(p->out, "no PSB after it\n");
	snap_error(p->log, c->trace_file, (int64_t)(c->trace_off + off),
		   "cpu %d trace offset 0x%" PRIx64 ": %s", c->cpu, off, why);
}

int insn_print(FILE *out, const struct dump_snap *s, const struct dump_core *c,
	       struct pt_image *image, const struct dump_symtab *tab, struct dump_log *log)
{
	static const struct dump_insn_ops ops = { print_run, print_error };
	struct print p = { .out = out, .s = s, .tab = tab, .log = log, .tid = -2 };
	struct dump_insn_stats st;
	unsigned int i;
	int ret;

	p.o = malloc(sizeof(*p.o));
	p.texts = calloc(1u << TEXTS_BITS, sizeof(*p.texts));
	if (!p.o || !p.texts) {
		free(p.o);
		free(p.texts);
		return -ENOMEM;
	}
	p.o->f = out;
	p.o->len = 0;
	fprintf(out, "cpu %d: %zu bytes of Intel PT\n", c->cpu, c->trace_len);
	ret = insn_walk(s, c, image, tab, &ops, &p, &st);
	fmt_out_flush(p.o);
	free(p.o);
	for (i = 0; i < 1u << TEXTS_BITS; i++)
		free(p.texts[i].text);
	free(p.texts);
	if (ret)
		return ret;
	if (p.hidden)
		fprintf(out, "  (%" PRIu64 " instructions of other tasks)\n", p.hidden);
	fprintf(out,
		"cpu %d: %" PRIu64 " instructions of the target, %" PRIu64
		" of other tasks, %" PRIu64 " errors\n",
		c->cpu, st.target_insns, st.other_insns, st.errors);
	return 0;
}
