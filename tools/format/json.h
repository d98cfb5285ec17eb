/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer. Output goes to a caller's fixed buffer (no
 * allocation: usable on the control path) or to a buffer that grows.
 * Keys and string values are escaped per RFC 8259, and the output is valid
 * UTF-8 whatever the input: valid UTF-8 is written as is.
 *
 * Byte strings (paths, comms) need not be UTF-8. Each byte that does not
 * start a valid UTF-8 sequence (a stray byte, an overlong form, a surrogate,
 * a sequence cut short, a code point past U+10FFFF) is written as U+FFFD,
 * "\ufffd"; \u00XX of the byte would name the character U+00XX, whose
 * UTF-8 is other bytes. Then, and only then, the member is followed by a
 * parallel member "<key>_hex" holding the exact bytes in lowercase hex, two
 * digits a byte: {"filename":"a\ufffd","filename_hex":"61ff"}. A reader
 * prefers "<key>_hex" when present (tools/dump/jsondoc.h). A string in an
 * array or at the top level, and a key, has no name to pair with: it gets
 * U+FFFD alone; so does every string after json_no_hex().
 *
 * Errors are sticky: after the first one every call is a no-op and
 * json_finish() reports it.
 */
#ifndef PTBPF_JSON_H
#define PTBPF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 16

struct json {
	char *buf;
	size_t len, cap;
	bool grow; /* realloc when full (json_init_dyn) */
	int err; /* 0 or -errno: -ENOSPC, -ENOMEM, -EINVAL */
	int depth;
	bool first[JSON_MAX_DEPTH]; /* no member written yet at this depth */
	bool in_obj[JSON_MAX_DEPTH]; /* an object (not an array) at this depth */
	bool no_hex; /* no "<key>_hex" members (json_no_hex) */
};

/* Write into @buf of @cap bytes; -ENOSPC when it does not fit. */
void json_init(struct json *j, char *buf, size_t cap);
/* Write into a malloc'd buffer that grows; release with json_free(). */
void json_init_dyn(struct json *j);
void json_free(struct json *j);
/*
 * No "<key>_hex" members from here on, U+FFFD alone: for a document whose
 * schema is not ptbpf's and refuses members it does not list (LLDB's
 * trace.json).
 */
void json_no_hex(struct json *j);

/*
 * Each value call takes @key: the member name inside an object, NULL inside
 * an array or at the top level. A missing key in an object, a key outside
 * one, a second top-level value, a close that does not match its open, or
 * nesting deeper than JSON_MAX_DEPTH - 1 sets -EINVAL.
 */
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
/* @val of @len bytes, which may hold NUL and any other byte; not UTF-8,
 * it adds "<@key>_hex" (see above). */
void json_strn(struct json *j, const char *key, const char *val, size_t len);
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* A number with up to 17 significant digits; NaN and infinities are null. */
void json_double(struct json *j, const char *key, double val);

/*
 * Ends the document: NUL-terminates the buffer (not counted in len).
 * Returns 0, or the first error: -ENOSPC if a fixed buffer was too small,
 * -ENOMEM if growing failed, -EINVAL if objects and arrays do not balance,
 * nothing was written, or a call above misused a key (see there).
 */
int json_finish(struct json *j);

#endif /* PTBPF_JSON_H */
