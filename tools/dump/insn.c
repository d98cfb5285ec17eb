// SPDX-License-Identifier: GPL-2.0
/* Instruction flow per thread: see insn.h. */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "insn.h"
#include "ptpkt.h"
#include "fmtnum.h"
#include "textesc.h"

#define STUCK_STEP 256

struct walk {
	const struct dump_snap *s;
	struct pt_insn_decoder *d;
	const struct dump_insn_ops *ops;
	void *ctx;
	struct dump_insn_stats *st;
	struct dump_insn_at at;
	uint64_t len;
	uint64_t last_off, same_off, step; /* see stuck() */
	uint64_t tsc; /* of the last locate(); ~0 before the first */
};

/* Who is on the core now, by the decoder's last TSC. */
static void locate(struct walk *w)
{
	uint64_t tsc = 0;
	uint32_t lost_mtc, lost_cyc;

	/* -pte_no_time before the first TSC: the time stays 0 */
	pt_insn_time(w->d, &tsc, &lost_mtc, &lost_cyc);
	/* the time moves only at timing packets: most instructions share
	 * the last one's, and its task */
	if (tsc == w->tsc)
		return;
	w->tsc = tsc;
	w->at.time = snap_tsc_to_ns(&w->s->conv, tsc);
	snap_core_task(w->at.core, w->at.time, &w->at.pid, &w->at.tid);
	w->at.target = w->at.pid < 0 || (uint32_t)w->at.pid == w->s->pid;
}

/* Reports the error @err at the decoder's position, then resyncs. */
static int recover(struct walk *w, int err)
{
	uint64_t off = 0, sync = 0, next = w->len;
	int ret;

	/* whose code failed decides whether it is worth a message */
	locate(w);
	pt_insn_get_offset(w->d, &off);
	pt_insn_get_sync_offset(w->d, &sync);
	ret = pt_insn_sync_forward(w->d);
	/* a sync point not past the last would loop for ever */
	if (ret >= 0 && (pt_insn_get_sync_offset(w->d, &next) < 0 || next <= sync))
		ret = -pte_eos;
	if (ret < 0)
		next = w->len;
	if (!w->at.target) {
		w->st->other_errors++;
	} else {
		w->st->errors++;
		if (w->ops->error)
			w->ops->error(w->ctx, &w->at, off, pt_errstr(pt_errcode(err)), next);
	}
	return ret;
}

