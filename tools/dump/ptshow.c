// SPDX-License-Identifier: GPL-2.0
/* How an intel-pt snapshot shows in the outputs: see ptshow.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "insn.h"
#include "last.h"
#include "ptpkt.h"
#include "ptshow.h"

/* The core's TSC range, as perf time, widens [*@first, *@last]. */
static void pt_range(const struct dump_snap *s, const struct dump_core_sum *sum, uint64_t *first,
		     uint64_t *last)
{
	uint64_t a, b;

	if (!sum->pt.has_tsc)
		return;
	a = snap_tsc_to_ns(&s->conv, sum->pt.first_tsc);
	b = snap_tsc_to_ns(&s->conv, sum->pt.last_tsc);
	if (a < *first)
		*first = a;
	if (b > *last)
		*last = b;
}

int ptshow_core_sum(const struct dump_snap *s, const struct dump_core *c, struct dump_core_sum *sum,
		    struct dump_log *log)
{
	struct pt_config cfg;
	int ret;

	ptpkt_config(s, c->trace, c->trace_len, &cfg);
	ret = ptpkt_scan(&cfg, &sum->pt, NULL, NULL, NULL);
	if (ret)
		return ret;
	sum->decodes = sum->pt.has_psb && !sum->pt.errors;
	if (c->trace_len && !sum->pt.has_psb)
		snap_error(log, c->trace_file, (int64_t)c->trace_off,
			   "cpu %d: no PSB in %zu bytes of trace", c->cpu, c->trace_len);
	if (sum->pt.errors)
		snap_error(log, c->trace_file, (int64_t)(c->trace_off + sum->pt.first_error_off),
			   "cpu %d: %" PRIu64 " packet errors, the first at "
			   "trace offset 0x%" PRIx64 ": %s",
			   c->cpu, sum->pt.errors, sum->pt.first_error_off, sum->pt.first_error);
	return 0;
}

void ptshow_core_text(FILE *out, const struct dump_snap *s, const struct dump_core_sum *sum,
		      uint64_t *first, uint64_t *last)
{
	const struct dump_pt_stats *st = &sum->pt;
	const char *sep = "";
	int k;

	pt_range(s, sum, first, last);
	fprintf(out, "    packets %" PRIu64 ":", st->packets);
	for (k = 0; k < DUMP_PT_KINDS; k++) {
		if (!st->kinds[k])
			continue;
		fprintf(out, "%s %s %" PRIu64, sep, ptpkt_kind_name(k), st->kinds[k]);
		sep = ",";
	}
	fprintf(out, "\n    psb %" PRIu64 ", ovf %" PRIu64, st->psb, st->ovf);
	if (st->head_skipped)
		fprintf(out, ", %" PRIu64 " bytes before the first PSB", st->head_skipped);
	fputc('\n', out);
	if (st->has_tsc) {
		fprintf(out, "    tsc 0x%" PRIx64 " .. 0x%" PRIx64 " (", st->first_tsc,
			st->last_tsc);
		sumpart_print_ns(out, snap_tsc_to_ns(&s->conv, st->first_tsc));
		fputs(" .. ", out);
		sumpart_print_ns(out, snap_tsc_to_ns(&s->conv, st->last_tsc));
		fprintf(out, "%s)\n", s->conv.valid ? "" : ", no conversion");
	}
	if (sum->decodes)
		fputs("    decodes: yes\n", out);
	else if (!st->has_psb)
		fputs("    decodes: no (no PSB)\n", out);
	else
		fprintf(out,
			"    decodes: no (%" PRIu64 " errors, the first at "
			"0x%" PRIx64 ": %s)\n",
			st->errors, st->first_error_off, st->first_error);
}

void ptshow_core_json(struct json *j, const struct dump_snap *s, const struct dump_core_sum *sum,
		      uint64_t *first, uint64_t *last)
{
	const struct dump_pt_stats *st = &sum->pt;
	int k;

	pt_range(s, sum, first, last);
	json_u64(j, "psb", st->psb);
	json_u64(j, "ovf", st->ovf);
	json_u64(j, "skipped_before_psb", st->head_skipped);
	json_obj_begin(j, "packets");
	for (k = 0; k < DUMP_PT_KINDS; k++)
		if (st->kinds[k])
			json_u64(j, ptpkt_kind_name(k), st->kinds[k]);
	json_obj_end(j);
	if (st->has_tsc) {
		json_u64(j, "first_tsc", st->first_tsc);
		json_u64(j, "last_tsc", st->last_tsc);
		json_u64(j, "first_time_ns", snap_tsc_to_ns(&s->conv, st->first_tsc));
		json_u64(j, "last_time_ns", snap_tsc_to_ns(&s->conv, st->last_tsc));
	}
	json_bool(j, "decodes", sum->decodes);
	json_u64(j, "errors", st->errors);
	if (st->errors) {
		json_u64(j, "first_error_offset", st->first_error_off);
		json_str(j, "first_error", st->first_error);
	}
}

