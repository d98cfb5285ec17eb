/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer. Output goes to a caller's fixed buffer (no
 * allocation: usable on the control path) or to a buffer that grows.
 * Keys and string values are escaped per RFC 8259; bytes that are not valid
 * UTF-8 are written as \u00XX of the byte so every output is valid JSON.
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
};

/* Write into @buf of @cap bytes; -ENOSPC when it does not fit. */
void json_init(struct json *j, char *buf, size_t cap);
/* Write into a malloc'd buffer that grows; release with json_free(). */
void json_init_dyn(struct json *j);
void json_free(struct json *j);

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
/* @val of @len bytes, which may hold NUL and any other byte. */
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
