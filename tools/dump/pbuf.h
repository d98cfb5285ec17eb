/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A protocol buffers writer, just what a trace needs: varints, 64-bit
 * doubles, length-delimited strings and nested messages, appended to one
 * growing buffer. No schema here: the callers name the field numbers (see
 * tlpf.c and tests/perfetto_trace.proto).
 *
 * A nested message's length is not known until it ends, so pbuf_begin()
 * leaves room for a 4-byte varint and pbuf_end() fills it in: in its
 * shortest form for a message under 16 KiB (the body moved back), else
 * padded (0x80 continuation bits on leading zero groups, which every
 * protobuf reader accepts), up to 256 MiB.
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

/* The largest nested message pbuf_end() can close (4 varint bytes). */
#define PBUF_NESTED_MAX ((1u << 28) - 1)

/* Field @field as a varint (uint64, int64 two's complement, bool, enum). */
void pbuf_varint(struct pbuf *p, unsigned int field, uint64_t v);

/* Field @field as a double (wire type 1, little-endian IEEE 754). */
void pbuf_double(struct pbuf *p, unsigned int field, double v);

/* Field @field as @len bytes at @s (a string, bytes). */
void pbuf_bytes(struct pbuf *p, unsigned int field, const void *s, size_t len);

/* Field @field as the NUL-terminated string @s. */
void pbuf_str(struct pbuf *p, unsigned int field, const char *s);

/* Opens nested message @field; returns what pbuf_end() takes. */
size_t pbuf_begin(struct pbuf *p, unsigned int field);

/* Closes the nested message pbuf_begin() returned @at for. */
void pbuf_end(struct pbuf *p, size_t at);

/* Empties @p, keeping its memory. */
static inline void pbuf_reset(struct pbuf *p)
{
	p->len = 0;
	p->nomem = false;
}

/* Releases what @p holds and zeroes it; NULL is fine. */
void pbuf_free(struct pbuf *p);

/* Writes @v as a varint at @dst (10 bytes of room); returns its end. */
uint8_t *pbuf_put_varint(uint8_t *dst, uint64_t v);

#endif /* PTBPF_DUMP_PBUF_H */