/* The span of the switch records and of the cores' TSC ranges. */
int ptshow_end_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
		    uint64_t first, uint64_t last)
{
	char a[48], b[48];

	(void)tab;
	last_snap_span(s, &first, &last);
	if (first > last) {
		fputs("  span: no timed records\n", out);
		return 0;
	}
	fprintf(out,
		"  span: %s .. %s (%.3f ms), ending %+.3f ms from the "
		"trigger\n",
		last_time_str(s, first, a, sizeof(a)), last_time_str(s, last, b, sizeof(b)),
		(double)(last - first) / 1e6, ((double)last - (double)s->cause_ts) / 1e6);
	return 0;
}

/* The span of the switch records and of the cores' TSC ranges. */
int ptshow_end_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
		    uint64_t first, uint64_t last)
{
	(void)tab;
	if (last_snap_span(s, &first, &last)) {
		json_u64(j, "first_ns", first);
		json_u64(j, "last_ns", last);
	}
	return 0;
}

/* A call stack of one thread's run on one core. */
struct run {
	struct tl_writer *w;
	const struct dump_snap *s;
	const struct dump_symtab *tab;
	struct dump_log *log;
	struct tl_track t; /* the thread's track */
	bool open; /* a run is open on t */
	unsigned int depth;
	bool after_call;
	uint64_t last; /* time of the last instruction */
	/* the functions named last, by entry address: calls go to a few */
	struct {
		uint64_t ip;
		const char *name;
	} names[256];
};

/* Closes every open slice of the run: the thread left the core. */
static void close_run(struct run *r)
{
	for (; r->depth; r->depth--)
		r->w->ops->end_slice(r->w, &r->t, r->last, NULL);
	r->open = false;
	r->after_call = false;
}

/* The name of the slice a call to @ip opens. */
static const char *callee(struct run *r, uint64_t ip, char *buf, size_t len)
{
	unsigned int h = (unsigned int)(ip ^ ip >> 8) & 255;
	const char *name;
	uint64_t off;

	if (r->names[h].ip == ip)
		return r->names[h].name;
	name = symtab_find(r->tab, ip, &off);
	if (!name)
		return symtab_func_name(r->tab, ip, buf, len);
	/* a symbol's name lives as long as the table */
	r->names[h].ip = ip;
	r->names[h].name = name;
	return name;
}

static void tl_run(void *ctx, const struct dump_insn_at *at, const struct dump_insn_run *x)
{
	struct run *r = ctx;
	char buf[256];
	unsigned int i;

	if (r->open && (r->t.id != (uint32_t)at->tid || !at->target))
		close_run(r);
	if (!at->target || at->tid < 0)
		return;
	if (!r->open) {
		r->t.kind = TL_THREAD;
		r->t.pid = at->pid < 0 ? r->s->pid : (uint32_t)at->pid;
		r->t.id = (uint32_t)at->tid;
		r->open = true;
	}
	r->last = at->time;
	for (i = 0; i < x->n; i++) {
		const struct dump_insn *in = &x->v[i];

		/* each call opens a slice, in the order of the flow: calls
		 * within one timing packet share a timestamp and still nest */
		if (!r->depth || r->after_call) {
			const char *name = callee(r, in->ip, buf, sizeof(buf));

			/* the table's names stay while this snapshot is drawn */
			if (name != buf)
				r->w->ops->begin_call(r->w, &r->t, at->time, name);
			else
				r->w->ops->begin_slice(r->w, &r->t, at->time, name, NULL, 0);
			r->depth++;
		}
		r->after_call = in->iclass == ptic_call || in->iclass == ptic_far_call;
		if ((in->iclass == ptic_return || in->iclass == ptic_far_return) && r->depth) {
			r->w->ops->end_slice(r->w, &r->t, at->time, NULL);
			r->depth--;
		}
	}
}

static void tl_error(void *ctx, const struct dump_insn_at *at, uint64_t off, const char *why,
		     uint64_t resync)
{
	struct run *r = ctx;
	const struct dump_core *c = at->core;

	(void)resync;
	/* the flow is lost here: what was open cannot be closed later */
	close_run(r);
	snap_error(r->log, c->trace_file, (int64_t)(c->trace_off + off),
		   "cpu %d trace offset 0x%" PRIx64 ": %s", c->cpu, off, why);
}

int ptshow_timeline(struct tl_writer *w, const struct dump_snap *s, struct pt_image *image,
		    const struct dump_symtab *tab, struct dump_log *log)
{
	static const struct dump_insn_ops ops = { tl_run, tl_error };
	struct run *r = calloc(1, sizeof(*r));
	unsigned int i;
	int ret = 0;

	if (!r)
		return -ENOMEM;
	*r = (struct run){ .w = w, .s = s, .tab = tab, .log = log };
	for (i = 0; !ret && i < s->nr_cores; i++) {
		w->ops->sequence(w, TL_SEQ_FLOW(i));
		ret = insn_walk(s, &s->cores[i], image, tab, &ops, r, NULL);
		close_run(r);
	}
	free(r);
	return ret;
}
