// SPDX-License-Identifier: GPL-2.0
/* The PT event's records and a CPU's switches: see ptrecs.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "perfrec.h"
#include "ptrecs.h"

/* One record of a stream, with its time; h NULL at the end. */
struct cursor {
	const uint8_t *buf;
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
	const uint8_t *body = (const uint8_t *)(h + 1);
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

int ptrecs_hist_init(struct ptrecs_hist *h, unsigned int cap)
{
	memset(h, 0, sizeof(*h));
	if (!cap)
		return -EINVAL;
	h->step = calloc(cap, sizeof(*h->step));
	if (!h->step)
		return -ENOMEM;
	h->cap = cap;
	/* before the run's first record no thread of interest ran traced */
	h->base_known = true;
	return 0;
}

void ptrecs_hist_free(struct ptrecs_hist *h)
{
	free(h->step);
	memset(h, 0, sizeof(*h));
}

void ptrecs_hist_gap(struct ptrecs_hist *h)
{
	h->n = 0;
	h->base_known = false;
}

static struct ptrecs_step *nth(const struct ptrecs_hist *h, unsigned int i)
{
	return &h->step[(h->first + i) % h->cap];
}

/* The CPU runs @st from @time on. */
static void hist_put(struct ptrecs_hist *h, uint64_t time, const struct ptrecs_cpu *st)
{
	struct ptrecs_step *last = h->n ? nth(h, h->n - 1) : NULL;

	if (last && time < last->time)
		return; /* a record an earlier read had (--full) */
	if (last && time == last->time) {
		last->pid = st->pid;
		last->tid = st->tid;
		return;
	}
	if (h->n == h->cap) {
		/* the oldest step becomes the state known from its time on */
		h->base = *nth(h, 0);
		h->base_known = true;
		h->first = (h->first + 1) % h->cap;
		h->n--;
	}
	*nth(h, h->n++) = (struct ptrecs_step){ time, st->pid, st->tid };
}

bool ptrecs_hist_before(const struct ptrecs_hist *h, uint64_t time, struct ptrecs_cpu *st)
{
	unsigned int i = h->n;

	while (i--) {
		const struct ptrecs_step *s = nth(h, i);

		if (s->time < time) {
			st->pid = s->pid;
			st->tid = s->tid;
			return true;
		}
	}
	if (!h->base_known || time < h->base.time)
		return false;
	st->pid = h->base.pid;
	st->tid = h->base.tid;
	return true;
}

void ptrecs_follow(struct ptrecs_cpu *st, struct ptrecs_hist *h, const uint8_t *sb, size_t sb_len,
		   __u64 sb_type, const uint8_t *pt, size_t pt_len, __u64 pt_type)
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
		if (h)
			hist_put(h, c->id.time, st);
		advance(c);
	}
}

bool ptrecs_first_time(const uint8_t *sb, size_t sb_len, __u64 sb_type, const uint8_t *pt,
		       size_t pt_len, __u64 pt_type, __u64 *time)
{
	struct cursor a = { .buf = sb, .len = sb ? sb_len : 0, .type = sb_type };
	struct cursor b = { .buf = pt, .len = pt ? pt_len : 0, .type = pt_type };

	advance(&a);
	advance(&b);
	if (!a.h && !b.h)
		return false;
	*time = !b.h || (a.h && a.id.time < b.id.time) ? a.id.time : b.id.time;
	return true;
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
