/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A protocol buffers writer, just what a trace needs: varints, 64-bit
 * doubles, length-delimited strings and nested messages, appended to one
 * growing buffer. No schema here: the callers name the field numbers (see
 * tlpf.c and tests/perfetto_trace.proto).
 *
 * A nested message's length is not known until it ends, so pbuf_begin()
 * leaves one byte for it, enough for most (under 128 bytes), and
 * pbuf_end() fills it in, or moves a longer body up to make room for its
 * varint: no copy in the common case, lengths in their shortest form.
 */
#ifndef PTBPF_DUMP_PBUF_H
#define PTBPF_DUMP_PBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pbuf {
	uint8_t *b;
	size_t len, cap;
	bool nomem; /* an append failed: the buffer is incomplete */
};

/* Makes room for @n more bytes (the slow path of pbuf_room()). */
bool pbuf_grow(struct pbuf *p, size_t n);

/* Room for @n more bytes; false (and nomem) when there is none. */
static inline bool pbuf_room(struct pbuf *p, size_t n)
{
	return (!p->nomem && p->len + n <= p->cap) || pbuf_grow(p, n);
}

/* Writes @v as a varint at @dst (10 bytes of room); returns its end. */
static inline uint8_t *pbuf_put_varint(uint8_t *dst, uint64_t v)
{
	while (v >= 0x80) {
		*dst++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*dst++ = (uint8_t)v;
	return dst;
}

/* A field's key: its number and wire type (0 varint, 1 i64, 2 len). */
static inline void pbuf_tag(struct pbuf *p, unsigned int field, unsigned int wire)
{
	p->len = (size_t)(pbuf_put_varint(p->b + p->len, (uint64_t)field << 3 | wire) - p->b);
}

/* Field @field as a varint (uint64, int64 two's complement, bool, enum). */
static inline void pbuf_varint(struct pbuf *p, unsigned int field, uint64_t v)
{
	if (!pbuf_room(p, 20))
		return;
	pbuf_tag(p, field, 0);
	p->len = (size_t)(pbuf_put_varint(p->b + p->len, v) - p->b);
}

/* Field @field as a double (wire type 1, little-endian IEEE 754). */
void pbuf_double(struct pbuf *p, unsigned int field, double v);

/* Field @field as @len bytes at @s (a string, bytes). */
void pbuf_bytes(struct pbuf *p, unsigned int field, const void *s, size_t len);

/* Field @field as the NUL-terminated string @s. */
void pbuf_str(struct pbuf *p, unsigned int field, const char *s);

/* Opens nested message @field; returns what pbuf_end() takes (0 when
 * out of memory). */
static inline size_t pbuf_begin(struct pbuf *p, unsigned int field)
{
	if (!pbuf_room(p, 11))
		return 0;
	pbuf_tag(p, field, 2);
	p->len += 1;
	return p->len;
}

/* pbuf_end() for a body of 128 bytes or more: its length moves it up. */
void pbuf_end_long(struct pbuf *p, size_t at);

/* Closes the nested message pbuf_begin() returned @at for. */
static inline void pbuf_end(struct pbuf *p, size_t at)
{
	size_t n = p->len - at;

	if (p->nomem || at < 1 || at > p->len)
		return;
	if (n < 0x80)
		p->b[at - 1] = (uint8_t)n; /* the byte left for it */
	else
		pbuf_end_long(p, at);
}

/* Empties @p, keeping its memory. */
static inline void pbuf_reset(struct pbuf *p)
{
	p->len = 0;
	p->nomem = false;
}

/* Releases what @p holds and zeroes it; NULL is fine. */
void pbuf_free(struct pbuf *p);

#endif /* PTBPF_DUMP_PBUF_H */
