// SPDX-License-Identifier: GPL-2.0
/* The reader's JSON documents, parsed by json-c: see jsondoc.h. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "jsondoc.h"

/* json-c's error, in the words the reader's messages have always used. */
static const char *why(enum json_tokener_error jerr)
{
	switch (jerr) {
	case json_tokener_error_depth:
		return "nested too deeply";
	case json_tokener_error_parse_eof:
		return "unexpected end of input";
	case json_tokener_error_parse_unexpected:
		return "unexpected character";
	case json_tokener_error_parse_null:
	case json_tokener_error_parse_boolean:
		return "unknown literal";
	case json_tokener_error_parse_number:
		return "bad number";
	case json_tokener_error_parse_array:
	case json_tokener_error_parse_object_value_sep:
		return "expected ',' or a close";
	case json_tokener_error_parse_object_key_name:
		return "expected a member name";
	case json_tokener_error_parse_object_key_sep:
		return "expected ':'";
	case json_tokener_error_parse_string:
		return "bad escape in string";
	default:
		return json_tokener_error_desc(jerr);
	}
}

static int fail(struct jsondoc_err *err, size_t off, const char *reason)
{
	if (err) {
		err->off = off;
		err->why = reason;
	}
	return -EBADMSG;
}

/*
 * One parse of [@buf, @len) with @tok. json-c stops at a NUL byte as at
 * the end of its input; a top-level number at the very end is left
 * pending (json_tokener_continue: more digits may come), and one NUL
 * more tells it the text is over.
 */
static int tokenize(struct json_tokener *tok, const char *buf, size_t len, struct json_object **out,
		    struct jsondoc_err *err)
{
	enum json_tokener_error jerr;
	struct json_object *root;
	size_t end;

	root = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		root = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		end = len;
	} else if (jerr == json_tokener_error_parse_eof) {
		/* only a NUL ends the text early: at the parse end or just before */
		if (end >= len || buf[end])
			end--;
		return fail(err, end, "NUL byte in the text");
	}
	if (jerr != json_tokener_success)
		return fail(err, end, why(jerr));
	/* json-c ate the whitespace after the value and stopped at the rest */
	if (end < len) {
		json_object_put(root);
		return fail(err, end, "text after the value");
	}
	*out = root;
	return 0;
}

int jsondoc_parse(const char *buf, size_t len, struct json_object **out, struct jsondoc_err *err)
{
	struct json_tokener *tok;
	int ret;

	if ((!buf && len) || !out)
		return -EINVAL;
	*out = NULL;
	/* json_tokener_parse_ex() takes an int length */
	if (len > INT_MAX)
		return fail(err, INT_MAX, "too large for the JSON reader");
	tok = json_tokener_new_ex(JSONDOC_MAX_DEPTH);
	if (!tok)
		return -ENOMEM;
	/*
	 * STRICT: no comments, no trailing commas, no leading zeros (what it
	 * still takes is in jsondoc.h). ALLOW_TRAILING_CHARS: json-c stops
	 * after the value instead of failing, so the rest is reported as
	 * such, at its offset.
	 */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	ret = tokenize(tok, buf ? buf : "", len, out, err);
	json_tokener_free(tok);
	return ret;
}

void jsondoc_free(struct json_object *doc)
{
	json_object_put(doc);
}

enum jsondoc_type jsondoc_type(const struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_boolean:
		return JSONDOC_BOOL;
	case json_type_int:
		return JSONDOC_INT;
	case json_type_double:
		return JSONDOC_DOUBLE;
	case json_type_string:
		return JSONDOC_STRING;
	case json_type_array:
		return JSONDOC_ARRAY;
	case json_type_object:
		return JSONDOC_OBJECT;
	default:
		return JSONDOC_NULL;
	}
}

const char *jsondoc_type_name(const struct json_object *v)
{
	static const char *const names[] = {
		[JSONDOC_NULL] = "null",     [JSONDOC_BOOL] = "bool",	  [JSONDOC_INT] = "number",
		[JSONDOC_DOUBLE] = "number", [JSONDOC_STRING] = "string", [JSONDOC_ARRAY] = "array",
		[JSONDOC_OBJECT] = "object",
	};

	return names[jsondoc_type(v)];
}

size_t jsondoc_len(const struct json_object *v)
{
	switch (jsondoc_type(v)) {
	case JSONDOC_ARRAY:
		return json_object_array_length(v);
	case JSONDOC_OBJECT:
		return (size_t)json_object_object_length(v);
	default:
		return 0;
	}
}

/* Member @key of @obj into *@v; -ENOENT when absent or @obj is no object. */
static int member(const struct json_object *obj, const char *key, struct json_object **v)
{
	*v = NULL;
	if (!key || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, key, v))
		return -ENOENT;
	return 0;
}

bool jsondoc_has(const struct json_object *obj, const char *key)
{
	struct json_object *v;

	return !member(obj, key, &v);
}

struct json_object *jsondoc_get(const struct json_object *obj, const char *key)
{
	struct json_object *v;

	member(obj, key, &v);
	return v;
}

struct json_object *jsondoc_at(const struct json_object *arr, size_t i)
{
	/* json_object_array_get_idx() asserts that it is given an array */
	if (!json_object_is_type(arr, json_type_array) || i >= json_object_array_length(arr))
		return NULL;
	return json_object_array_get_idx(arr, i);
}

