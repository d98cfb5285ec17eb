// SPDX-License-Identifier: GPL-2.0
/* Ending a staged snapshot at an instant: see snapcut.h. */
#include <errno.h>
#include <string.h>

#include "collect/backend.h"
#include "perfrec.h"
#include "snapcut.h"

/*
 * The TIME of a record, when it has one. A sample's fixed leading fields
 * come in the kernel's order: IDENTIFIER, IP, TID, TIME.
 */
static bool record_time(const struct perf_event_header *h, __u64 type, int id_all, __u64 *t)
{
	struct perfrec_id id;
	size_t off = sizeof(*h);

	if (!(type & PERF_SAMPLE_TIME))
		return false;
	if (h->type == PERF_RECORD_SAMPLE) {
		off += 8 * !!(type & PERF_SAMPLE_IDENTIFIER) + 8 * !!(type & PERF_SAMPLE_IP) +
		       8 * !!(type & PERF_SAMPLE_TID);
		if (off + 8 > h->size)
			return false;
		memcpy(t, (const uint8_t *)h + off, 8);
		return true;
	}
	if (!id_all || h->type >= PERF_RECORD_MAX || perfrec_id_get(h, h->size, type, &id))
		return false;
	*t = id.time;
	return true;
}

int snapcut_stream(uint8_t *buf, size_t *len, __u64 sample_type, int id_all, uint64_t ts,
		   struct snap_cut *cut)
{
	const struct perf_event_header *h;
	size_t off = 0, keep = 0, start;
	__u64 t; /* a record's TIME */
	uint64_t latest = 0, recs = 0, bytes = 0;
	int ret;

	if (!len || (!buf && *len))
		return -EINVAL;
	/* check the whole stream first: a bad one is left as it is */
	while ((ret = perfrec_next(buf, *len, &off, &h)) > 0)
		;
	if (ret < 0)
		return ret;
	off = 0;
	for (start = 0; perfrec_next(buf, *len, &off, &h) > 0; start = off) {
		if (record_time(h, sample_type, id_all, &t) && t > ts) {
			if (t > latest)
				latest = t;
			recs++;
			bytes += h->size;
			continue;
		}
		if (keep != start)
			memmove(buf + keep, buf + start, h->size);
		keep += h->size;
	}
	*len = keep;
	if (cut) {
		cut->records += recs;
		cut->bytes += bytes;
		if (latest && latest - ts > cut->after_hit_ns)
			cut->after_hit_ns = latest - ts;
	}
	return 0;
}

int snapcut_snapshot(struct snapshot *s)
{
	unsigned int i;
	int ret = 0, r;

	if (!s || !backend_ops(s->run.backend)->samples)
		return -EINVAL;
	memset(&s->cut, 0, sizeof(s->cut));
	s->cut.how = "time";
	for (i = 0; i < s->nr_cores; i++) {
		struct snap_core *c = &s->cores[i];

		r = snapcut_stream(c->trace, &c->trace_len, s->run.data_attr.sample_type,
				   s->run.data_attr.sample_id_all, s->why.ts, &s->cut);
		if (!ret)
			ret = r;
		r = snapcut_stream(c->sideband, &c->sideband_len, s->run.sb_attr.sample_type,
				   s->run.sb_attr.sample_id_all, s->why.ts, &s->cut);
		if (!ret)
			ret = r;
	}
	return ret;
}
