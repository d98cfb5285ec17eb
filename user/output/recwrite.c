// SPDX-License-Identifier: GPL-2.0
/* perf record writing: see recwrite.h. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "recwrite.h"

/* The leading fields of a PERF_RECORD_SAMPLE, all of fixed size. */
#define SAMPLE_FIXED_BITS                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)

/* Fills what the record did not carry; ID and CPU are the event's. */
static void fill_id(struct perfrec_id *id, __u64 had, const struct recwrite_conv *c)
{
	if (!(had & PERF_SAMPLE_TID))
		id->pid = id->tid = (__u32)-1;
	id->id = c->id;
	id->cpu = c->cpu;
}

static ssize_t convert_sample(const uint8_t *rec, size_t len, const struct recwrite_conv *c,
			      uint8_t *dst, size_t cap)
{
	size_t hs = sizeof(struct perf_event_header);
	size_t from = perfrec_sample_size(c->from_type);
	size_t to = perfrec_sample_size(c->to_type);
	struct perf_event_header h;
	struct perfrec_id id;
	size_t rest, out;

	/* only fixed-size leading fields can move without parsing the rest */
	if ((c->from_type & ~SAMPLE_FIXED_BITS) != (c->to_type & ~SAMPLE_FIXED_BITS))
		return -EINVAL;
	if (len < hs + from)
		return -EBADMSG;
	rest = len - hs - from;
	out = hs + to + rest;
	if (out > cap || out > PERFREC_MAX)
		return -ENOSPC;
	perfrec_sample_get(rec + hs, c->from_type, &id);
	fill_id(&id, c->from_type, c);
	memcpy(&h, rec, hs);
	h.size = (__u16)out;
	memcpy(dst, &h, hs);
	perfrec_sample_put(dst + hs, c->to_type, &id);
	memmove(dst + hs + to, rec + hs + from, rest);
	return (ssize_t)out;
}

static ssize_t convert_other(const uint8_t *rec, size_t len, const struct recwrite_conv *c,
			     uint8_t *dst, size_t cap)
{
	size_t from = c->from_id_all ? perfrec_id_size(c->from_type) : 0;
	size_t to = c->to_id_all ? perfrec_id_size(c->to_type) : 0;
	struct perf_event_header h;
	struct perfrec_id id;
	size_t body, out;

	if (len < sizeof(h) + from)
		return -EBADMSG;
	body = len - from;
	out = body + to;
	if (out > cap || out > PERFREC_MAX)
		return -ENOSPC;
	if (from)
		perfrec_id_get(rec, len, c->from_type, &id);
	else
		perfrec_id_get_none(&id);
	fill_id(&id, c->from_id_all ? c->from_type : 0, c);
	memmove(dst, rec, body);
	memcpy(&h, dst, sizeof(h));
	h.size = (__u16)out;
	memcpy(dst, &h, sizeof(h));
	perfrec_id_put(dst + body, c->to_id_all ? c->to_type : 0, &id);
	return (ssize_t)out;
}

ssize_t recwrite_convert(const void *rec, size_t len, const struct recwrite_conv *c, void *dst,
			 size_t cap)
{
	struct perf_event_header h;

	if (!rec || !c || !dst)
		return -EINVAL;
	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, rec, sizeof(h));
	if (h.size < sizeof(h) || h.size > len)
		return -EBADMSG;
	if (h.type == PERF_RECORD_SAMPLE)
		return convert_sample(rec, h.size, c, dst, cap);
	return convert_other(rec, h.size, c, dst, cap);
}

/* Header, fixed body, a NUL-padded string, then the sample ID. */
static ssize_t put_named(void *dst, size_t cap, __u32 type, __u16 misc, const void *body,
			 size_t body_len, const char *name, size_t name_len, __u64 id_type,
			 const struct perfrec_id *id)
{
	struct perf_event_header h = { .type = type, .misc = misc };
	size_t name_sz = (name_len + 1 + 7) & ~(size_t)7;
	size_t idsz = perfrec_id_size(id_type);
	size_t size = sizeof(h) + body_len + name_sz + idsz;
	uint8_t *p = dst;

	if (size > PERFREC_MAX)
		return -ENAMETOOLONG;
	if (size > cap)
		return -ENOSPC;
	h.size = (__u16)size;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, body, body_len);
	p += body_len;
	memset(p, 0, name_sz);
	memcpy(p, name, name_len);
	p += name_sz;
	perfrec_id_put(p, id_type, id);
	return (ssize_t)size;
}

ssize_t recwrite_comm(void *dst, size_t cap, __u32 pid, __u32 tid, const char *comm, __u64 type,
		      const struct perfrec_id *id)
{
	struct perfrec_comm rec = { .pid = pid, .tid = tid };
	const size_t hs = sizeof(rec.header);

	if (!dst || !comm || !id)
		return -EINVAL;
	/* the kernel's comm is TASK_COMM_LEN (16) with its NUL */
	return put_named(dst, cap, PERF_RECORD_COMM, 0, (const uint8_t *)&rec + hs,
			 sizeof(rec) - hs, comm, strnlen(comm, 15), type, id);
}

ssize_t recwrite_mmap2(void *dst, size_t cap, __u32 pid, const struct snap_map *m, __u64 type,
		       const struct perfrec_id *id)
{
	struct perfrec_mmap2 rec;
	/* put_named() writes the header; the body follows it */
	const size_t hs = sizeof(rec.header);

	if (!dst || !m || !m->path || !id)
		return -EINVAL;
	memset(&rec, 0, sizeof(rec));
	rec.pid = rec.tid = pid;
	rec.addr = m->start;
	rec.len = m->len;
	rec.pgoff = m->pgoff;
	rec.maj = m->maj;
	rec.min = m->min;
	rec.ino = m->ino;
	rec.prot = m->prot;
	/* file-backed code is mapped private by the loader */
	rec.flags = MAP_PRIVATE;
	/* what the kernel marks a mapping that holds no code with */
	return put_named(
		dst, cap, PERF_RECORD_MMAP2,
		PERF_RECORD_MISC_USER | (m->prot & PROT_EXEC ? 0 : PERF_RECORD_MISC_MMAP_DATA),
		(const uint8_t *)&rec + hs, sizeof(rec) - hs, m->path, strlen(m->path), type, id);
}
