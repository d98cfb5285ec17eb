// SPDX-License-Identifier: GPL-2.0
/* perf record layouts, sample IDs and the record walker: see perfrec.h. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "perfrec.h"

/*
 * One field of a sample ID or sample prefix. The order of these tables is
 * the kernel's (perf_event_open(2), "sample_id" and PERF_RECORD_SAMPLE).
 */
enum field { F_PIDTID, F_TIME, F_ID, F_STREAM, F_CPU, F_IP, F_ADDR };

struct id_field {
	__u64 bit;
	enum field f;
};

static const struct id_field id_fields[] = {
	{ PERF_SAMPLE_TID, F_PIDTID }, { PERF_SAMPLE_TIME, F_TIME },
	{ PERF_SAMPLE_ID, F_ID },      { PERF_SAMPLE_STREAM_ID, F_STREAM },
	{ PERF_SAMPLE_CPU, F_CPU },    { PERF_SAMPLE_IDENTIFIER, F_ID },
};

static const struct id_field sample_fields[] = {
	{ PERF_SAMPLE_IDENTIFIER, F_ID },    { PERF_SAMPLE_IP, F_IP },
	{ PERF_SAMPLE_TID, F_PIDTID },	     { PERF_SAMPLE_TIME, F_TIME },
	{ PERF_SAMPLE_ADDR, F_ADDR },	     { PERF_SAMPLE_ID, F_ID },
	{ PERF_SAMPLE_STREAM_ID, F_STREAM }, { PERF_SAMPLE_CPU, F_CPU },
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

/* Every field is one u64 (pid+tid and cpu+res are two u32s). */
static size_t fields_size(const struct id_field *s, size_t n, __u64 type)
{
	size_t i, sz = 0;

	for (i = 0; i < n; i++)
		if (type & s[i].bit)
			sz += 8;
	return sz;
}

static void fields_put(uint8_t *p, const struct id_field *s, size_t n, __u64 type,
		       const struct perfrec_id *id)
{
	__u32 w[2];
	__u64 v;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(type & s[i].bit))
			continue;
		switch (s[i].f) {
		case F_PIDTID:
			w[0] = id->pid;
			w[1] = id->tid;
			memcpy(p, w, 8);
			break;
		case F_CPU:
			w[0] = id->cpu;
			w[1] = 0;
			memcpy(p, w, 8);
			break;
		default:
			v = s[i].f == F_TIME   ? id->time :
			    s[i].f == F_ID     ? id->id :
			    s[i].f == F_STREAM ? id->stream_id :
			    s[i].f == F_IP     ? id->ip :
						 id->addr;
			memcpy(p, &v, 8);
		}
		p += 8;
	}
}

static void fields_get(const uint8_t *p, const struct id_field *s, size_t n, __u64 type,
		       struct perfrec_id *id)
{
	__u32 w[2];
	__u64 v;
	size_t i;

	memset(id, 0, sizeof(*id));
	id->pid = id->tid = id->cpu = (__u32)-1;
	for (i = 0; i < n; i++) {
		if (!(type & s[i].bit))
			continue;
		memcpy(w, p, 8);
		memcpy(&v, p, 8);
		p += 8;
		switch (s[i].f) {
		case F_PIDTID:
			id->pid = w[0];
			id->tid = w[1];
			break;
		case F_CPU:
			id->cpu = w[0];
			break;
		case F_TIME:
			id->time = v;
			break;
		case F_ID:
			id->id = v;
			break;
		case F_STREAM:
			id->stream_id = v;
			break;
		case F_IP:
			id->ip = v;
			break;
		case F_ADDR:
			id->addr = v;
			break;
		}
	}
}

size_t perfrec_id_size(__u64 type)
{
	return fields_size(id_fields, NFIELDS(id_fields), type);
}

void perfrec_id_put(void *dst, __u64 type, const struct perfrec_id *id)
{
	fields_put(dst, id_fields, NFIELDS(id_fields), type, id);
}

int perfrec_id_get(const void *rec, size_t len, __u64 type, struct perfrec_id *id)
{
	size_t sz = perfrec_id_size(type);

	if (!rec || !id)
		return -EINVAL;
	if (len < sizeof(struct perf_event_header) + sz)
		return -EBADMSG;
	fields_get((const uint8_t *)rec + len - sz, id_fields, NFIELDS(id_fields), type, id);
	return 0;
}

int perfrec_next(const void *buf, size_t len, size_t *off, const struct perf_event_header **hdr)
{
	struct perf_event_header h;

	if ((!buf && len) || !off || !hdr)
		return -EINVAL;
	if (*off >= len)
		return 0;
	if (len - *off < sizeof(h))
		return -EBADMSG;
	memcpy(&h, (const uint8_t *)buf + *off, sizeof(h));
	/* the kernel keeps every record 8-byte sized (perf_event_open(2)) */
	if (h.size < sizeof(h) || h.size % 8 || h.size > len - *off)
		return -EBADMSG;
	*hdr = (const void *)((const uint8_t *)buf + *off);
	*off += h.size;
	return 1;
}

size_t perfrec_sample_size(__u64 type)
{
	return fields_size(sample_fields, NFIELDS(sample_fields), type);
}

void perfrec_sample_put(void *dst, __u64 type, const struct perfrec_id *id)
{
	fields_put(dst, sample_fields, NFIELDS(sample_fields), type, id);
}

void perfrec_sample_get(const void *src, __u64 type, struct perfrec_id *id)
{
	fields_get(src, sample_fields, NFIELDS(sample_fields), type, id);
}

void perfrec_id_get_none(struct perfrec_id *id)
{
	fields_get(NULL, id_fields, 0, 0, id);
}
