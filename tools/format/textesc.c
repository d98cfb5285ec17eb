// SPDX-License-Identifier: GPL-2.0
/* Control characters shown, never sent: see textesc.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "textesc.h"

/*
 * Length of the valid UTF-8 character at @p (at most @n bytes) that may
 * pass as it is, or 0: an invalid or overlong sequence, a surrogate, a
 * code point past U+10FFFF, or a C1 control (U+0080..U+009F).
 */
static size_t utf8_ok(const unsigned char *p, size_t n)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	if (c == 0xc2)
		lo = 0xa0; /* U+0080..U+009F: the C1 controls */
	else if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/*
 * The escape of the byte at @p into @esc (NUL-terminated), or 0 with
 * *@keep set to how many bytes pass as they are.
 */
static size_t one(const unsigned char *p, size_t n, unsigned int flags, char esc[5], size_t *keep)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = p[0];

	*keep = 0;
	if (c >= 0x20 && c < 0x7f && (c != '\\' || (flags & TEXTESC_LINES))) {
		*keep = 1;
		return 0;
	}
	if (c == '\n' && (flags & TEXTESC_LINES)) {
		*keep = 1;
		return 0;
	}
	if (c >= 0x80) {
		*keep = utf8_ok(p, n);
		if (*keep)
			return 0;
	}
	esc[0] = '\\';
	switch (c) {
	case '\\':
		esc[1] = '\\';
		esc[2] = 0;
		return 2;
	case '\n':
		esc[1] = 'n';
		esc[2] = 0;
		return 2;
	case '\t':
		esc[1] = 't';
		esc[2] = 0;
		return 2;
	case '\r':
		esc[1] = 'r';
		esc[2] = 0;
		return 2;
	}
	esc[1] = 'x';
	esc[2] = hex[c >> 4];
	esc[3] = hex[c & 15];
	esc[4] = 0;
	return 4;
}

char *textesc(char *dst, size_t len, const char *src, size_t n, unsigned int flags)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t used = 0, i = 0, keep, e;
	char esc[5];

	if (!len)
		return dst;
	while (i < n) {
		e = one(p + i, n - i, flags, esc, &keep);
		if (used + (e ? e : keep) >= len)
			break;
		if (e) {
			memcpy(dst + used, esc, e);
			used += e;
			i++;
		} else {
			memcpy(dst + used, p + i, keep);
			used += keep;
			i += keep;
		}
	}
	dst[used] = 0;
	return dst;
}

char *textesc_str(char *dst, size_t len, const char *s)
{
	return textesc(dst, len, s ? s : "", s ? strlen(s) : 0, 0);
}

bool textesc_needed(const char *src, size_t n, unsigned int flags)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t i = 0, keep;
	char esc[5];

	while (i < n) {
		if (one(p + i, n - i, flags, esc, &keep))
			return true;
		i += keep;
	}
	return false;
}

char *textesc_dup(const char *s)
{
	size_t n = strlen(s);
	char *d;

	if (!textesc_needed(s, n, 0))
		return strdup(s);
	d = malloc(TEXTESC_SIZE(n));
	return d ? textesc(d, TEXTESC_SIZE(n), s, n, 0) : NULL;
}

int textesc_fputs(const char *s, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, keep, e;
	char esc[5];

	while (i < n) {
		e = one(p + i, n - i, 0, esc, &keep);
		if (e ? fputs(esc, out) == EOF : fwrite(p + i, 1, keep, out) != keep)
			return EOF;
		i += e ? 1 : keep;
	}
	return 0;
}
