/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers and strings into a line buffer without printf: the decoders
 * print one line per packet or instruction, millions of them, and
 * printf's format parsing was most of their time. Each function writes at
 * @p and returns the end; the caller sizes the buffer (a u64 is at most 20
 * decimal or 16 hex digits).
 */
#ifndef PTBPF_FMTNUM_H
#define PTBPF_FMTNUM_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char fmtnum_hex[] = "0123456789abcdef";

/* The two hex digits of each byte value, "00" to "ff". */
static const char fmtnum_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* The 8 hex digits of @v's low 32 bits, most significant first, as the
 * bytes of a u64 in memory order: each nibble spread to a byte, then
 * each byte made a digit, all at once. */
static inline uint64_t fmt_hex8_word(uint64_t v)
{
	uint64_t x = v & 0xffffffffu;

	x = (x | x << 16) & 0x0000ffff0000ffffULL;
	x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
	x = __builtin_bswap64(x); /* the most significant nibble first */
	/* '0' + n, and 'a' - '0' - 10 more where n > 9 */
	return x + 0x3030303030303030ULL +
	       ((x + 0x0606060606060606ULL) >> 4 & 0x0101010101010101ULL) * 0x27;
}

/* @v as exactly 16 hex digits ("%016" PRIx64). */
static inline char *fmt_hex16(char *p, uint64_t v)
{
	uint64_t hi = fmt_hex8_word(v >> 32), lo = fmt_hex8_word(v);

	memcpy(p, &hi, 8);
	memcpy(p + 8, &lo, 8);
	return p + 16;
}

/* @v in hex, no leading zeros ("%" PRIx64). */
static inline char *fmt_hex(char *p, uint64_t v)
{
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4, i;

	for (i = n - 1; i >= 0; i--, v >>= 4)
		p[i] = fmtnum_hex[v & 15];
	return p + n;
}

/* "0x" and @v in hex ("0x%" PRIx64). */
static inline char *fmt_0x(char *p, uint64_t v)
{
	*p++ = '0';
	*p++ = 'x';
	return fmt_hex(p, v);
}

/* @v in decimal ("%" PRIu64). */
static inline char *fmt_u64(char *p, uint64_t v)
{
	char t[20];
	int n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = t[--n];
	return p;
}

/* @s (a NUL-terminated string), at most @max bytes of it. */
static inline char *fmt_str(char *p, const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n > max)
		n = max;
	memcpy(p, s, n);
	return p + n;
}

/* @s left-justified in @width columns ("%-*s"). */
static inline char *fmt_pad(char *p, const char *s, size_t width)
{
	char *e = fmt_str(p, s, 64);

	while ((size_t)(e - p) < width)
		*e++ = ' ';
	return e;
}

/*
 * Lines gathered in one block and written with one fwrite when it is
 * full (or flushed): a write per line cost more than its formatting.
 * Whoever writes to @f otherwise flushes first, to keep the order.
 */
#define FMT_OUT_SIZE (256 * 1024)

struct fmt_out {
	FILE *f;
	size_t len;
	char buf[FMT_OUT_SIZE];
};

static inline void fmt_out_flush(struct fmt_out *o)
{
	if (o->len)
		fwrite_unlocked(o->buf, 1, o->len, o->f);
	o->len = 0;
}

/* Room for @n bytes (at most FMT_OUT_SIZE): where to write them. */
static inline char *fmt_out_reserve(struct fmt_out *o, size_t n)
{
	if (o->len + n > sizeof(o->buf))
		fmt_out_flush(o);
	return o->buf + o->len;
}

/* The line written from fmt_out_reserve() ends at @end. */
static inline void fmt_out_commit(struct fmt_out *o, const char *end)
{
	o->len = (size_t)(end - o->buf);
}

/* "0x401136" into @buf of @len bytes; returns @buf. */
static inline const char *fmt_addr(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, v);
	return buf;
}

#endif /* PTBPF_FMTNUM_H */
