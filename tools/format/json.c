// SPDX-License-Identifier: GPL-2.0
/* A small JSON writer: see json.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j, char *buf, size_t cap)
{
	memset(j, 0, sizeof(*j));
	j->buf = buf;
	j->cap = cap;
	j->first[0] = true;
	if (!buf || !cap)
		j->err = -EINVAL;
}

void json_init_dyn(struct json *j)
{
	memset(j, 0, sizeof(*j));
	j->grow = true;
	j->first[0] = true;
}

void json_free(struct json *j)
{
	if (j->grow)
		free(j->buf);
	j->buf = NULL;
	j->len = j->cap = 0;
}

void json_no_hex(struct json *j)
{
	j->no_hex = true;
}

/* Room for @n more bytes plus the final NUL. */
static bool reserve(struct json *j, size_t n)
{
	size_t cap;
	char *p;

	if (j->err)
		return false;
	if (j->len + n + 1 <= j->cap)
		return true;
	if (!j->grow) {
		j->err = -ENOSPC;
		return false;
	}
	cap = j->cap ? j->cap : 256;
	while (cap < j->len + n + 1)
		cap *= 2;
	p = realloc(j->buf, cap);
	if (!p) {
		j->err = -ENOMEM;
		return false;
	}
	j->buf = p;
	j->cap = cap;
	return true;
}

static void put(struct json *j, const char *s, size_t n)
{
	if (!reserve(j, n))
		return;
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

static void putc_(struct json *j, char c)
{
	put(j, &c, 1);
}

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF are invalid */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * The escaped text of @val (@n bytes), without quotes. Each byte that does
 * not start a valid UTF-8 sequence is written as U+FFFD, so the output is
 * valid UTF-8 whatever the input. Returns true when there was such a byte:
 * the text alone then no longer says which bytes they were.
 */
static bool put_body(struct json *j, const char *val, size_t n)
{
	const unsigned char *s = (const unsigned char *)val;
	bool bad = false;
	char esc[8];
	size_t i = 0, l;

	while (i < n && !j->err) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = c;
			put(j, esc, 2);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			const char *e = NULL;

			switch (c) {
			case '\n':
				e = "\\n";
				break;
			case '\t':
				e = "\\t";
				break;
			case '\r':
				e = "\\r";
				break;
			case '\b':
				e = "\\b";
				break;
			case '\f':
				e = "\\f";
				break;
			}
			if (e) {
				put(j, e, 2);
			} else {
				snprintf(esc, sizeof(esc), "\\u%04x", c);
				put(j, esc, 6);
			}
			i++;
			continue;
		}
		l = utf8_len(s + i, n - i);
		if (!l) {
			/*
			 * Not UTF-8. \u00XX of the byte would name the
			 * character U+00XX, another file's name once read
			 * back; the bytes go to the "<key>_hex" member.
			 */
			put(j, "\\ufffd", 6);
			bad = true;
			i++;
			continue;
		}
		put(j, val + i, l);
		i += l;
	}
	return bad;
}

static bool put_escaped(struct json *j, const char *val, size_t n)
{
	bool bad;

	putc_(j, '"');
	bad = put_body(j, val, n);
	putc_(j, '"');
	return bad;
}

/*
 * The member "<@key>_hex" after the one put_body() could not keep whole:
 * @val's @n bytes in lowercase hex, two digits a byte. Written in pieces,
 * so no buffer bounds the key (the writer does not allocate).
 */
static void put_hex_member(struct json *j, const char *key, const char *val, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)val;
	char two[2];
	size_t i;

	putc_(j, ',');
	putc_(j, '"');
	put_body(j, key, strlen(key));
	put(j, "_hex\":\"", 7);
	for (i = 0; i < n && !j->err; i++) {
		two[0] = digits[s[i] >> 4];
		two[1] = digits[s[i] & 0xf];
		put(j, two, 2);
	}
	putc_(j, '"');
}

/*
 * Separator, then the key when inside an object. A key is required inside
 * an object and refused elsewhere, and there is one top-level value: the
 * output would not be JSON otherwise.
 */
static void member(struct json *j, const char *key)
{
	if (j->err)
		return;
	if (j->depth == 0 ? key || !j->first[0] : !key != !j->in_obj[j->depth]) {
		j->err = -EINVAL;
		return;
	}
	if (!j->first[j->depth])
		putc_(j, ',');
	j->first[j->depth] = false;
	if (key) {
		put_escaped(j, key, strlen(key));
		putc_(j, ':');
	}
}

static void open_(struct json *j, const char *key, char c)
{
	member(j, key);
	if (j->err)
		return;
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		j->err = -EINVAL;
		return;
	}
	putc_(j, c);
	j->first[++j->depth] = true;
	j->in_obj[j->depth] = c == '{';
}

static void close_(struct json *j, char c)
{
	if (j->err)
		return;
	/* nothing open, or "]" for an object / "}" for an array */
	if (j->depth == 0 || j->in_obj[j->depth] != (c == '}')) {
		j->err = -EINVAL;
		return;
	}
	j->depth--;
	putc_(j, c);
}

void json_obj_begin(struct json *j, const char *key)
{
	open_(j, key, '{');
}

void json_obj_end(struct json *j)
{
	close_(j, '}');
}

void json_arr_begin(struct json *j, const char *key)
{
	open_(j, key, '[');
}

void json_arr_end(struct json *j)
{
	close_(j, ']');
}

void json_strn(struct json *j, const char *key, const char *val, size_t len)
{
	if (!val && len && !j->err)
		j->err = -EINVAL;
	member(j, key);
	if (j->err)
		return;
	/* a value in an array or at the top level has no name to pair with */
	if (put_escaped(j, val, len) && key && !j->no_hex)
		put_hex_member(j, key, val, len);
}

void json_str(struct json *j, const char *key, const char *val)
{
	if (!val) {
		json_null(j, key);
		return;
	}
	json_strn(j, key, val, strlen(val));
}

static void raw(struct json *j, const char *key, const char *text)
{
	member(j, key);
	put(j, text, strlen(text));
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "%" PRIu64, val);
	raw(j, key, tmp);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "%" PRId64, val);
	raw(j, key, tmp);
}

void json_bool(struct json *j, const char *key, bool val)
{
	raw(j, key, val ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	raw(j, key, "null");
}

void json_double(struct json *j, const char *key, double val)
{
	char tmp[32];

	if (!isfinite(val)) {
		json_null(j, key);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.17g", val);
	raw(j, key, tmp);
}

int json_finish(struct json *j)
{
	/* open containers, or no value at all: not a JSON text */
	if (!j->err && (j->depth != 0 || j->first[0]))
		j->err = -EINVAL;
	if (!j->err && reserve(j, 0))
		j->buf[j->len] = '\0';
	return j->err;
}
