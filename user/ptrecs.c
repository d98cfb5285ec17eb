// SPDX-License-Identifier: GPL-2.0
/* The PT event's records and a CPU's switches: see ptrecs.h. */
#include <string.h>
#include <linux/perf_event.h>

#include "perfrec.h"
#include "ptrecs.h"

/* One record of a stream, with its time; h NULL at the end. */
struct cursor {
	const __u8 *buf;
	size_t len, off;
	__u64 type;
	const struct perf_event_header *h;
	struct perfrec_id id;
};

static void advance(struct cursor *c)
{
	while (perfrec_next(c->buf, c->len, &c->off, &c->h) > 0)
		if (!perfrec_id_get(c->h, c->h->size, c->type, &c->id))
			return;
	c->h = NULL;
}

/* What record @h (sample ID @id) says about the thread on the CPU. */
static void apply(struct ptrecs_cpu *st, const struct perf_event_header *h,
		  const struct perfrec_id *id)
{
	const __u8 *body = (const __u8 *)(h + 1);
	bool out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
	__u32 v[2];

	switch (h->type) {
	case PERF_RECORD_ITRACE_START:
		if (h->size < sizeof(*h) + sizeof(v))
			return;
		memcpy(v, body, sizeof(v));
		st->pid = v[0];
		st->tid = v[1];
		return;
	case PERF_RECORD_SWITCH:
		/* a task-bound event sees its own task only */
		st->pid = out ? 0 : id->pid;
		st->tid = out ? 0 : id->tid;
		return;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (!out) {
			st->pid = id->pid;
			st->tid = id->tid;
			return;
		}
		if (h->size < sizeof(*h) + sizeof(v))
			return;
		memcpy(v, body, sizeof(v)); /* next_prev_pid, next_prev_tid */
		st->pid = v[0];
		st->tid = v[1];
		return;
	}
}

void ptrecs_follow(struct ptrecs_cpu *st, const __u8 *sb, size_t sb_len, __u64 sb_type,
		   const __u8 *pt, size_t pt_len, __u64 pt_type)
{
	struct cursor a = { .buf = sb, .len = sb ? sb_len : 0, .type = sb_type };
	struct cursor b = { .buf = pt, .len = pt ? pt_len : 0, .type = pt_type };
	struct cursor *c;

	advance(&a);
	advance(&b);
	while (a.h || b.h) {
		/* the kernel writes ITRACE_START before the switch-in */
		c = !b.h || (a.h && a.id.time < b.id.time) ? &a : &b;
		apply(st, c->h, &c->id);
		advance(c);
	}
}

void ptrecs_facts(struct snap_core *core)
{
	const struct perf_event_header *h;
	size_t off = 0;
	__u64 v[3];

	core->aux_truncated = core->aux_collision = core->aux_partial = 0;
	core->ptrec_lost = 0;
	while (core->ptrec && perfrec_next(core->ptrec, core->ptrec_len, &off, &h) > 0) {
		size_t n = h->size - sizeof(*h);

		memset(v, 0, sizeof(v));
		memcpy(v, h + 1, n < sizeof(v) ? n : sizeof(v));
		if (h->type == PERF_RECORD_LOST) {
			core->ptrec_lost += v[1]; /* id, lost */
			continue;
		}
		if (h->type != PERF_RECORD_AUX)
			continue;
		/* aux_offset, aux_size, flags */
		core->aux_truncated += !!(v[2] & PERF_AUX_FLAG_TRUNCATED);
		core->aux_collision += !!(v[2] & PERF_AUX_FLAG_COLLISION);
		core->aux_partial += !!(v[2] & PERF_AUX_FLAG_PARTIAL);
	}
}
