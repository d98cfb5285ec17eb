/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON files ptbpf writes and ptbpf-dump reads back (ptbpf.json,
 * trace.json, events.jsonl lines), parsed by json-c under the rules an
 * untrusted file needs: RFC 8259 syntax (JSON_TOKENER_STRICT), nesting
 * bounded, the whole text one value, and the byte offset and reason of the
 * first problem, in this module's words (json-c's own strings may change
 * between versions; the reader's messages should not).
 *
 * A document is a json-c tree, owned by its root and released with
 * jsondoc_free(). json-c stays behind this header (struct json_object is
 * opaque here): its json_bool would clash with the JSON writer's, its null
 * is a NULL pointer, json_object_array_get_idx() asserts on a non-array,
 * and its getters convert between types. Here null is JSONDOC_NULL,
 * jsondoc_has() tells a null member from a missing one, every lookup takes
 * any value, and a getter refuses another type with -EINVAL (json-c's
 * json_object_get_int64() of "12" is 12, of 1.9 is 1), so a file edited
 * by hand is reported, not guessed at.
 *
 * Integers: json-c 0.16 keeps every integer in [INT64_MIN, UINT64_MAX]
 * exact, those above INT64_MAX (ptbpf writes ring heads such as
 * 18446744073709476976) as json_type_int with uint64 storage, read back by
 * json_object_get_uint64(). Beyond that range it saturates (strtoull's
 * clamp): a hand-edited 99999999999999999999 reads as UINT64_MAX.
 *
 * What json-c 0.16 still takes in strict mode, and the reader with it:
 * "1." and NaN/Infinity as numbers, a lone \ud800 escape, control
 * characters inside strings, single-quoted member names.
 */
#ifndef PTBPF_DUMP_JSONDOC_H
#define PTBPF_DUMP_JSONDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object; /* json-c's; see above */

/*
 * Deeper documents are refused, as json-c counts depth: the levels of the
 * tree, the top-level value the first, so a number may sit inside 63
 * containers and an empty array inside 63 others.
 */
#define JSONDOC_MAX_DEPTH 64

enum jsondoc_type {
	JSONDOC_NULL,
	JSONDOC_BOOL,
	JSONDOC_INT,
	JSONDOC_DOUBLE,
	JSONDOC_STRING,
	JSONDOC_ARRAY,
	JSONDOC_OBJECT,
};

/* Where and why parsing failed. */
struct jsondoc_err {
	size_t off; /* byte offset of the problem */
	const char *why; /* a static string */
};

/* One member of an object, in the order of the text. */
struct jsondoc_member {
	const char *key; /* valid until the root is released */
	struct json_object *val;
};

/*
 * Parses the JSON document @buf of @len bytes (no NUL needed) into *@out.
 * Whitespace may surround the one value; anything else after it, a NUL
 * byte included, is an error.
 *
 * Returns 0 and sets *@out, to be released with jsondoc_free() (NULL when
 * the document is JSON null).
 * Returns -EINVAL if @buf (with @len != 0) or @out is NULL.
 * Returns -EBADMSG if the text is not JSON, or is longer than json-c takes
 * (INT_MAX bytes): @err (may be NULL) then says where and why, and *@out
 * is NULL.
 * Returns -ENOMEM if the parser cannot be allocated.
 */
int jsondoc_parse(const char *buf, size_t len, struct json_object **out, struct jsondoc_err *err);

/* Releases the document @doc (a root from jsondoc_parse()); NULL is fine. */
void jsondoc_free(struct json_object *doc);

/* The type of @v (NULL: JSONDOC_NULL). */
enum jsondoc_type jsondoc_type(const struct json_object *v);

/* "null", "bool", "number", "string", "array", "object" for messages. */
const char *jsondoc_type_name(const struct json_object *v);

/* The items of array @v or the members of object @v; 0 for the others. */
size_t jsondoc_len(const struct json_object *v);

/* True when object @obj has a member @key, even a null one. */
bool jsondoc_has(const struct json_object *obj, const char *key);

/* The member @key of object @obj, or NULL (missing, null, or @obj is no
 * object). When a key repeats, the last one counts. */
struct json_object *jsondoc_get(const struct json_object *obj, const char *key);

/* The @i-th item of array @arr, or NULL (also when @arr is no array). */
struct json_object *jsondoc_at(const struct json_object *arr, size_t i);

/*
 * The members of object @obj into a malloc'd array *@out of *@nr (free()
 * it; the keys and values stay the tree's).
 *
 * Returns 0.
 * Returns -EINVAL if @obj is not an object.
 * Returns -ENOMEM if memory runs out.
 */
int jsondoc_members(const struct json_object *obj, struct jsondoc_member **out, size_t *nr);

/*
 * The value @v as a u64 / an i64: 0, or -EINVAL if it is no integer or
 * does not fit (a negative number for a u64, one above INT64_MAX for an
 * i64).
 */
int jsondoc_u64(const struct json_object *v, uint64_t *out);
int jsondoc_i64(const struct json_object *v, int64_t *out);

/* The value @v: 0, or -EINVAL if it is of another type. A number may be an
 * integer or not for jsondoc_double(); a string's @len (may be NULL)
 * counts an escaped NUL inside it, and *@out points into the tree. */
int jsondoc_double(const struct json_object *v, double *out);
int jsondoc_bool(const struct json_object *v, bool *out);
int jsondoc_str(const struct json_object *v, const char **out, size_t *len);

/*
 * The typed getters read member @key of object @obj into *@out.
 *
 * Each returns 0.
 * Returns -ENOENT if @obj has no member @key (or @obj is not an object).
 * Returns -EINVAL if the member has another type (null included) or its
 * value does not fit (see jsondoc_u64(); for jsondoc_get_hex, a string
 * that is not "0x" and 1 to 16 hex digits).
 */
int jsondoc_get_u64(const struct json_object *obj, const char *key, uint64_t *out);
int jsondoc_get_i64(const struct json_object *obj, const char *key, int64_t *out);
int jsondoc_get_bool(const struct json_object *obj, const char *key, bool *out);
/*
 * *@out points into the tree: valid until the root is released. When @obj
 * also has "<@key>_hex", the JSON writer's exact bytes of a value that is
 * not UTF-8 (tools/format/json.h), *@out is those bytes decoded instead of
 * the string's U+FFFD stand-ins. Besides the above it returns -EINVAL if
 * that member is not a string of pairs of hex digits, -ENOMEM if memory
 * for the bytes runs out.
 */
int jsondoc_get_str(const struct json_object *obj, const char *key, const char **out);
/* A u64 written as a "0x..." string (ptbpf.json's config, trace.json's
 * loadAddress) or as a plain number. */
int jsondoc_get_hex(const struct json_object *obj, const char *key, uint64_t *out);

#endif /* PTBPF_DUMP_JSONDOC_H */
