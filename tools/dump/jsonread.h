/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader (RFC 8259) for the files ptbpf writes and ptbpf-dump
 * reads back: ptbpf.json, trace.json and events.jsonl lines. The input is
 * untrusted (a file may be truncated or edited by hand), so the parser
 * bounds its nesting, never reads past the length it is given, and says
 * at which byte offset and why it gave up.
 *
 * A document becomes a tree of struct jval nodes, owned by its root and
 * released with jval_free(). Integers that fit keep their exact value (a
 * u64 such as a TSC loses precision as a double).
 */
#ifndef PTBPF_JSONREAD_H
#define PTBPF_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deeper documents are refused: the recursion must stay bounded. */
#define JREAD_MAX_DEPTH 64

enum jtype {
	JT_NULL,
	JT_BOOL,
	JT_NUM,
	JT_STR,
	JT_ARR,
	JT_OBJ,
};

struct jval {
	enum jtype type;
	bool b;
	/* JT_NUM: is_int when the text was an integer that fits an int64/u64 */
	bool is_int, is_neg;
	uint64_t u; /* the magnitude when is_int */
	double d;
	char *s; /* JT_STR: NUL-terminated (an embedded \u0000 ends it early) */
	size_t slen; /* JT_STR: bytes, embedded NULs included */
	size_t n; /* JT_ARR, JT_OBJ: number of members */
	char **keys; /* JT_OBJ: member names */
	struct jval **items; /* JT_ARR, JT_OBJ: members */
};

/* Where and why parsing failed. */
struct jread_err {
	size_t off; /* byte offset of the problem */
	const char *why; /* a static string */
};

/*
 * Parses the JSON document @buf of @len bytes (no NUL needed) into *@out.
 * Whitespace may surround the one value; anything else after it is an
 * error.
 *
 * Returns 0 and sets *@out, to be released with jval_free().
 * Returns -EINVAL if @buf (with @len != 0) or @out is NULL.
 * Returns -EBADMSG if the text is not JSON: @err (may be NULL) then says
 * where and why, and *@out is NULL.
 * Returns -ENOMEM if memory runs out.
 */
int jread_parse(const char *buf, size_t len, struct jval **out,
		struct jread_err *err);

/* Releases @v and everything under it; NULL is fine. */
void jval_free(struct jval *v);

/* The member @key of object @obj, or NULL (also when @obj is no object). */
const struct jval *jval_get(const struct jval *obj, const char *key);

/* The @i-th item of array @arr, or NULL. */
const struct jval *jval_at(const struct jval *arr, size_t i);

/* "null", "bool", "number", "string", "array", "object" for messages. */
const char *jval_type_name(enum jtype t);

/*
 * The typed getters read member @key of object @obj into *@out.
 *
 * Each returns 0.
 * Returns -ENOENT if @obj has no member @key (or @obj is not an object).
 * Returns -EINVAL if the member has another type or its value does not fit
 * (a negative, fractional or too large number for a u64; for
 * jval_get_hex, a string that is not "0x" and hex digits).
 */
int jval_get_u64(const struct jval *obj, const char *key, uint64_t *out);
int jval_get_i64(const struct jval *obj, const char *key, int64_t *out);
int jval_get_bool(const struct jval *obj, const char *key, bool *out);
/* *@out points into the tree: valid until jval_free() of the root. */
int jval_get_str(const struct jval *obj, const char *key, const char **out);
/* A u64 written as a "0x..." string (ptbpf.json's config, trace.json's
 * loadAddress) or as a plain number. */
int jval_get_hex(const struct jval *obj, const char *key, uint64_t *out);

#endif /* PTBPF_JSONREAD_H */