/* Drains pending events; an overflow is trace lost, said in place. */
static int events(struct walk *w, int status)
{
	struct pt_event ev;

	while (status >= 0 && (status & pts_event_pending)) {
		status = pt_insn_event(w->d, &ev, sizeof(ev));
		if (status >= 0 && ev.type == ptev_overflow && w->ops->error) {
			uint64_t off = 0;

			pt_insn_get_offset(w->d, &off);
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
 * only (a "jmp ." or a wrong image) would give instructions for ever
 * without the decoder moving in the trace. Counted, and cut off.
 */
static bool stuck(struct walk *w)
{
	uint64_t off = 0;

	/* looked at every STUCK_STEP instructions: a call into libipt per
	 * instruction cost more than the limit needs to be exact */
	if (++w->step % STUCK_STEP)
		return false;
	pt_insn_get_offset(w->d, &off);
	if (off != w->last_off) {
		w->last_off = off;
		w->same_off = 0;
		return false;
	}
	w->same_off += STUCK_STEP;
	return w->same_off > DUMP_INSN_MAX_UNTRACED;
}

static void loop(struct walk *w, int status)
{
	struct pt_insn insn;

	for (;;) {
		status = events(w, status);
		if (status >= 0)
			status = pt_insn_next(w->d, &insn, sizeof(insn));
		if (status == -pte_eos)
			return;
		if (status >= 0 && stuck(w))
			status = -pte_bad_insn;
		if (status < 0) {
			w->same_off = 0;
			status = recover(w, status);
			if (status < 0)
				return;
			continue;
		}
		locate(w);
		if (w->at.target)
			w->st->target_insns++;
		else
			w->st->other_insns++;
		if (w->ops->insn)
			w->ops->insn(w->ctx, &w->at, &insn);
	}
}

int insn_walk(const struct dump_snap *s, const struct dump_core *c, struct pt_image *image,
	      const struct dump_insn_ops *ops, void *ctx, struct dump_insn_stats *st)
{
	struct dump_insn_stats dummy;
	struct walk w = { .s = s, .ops = ops, .ctx = ctx, .st = st ? st : &dummy, .tsc = ~0ULL };
	struct pt_config cfg;
	int status;

	if (!s || !c || !image || !ops)
		return -EINVAL;
	memset(w.st, 0, sizeof(*w.st));
	if (!c->trace_len)
		return 0;
	w.at.core = c;
	w.len = c->trace_len;
	ptpkt_config(s, c->trace, c->trace_len, &cfg);
	w.d = pt_insn_alloc_decoder(&cfg);
	if (!w.d)
		return -ENOMEM;
	pt_insn_set_image(w.d, image);
	status = pt_insn_sync_forward(w.d);
	if (status >= 0)
		loop(&w, status);
	pt_insn_free_decoder(w.d);
	return 0;
}

struct print {
	FILE *out;
	const struct dump_snap *s;
	const struct dump_symtab *tab;
	struct dump_log *log;
	int32_t tid; /* of the last line printed; -2 before the first */
	uint64_t hidden; /* instructions of others since */
	struct dump_sym_cache sym;
	struct fmt_out *o; /* the instruction lines */
};

static void thread_line(struct print *p, const struct dump_insn_at *at)
{
	char comm[TEXTESC_SIZE(16)];

	fmt_out_flush(p->o);
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

static void print_insn(void *ctx, const struct dump_insn_at *at, const struct pt_insn *insn)
{
	struct print *p = ctx;
	char *line, *e;

	if (!at->target) {
		p->hidden++;
		return;
	}
	if (at->tid != p->tid || p->hidden)
		thread_line(p, at);
	/* "  %016" PRIx64 "  func+0xoff\n", without printf */
	line = fmt_out_reserve(p->o, 2 + 16 + 2 + 320);
	line[0] = line[1] = ' ';
	e = fmt_hex16(line + 2, insn->ip);
	*e++ = ' ';
	*e++ = ' ';
	e = symtab_format_fast(p->tab, &p->sym, insn->ip, e);
	*e++ = '\n';
	fmt_out_commit(p->o, e);
}

static void print_error(void *ctx, const struct dump_insn_at *at, uint64_t off, const char *why,
			uint64_t resync)
{
	struct print *p = ctx;
	const struct dump_core *c = at->core;

	fmt_out_flush(p->o);
	fprintf(p->out, "  error at trace offset 0x%" PRIx64 ": %s; ", off, why);
	if (resync < c->trace_len)
		fprintf(p->out, "resync at 0x%" PRIx64 "\n", resync);
	else
		fprintf(p->out, "no PSB after it\n");
	snap_error(p->log, c->trace_file, (long long)(c->trace_off + off),
		   "cpu %d trace offset 0x%" PRIx64 ": %s", c->cpu, off, why);
}

int insn_print(FILE *out, const struct dump_snap *s, const struct dump_core *c,
	       struct pt_image *image, const struct dump_symtab *tab, struct dump_log *log)
{
	static const struct dump_insn_ops ops = { print_insn, print_error };
	struct print p = { .out = out, .s = s, .tab = tab, .log = log, .tid = -2 };
	struct dump_insn_stats st;
	int ret;

	p.o = malloc(sizeof(*p.o));
	if (!p.o)
		return -ENOMEM;
	p.o->f = out;
	p.o->len = 0;
	fprintf(out, "cpu %d: %zu bytes of Intel PT\n", c->cpu, c->trace_len);
	ret = insn_walk(s, c, image, &ops, &p, &st);
	fmt_out_flush(p.o);
	free(p.o);
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
