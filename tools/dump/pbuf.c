// SPDX-License-Identifier: GPL-2.0
/* The protocol buffers writer: see pbuf.h. */
#include <stdlib.h>
#include <string.h>

#include "pbuf.h"

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2 };

bool pbuf_grow(struct pbuf *p, size_t n)
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

void pbuf_double(struct pbuf *p, unsigned int field, double v)
{
	uint64_t u;
	int i;

	if (!pbuf_room(p, 18))
		return;
	memcpy(&u, &v, sizeof(u));
	pbuf_tag(p, field, WIRE_I64);
	for (i = 0; i < 8; i++)
		p->b[p->len++] = (uint8_t)(u >> (8 * i));
}

void pbuf_bytes(struct pbuf *p, unsigned int field, const void *s, size_t len)
{
	if (!pbuf_room(p, 20 + len))
		return;
	pbuf_tag(p, field, WIRE_LEN);
	p->len = (size_t)(pbuf_put_varint(p->b + p->len, len) - p->b);
	if (len)
		memcpy(p->b + p->len, s, len);
	p->len += len;
}

void pbuf_str(struct pbuf *p, unsigned int field, const char *s)
{
	pbuf_bytes(p, field, s, strlen(s));
}

void pbuf_end_long(struct pbuf *p, size_t at)
{
	size_t n = p->len - at, k;
	uint8_t len[10], *d;

	if (p->nomem || at < 1 || at > p->len)
		return;
	if (n < 0x80) {
		p->b[at - 1] = (uint8_t)n;
		return;
	}
	/* a long one: the body moves up to make room for its length (what
	 * is still open began before it, so no offset it holds moves) */
	k = (size_t)(pbuf_put_varint(len, n) - len);
	if (!pbuf_room(p, k - 1))
		return;
	d = p->b + at - 1;
	memmove(d + k, d + 1, n);
	memcpy(d, len, k);
	p->len += k - 1;
}

void pbuf_free(struct pbuf *p)
{
	if (!p)
		return;
	free(p->b);
	memset(p, 0, sizeof(*p));
}