int jsondoc_members(const struct json_object *obj, struct jsondoc_member **out, size_t *nr)
{
	struct json_object_iterator it, end;
	struct jsondoc_member *m;
	size_t n = 0;

	if (!json_object_is_type(obj, json_type_object) || !out || !nr)
		return -EINVAL;
	m = calloc(jsondoc_len(obj) + 1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* json-c keeps the members in the order of the text */
	it = json_object_iter_begin((struct json_object *)obj);
	end = json_object_iter_end(obj);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		m[n].key = json_object_iter_peek_name(&it);
		m[n].val = json_object_iter_peek_value(&it);
		n++;
	}
	*out = m;
	*nr = n;
	return 0;
}

int jsondoc_u64(const struct json_object *v, uint64_t *out)
{
	/*
	 * One json_type_int, two storages: get_int64 of a uint64 above
	 * INT64_MAX is INT64_MAX, get_uint64 of a negative int64 is 0. A
	 * negative get_int64 is thus a negative number.
	 */
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return -EINVAL;
	*out = json_object_get_uint64(v);
	return 0;
}

int jsondoc_i64(const struct json_object *v, int64_t *out)
{
	if (!json_object_is_type(v, json_type_int) || json_object_get_uint64(v) > INT64_MAX)
		return -EINVAL;
	*out = json_object_get_int64(v);
	return 0;
}

int jsondoc_double(const struct json_object *v, double *out)
{
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return -EINVAL;
	*out = json_object_get_double(v);
	return 0;
}

int jsondoc_bool(const struct json_object *v, bool *out)
{
	if (!json_object_is_type(v, json_type_boolean))
		return -EINVAL;
	*out = json_object_get_boolean(v);
	return 0;
}

int jsondoc_str(const struct json_object *v, const char **out, size_t *len)
{
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	/* a string's own text: json-c only formats the other types here */
	*out = json_object_get_string((struct json_object *)v);
	if (len)
		*len = (size_t)json_object_get_string_len(v);
	return 0;
}

int jsondoc_get_u64(const struct json_object *obj, const char *key, uint64_t *out)
{
	struct json_object *v;
	int ret = member(obj, key, &v);

	return ret ? ret : jsondoc_u64(v, out);
}

int jsondoc_get_i64(const struct json_object *obj, const char *key, int64_t *out)
{
	struct json_object *v;
	int ret = member(obj, key, &v);

	return ret ? ret : jsondoc_i64(v, out);
}

int jsondoc_get_bool(const struct json_object *obj, const char *key, bool *out)
{
	struct json_object *v;
	int ret = member(obj, key, &v);

	return ret ? ret : jsondoc_bool(v, out);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void free_bytes(struct json_object *v, void *bytes)
{
	(void)v;
	free(bytes);
}

/*
 * The bytes the "<key>_hex" member @hex spells, into *@out. Decoded once
 * and kept as @hex's userdata, released with the tree: every caller gets
 * the same pointer, valid as long as the tree is.
 */
static int hex_bytes(struct json_object *hex, const char **out)
{
	const char *s;
	size_t len, i;
	char *b;
	int hi, lo;

	b = json_object_get_userdata(hex);
	if (b) {
		*out = b;
		return 0;
	}
	if (jsondoc_str(hex, &s, &len) || len % 2)
		return -EINVAL;
	b = malloc(len / 2 + 1);
	if (!b)
		return -ENOMEM;
	for (i = 0; i < len / 2; i++) {
		hi = hex_digit(s[2 * i]);
		lo = hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			free(b);
			return -EINVAL;
		}
		b[i] = (char)(hi << 4 | lo);
	}
	b[len / 2] = '\0';
	json_object_set_userdata(hex, b, free_bytes);
	*out = b;
	return 0;
}

int jsondoc_get_str(const struct json_object *obj, const char *key, const char **out)
{
	struct json_object *v, *hex;
	char name[128];
	int ret = member(obj, key, &v);

	if (ret)
		return ret;
	ret = jsondoc_str(v, out, NULL);
	if (ret)
		return ret;
	/* the writer's twin of a value that is not UTF-8 (json.h): its bytes */
	if (snprintf(name, sizeof(name), "%s_hex", key) >= (int)sizeof(name))
		return 0;
	if (member(obj, name, &hex))
		return 0;
	return hex_bytes(hex, out);
}

int jsondoc_get_hex(const struct json_object *obj, const char *key, uint64_t *out)
{
	struct json_object *v;
	const char *s, *p;
	uint64_t x = 0;
	size_t len;
	int ret, d;

	ret = member(obj, key, &v);
	if (ret)
		return ret;
	if (json_object_is_type(v, json_type_int))
		return jsondoc_u64(v, out);
	if (jsondoc_str(v, &s, &len))
		return -EINVAL;
	/* at most 16 digits: a u64 (an escaped NUL is no digit either) */
	if (len < 3 || len > 18 || strncmp(s, "0x", 2))
		return -EINVAL;
	for (p = s + 2; p < s + len; p++) {
		d = hex_digit(*p);
		if (d < 0)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
	}
	*out = x;
	return 0;
}
