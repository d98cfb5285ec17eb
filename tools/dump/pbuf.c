// SPDX-License-Identifier: GPL-2.0
/* The protocol buffers writer: see pbuf.h. */
#include <stdlib.h>
#include <string.h>

#include "pbuf.h"

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2 };

/* Room for @n more bytes; false (and nomem) when there is none. */
static bool room(struct pbuf *p, size_t n)
{
	size_t cap;
	uint8_t *b;

	if (p->nomem)
		return false;
	if (p->len + n <= p->cap)
		return true;
	cap = p->cap ? p->cap : 4096;
	while (cap < p->len + n)
		cap *= 2;
	b = realloc(p->b, cap);
	if (!b) {
		p->nomem = true;
		return false;
	}
	p->b = b;
	p->cap = cap;
	return true;
}

uint8_t *pbuf_put_varint(uint8_t *dst, uint64_t v)
{
	while (v >= 0x80) {
		*dst++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*dst++ = (uint8_t)v;
	return dst;
}

static void tag(struct pbuf *p, unsigned int field, unsigned int wire)
{
	p->len = (size_t)(pbuf_put_varint(p->b + p->len, (uint64_t)field << 3 | wire) - p->b);
}

void pbuf_varint(struct pbuf *p, unsigned int field, uint64_t v)
{
	if (!room(p, 20))
		return;
	tag(p, field, WIRE_VARINT);
	p->len = (size_t)(pbuf_put_varint(p->b + p->len, v) - p->b);
}

void pbuf_double(struct pbuf *p, unsigned int field, double v)
{
	uint64_t u;
	int i;

	if (!room(p, 18))
		return;
	memcpy(&u, &v, sizeof(u));
	tag(p, field, WIRE_I64);
	for (i = 0; i < 8; i++)
		p->b[p->len++] = (uint8_t)(u >> (8 * i));
}

void pbuf_bytes(struct pbuf *p, unsigned int field, const void *s, size_t len)
{
	if (!room(p, 20 + len))
		return;
	tag(p, field, WIRE_LEN);
	p->len = (size_t)(pbuf_put_varint(p->b + p->len, len) - p->b);
	if (len)
		memcpy(p->b + p->len, s, len);
	p->len += len;
}

void pbuf_str(struct pbuf *p, unsigned int field, const char *s)
{
	pbuf_bytes(p, field, s, strlen(s));
}

size_t pbuf_begin(struct pbuf *p, unsigned int field)
{
	if (!room(p, 14))
		return 0;
	tag(p, field, WIRE_LEN);
	p->len += 4;
	return p->len;
}

void pbuf_end(struct pbuf *p, size_t at)
{
	size_t n = p->len - at, k;
	uint8_t *d;

	if (p->nomem || at < 4 || at > p->len)
		return;
	if (n > PBUF_NESTED_MAX) {
		p->nomem = true; /* cannot be said in 4 bytes: the packet is lost */
		return;
	}
	d = p->b + at - 4;
	if (n < 1 << 14) {
		/* most messages are small: the length in its shortest form,
		 * the body moved back over the room left (what is still open
		 * began before it, so no offset it holds moves) */
		k = (size_t)(pbuf_put_varint(d, n) - d);
		memmove(d + k, d + 4, n);
		p->len -= 4 - k;
		return;
	}
	d[0] = (uint8_t)(n | 0x80);
	d[1] = (uint8_t)(n >> 7 | 0x80);
	d[2] = (uint8_t)(n >> 14 | 0x80);
	d[3] = (uint8_t)(n >> 21);
}

void pbuf_free(struct pbuf *p)
{
	if (!p)
		return;
	free(p->b);
	memset(p, 0, sizeof(*p));
}
