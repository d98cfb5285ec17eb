// SPDX-License-Identifier: GPL-2.0
/* The kernel's MMAP2 records merged into /proc readings: see kmaps.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "kmaps.h"
#include "perfrec.h"

/* Appends @m to @v (*@n entries), its path copied when @dup. */
static int push(struct snap_map *v, unsigned int *n, const struct snap_map *m, bool dup)
{
	v[*n] = *m;
	if (dup && m->path) {
		v[*n].path = strdup(m->path);
		if (!v[*n].path)
			return -ENOMEM;
	}
	(*n)++;
	return 0;
}

int kmaps_add(struct snap_process *p, const struct snap_map *m)
{
	uint64_t lo = m->start, hi = m->start + m->len;
	struct snap_map *v, part;
	unsigned int i, n = 0;
	bool placed = false;
	int ret = 0;

	/* at most one entry is split in two, one more is added */
	v = calloc(p->nr_maps + 2, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->nr_maps && !ret; i++) {
		const struct snap_map *e = &p->maps[i];
		uint64_t e_hi = e->start + e->len;

		if (!placed && e->start >= lo) {
			ret = push(v, &n, m, true);
			placed = true;
		}
		if (ret || e_hi <= lo || e->start >= hi) {
			if (!ret)
				ret = push(v, &n, e, true);
			continue;
		}
		/* the parts of @e below and above @m stay mapped */
		if (e->start < lo) {
			part = *e;
			part.len = lo - e->start;
			ret = push(v, &n, &part, true);
			if (!ret && !placed) {
				ret = push(v, &n, m, true);
				placed = true;
			}
		}
		if (!ret && e_hi > hi) {
			part = *e;
			part.start = hi;
			part.len = e_hi - hi;
			part.pgoff = e->pgoff + (hi - e->start);
			ret = push(v, &n, &part, true);
		}
	}
	if (!ret && !placed)
		ret = push(v, &n, m, true);
	if (ret) {
		for (i = 0; i < n; i++)
			free(v[i].path);
		free(v);
		return ret;
	}
	for (i = 0; i < p->nr_maps; i++)
		free(p->maps[i].path);
	free(p->maps);
	p->maps = v;
	p->nr_maps = n;
	return 0;
}

/* The process of @more (or @p) with @pid, or NULL. */
static struct snap_process *owner(uint32_t pid, struct snap_process *p, struct snap_process *more,
				  unsigned int nr_more)
{
	unsigned int i;

	if (p && p->pid == pid)
		return p;
	for (i = 0; i < nr_more; i++)
		if (more[i].pid == pid)
			return &more[i];
	return NULL;
}

int kmaps_merge(const void *buf, size_t len, struct snap_process *p, struct snap_process *more,
		unsigned int nr_more)
{
	const struct perf_event_header *h;
	struct perfrec_mmap2 rec;
	struct snap_process *to;
	struct snap_map m;
	const char *name;
	size_t off = 0, room;
	int n = 0, ret;

	/* a record cut off or malformed ends the walk: the rest is unknown */
	while (perfrec_next(buf, len, &off, &h) > 0) {
		if (h->type != PERF_RECORD_MMAP2 || h->size <= sizeof(rec) ||
		    (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
			continue;
		memcpy(&rec, h, sizeof(rec));
		name = (const char *)h + sizeof(rec);
		room = h->size - sizeof(rec);
		to = owner(rec.pid, p, more, nr_more);
		if (!to || !memchr(name, '\0', room) || name[0] != '/')
			continue;
		memset(&m, 0, sizeof(m));
		m.start = rec.addr;
		m.len = rec.len;
		m.pgoff = rec.pgoff;
		m.prot = rec.prot;
		m.maj = rec.maj;
		m.min = rec.min;
		m.ino = rec.ino;
		m.path = (char *)name;
		ret = kmaps_add(to, &m);
		if (ret)
			return ret;
		n++;
	}
	return n;
}

void kmaps_strip(void *buf, size_t *len)
{
	const struct perf_event_header *h;
	size_t off = 0, at, out = 0;

	for (at = 0; perfrec_next(buf, *len, &off, &h) > 0; at = off) {
		if (h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_FORK ||
		    h->type == PERF_RECORD_EXIT)
			continue;
		if (out != at)
			memmove((char *)buf + out, (char *)buf + at, off - at);
		out += off - at;
	}
	*len = out;
}
