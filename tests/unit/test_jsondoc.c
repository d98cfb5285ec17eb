// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's use of json-c: 64-bit integers exact on both sides of
 * INT64_MAX, nesting bounded, the offset and reason of each problem, the
 * whole text one value, and getters that refuse a member of another type
 * where json-c's own would convert it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"
#include "jsondoc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct json_object *parse_ok(const char *text)
{
	struct json_object *v = (void *)0x1;

	assert_int_equal(jsondoc_parse(text, strlen(text), &v, NULL), 0);
	return v;
}

struct u64case {
	const char *doc;
	int u64_ret, i64_ret;
	uint64_t u64;
	int64_t i64;
};

/*
 * ptbpf writes ring heads above INT64_MAX ("head":18446744073709476976):
 * json-c keeps them as json_type_int with uint64 storage, and they come
 * back exact, as do the ends of both ranges.
 */
static void test_u64_exact(void **state)
{
	static const struct u64case cases[] = {
		{ "{\"k\":18446744073709476976}", 0, -EINVAL, 18446744073709476976ULL, 0 },
		{ "{\"k\":18446744073709551615}", 0, -EINVAL, UINT64_MAX, 0 },
		{ "{\"k\":9223372036854775808}", 0, -EINVAL, (uint64_t)INT64_MAX + 1, 0 },
		{ "{\"k\":9223372036854775807}", 0, 0, INT64_MAX, INT64_MAX },
		{ "{\"k\":9007199254740993}", 0, 0, 9007199254740993ULL,
		  9007199254740993LL }, /* 2^53 + 1: no double holds it */
		{ "{\"k\":0}", 0, 0, 0, 0 },
		{ "{\"k\":-0}", 0, 0, 0, 0 },
		{ "{\"k\":-1}", -EINVAL, 0, 0, -1 },
		{ "{\"k\":-9223372036854775808}", -EINVAL, 0, 0, INT64_MIN },
		/* json-c 0.16 saturates beyond the range (jsondoc.h) */
		{ "{\"k\":18446744073709551616}", 0, -EINVAL, UINT64_MAX, 0 },
		{ "{\"k\":-9223372036854775809}", -EINVAL, 0, 0, INT64_MIN },
		{ "{\"k\":1.0}", -EINVAL, -EINVAL, 0, 0 },
		{ "{\"k\":1e3}", -EINVAL, -EINVAL, 0, 0 },
	};
	struct json_object *v;
	unsigned int i;
	uint64_t u;
	int64_t s;

	for (i = 0; i < N(cases); i++) {
		v = parse_ok(cases[i].doc);
		u = 0xdeadbeef;
		s = 0xdeadbeef;
		assert_int_equal(jsondoc_get_u64(v, "k", &u), cases[i].u64_ret);
		assert_int_equal(jsondoc_get_i64(v, "k", &s), cases[i].i64_ret);
		if (!cases[i].u64_ret)
			assert_true(u == cases[i].u64);
		else
			assert_true(u == 0xdeadbeef);
		if (!cases[i].i64_ret)
			assert_true(s == cases[i].i64);
		jsondoc_free(v);
	}
	/* a top-level number at the very end needs no NUL after it */
	assert_int_equal(jsondoc_parse("18446744073709476976xyz", 20, &v, NULL), 0);
	assert_int_equal(jsondoc_u64(v, &u), 0);
	assert_true(u == 18446744073709476976ULL);
	jsondoc_free(v);
}

struct badcase {
	const char *text;
	size_t len; /* 0: strlen */
	size_t off;
	const char *why;
};

/* Each problem at the byte where json-c found it, in the reader's words. */
static void test_bad_documents(void **state)
{
	static const struct badcase cases[] = {
		{ "", 0, 0, "unexpected end of input" },
		{ "   ", 0, 3, "unexpected end of input" },
		{ "{\"snapshot\":1,", 0, 14, "unexpected end of input" },
		{ "[1,2", 0, 4, "unexpected end of input" },
		{ "\"abc", 0, 4, "unexpected end of input" },
		{ "{\"a\":1,}", 0, 7, "unexpected character" },
		{ "[1,]", 0, 3, "unexpected character" },
		{ "\x7f"
		  "ELF",
		  0, 0, "unexpected character" },
		{ "{\"a\" 1}", 0, 5, "expected ':'" },
		{ "{\"a\":1 \"b\":2}", 0, 7, "expected ',' or a close" },
		{ "[1 2]", 0, 3, "expected ',' or a close" },
		{ "\"a\\qb\"", 0, 3, "bad escape in string" },
		{ "[01]", 0, 3, "bad number" },
		{ "[1x]", 0, 2, "bad number" },
		{ "not json", 0, 1, "unknown literal" },
		{ "[tru]", 0, 4, "unknown literal" },
		{ "{} x", 0, 3, "text after the value" },
		{ "{}\n{}", 0, 3, "text after the value" },
		{ "[1]/*c*/", 0, 3, "text after the value" },
		/* a NUL, as in a file a crash left zero-filled */
		{ "{}\0\0", 4, 2, "text after the value" },
		{ "{\"a\":\"x\0\"}", 10, 7, "NUL byte in the text" },
		{ "\0\0\0", 3, 0, "NUL byte in the text" },
	};
	struct jsondoc_err e;
	struct json_object *v;
	unsigned int i;
	size_t len;

	for (i = 0; i < N(cases); i++) {
		e.off = 999;
		e.why = "garbage";
		v = (void *)0x1;
		len = cases[i].len ? cases[i].len : strlen(cases[i].text);
		assert_int_equal(jsondoc_parse(cases[i].text, len, &v, &e), -EBADMSG);
		assert_null(v);
		assert_int_equal(e.off, cases[i].off);
		assert_string_equal(e.why, cases[i].why);
	}
}

/* Makes @levels nested arrays (@kind 0) or objects around a 1 (@kind 1). */
static size_t nest(char *buf, unsigned int kind, unsigned int levels)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < levels; i++)
		n += (size_t)sprintf(buf + n, kind ? "{\"\":" : "[");
	if (kind)
		buf[n++] = '1';
	for (i = 0; i < levels; i++)
		buf[n++] = kind ? '}' : ']';
	return n;
}

/*
 * JSONDOC_MAX_DEPTH levels parse, counted as json-c does (the values of
 * the tree, the top-level one included); one more is refused where that
 * value begins: the bracket of one array too many, the 1 inside one
 * object too many.
 */
static void test_depth_bounded(void **state)
{
	char deep[5 * (JSONDOC_MAX_DEPTH + 1) + 1];
	struct jsondoc_err e;
	struct json_object *v;
	size_t n;

	n = nest(deep, 0, JSONDOC_MAX_DEPTH);
	assert_int_equal(jsondoc_parse(deep, n, &v, &e), 0);
	jsondoc_free(v);
	n = nest(deep, 1, JSONDOC_MAX_DEPTH - 1);
	assert_int_equal(jsondoc_parse(deep, n, &v, &e), 0);
	jsondoc_free(v);

	e.off = 999;
	n = nest(deep, 0, JSONDOC_MAX_DEPTH + 1);
	assert_int_equal(jsondoc_parse(deep, n, &v, &e), -EBADMSG);
	assert_null(v);
	assert_int_equal(e.off, JSONDOC_MAX_DEPTH);
	assert_string_equal(e.why, "nested too deeply");
	e.off = 999;
	n = nest(deep, 1, JSONDOC_MAX_DEPTH);
	assert_int_equal(jsondoc_parse(deep, n, &v, &e), -EBADMSG);
	assert_int_equal(e.off, 4 * JSONDOC_MAX_DEPTH);
	assert_string_equal(e.why, "nested too deeply");
}

/* Strings (escapes, an escaped NUL), bools, null, arrays, a duplicate. */
static void test_values(void **state)
{
	static const char doc[] = " {\"s\":\"a\\\"b\\\\c\\/\\n\\u00e9\\ud83d\\ude00\","
				  "\"z\":\"a\\u0000b\",\"t\":true,\"F\":false,\"n\":null,"
				  "\"arr\":[1,[],{}],\"hex\":\"0xDEADbeef\",\"dup\":1,\"dup\":2} ";
	struct json_object *v, *arr;
	const char *s;
	size_t len;
	uint64_t u;
	bool b;

	v = parse_ok(doc);
	assert_int_equal(jsondoc_get_str(v, "s", &s), 0);
	assert_string_equal(s, "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80");
	assert_int_equal(jsondoc_str(jsondoc_get(v, "z"), &s, &len), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(s, "a\0b", 3);
	assert_int_equal(jsondoc_get_bool(v, "t", &b), 0);
	assert_true(b);
	assert_int_equal(jsondoc_get_bool(v, "F", &b), 0);
	assert_false(b);
	/* null is there, and is NULL */
	assert_true(jsondoc_has(v, "n"));
	assert_null(jsondoc_get(v, "n"));
	assert_false(jsondoc_has(v, "none"));
	assert_string_equal(jsondoc_type_name(jsondoc_get(v, "n")), "null");
	arr = jsondoc_get(v, "arr");
	assert_int_equal(jsondoc_type(arr), JSONDOC_ARRAY);
	assert_int_equal(jsondoc_len(arr), 3);
	assert_string_equal(jsondoc_type_name(jsondoc_at(arr, 0)), "number");
	assert_string_equal(jsondoc_type_name(jsondoc_at(arr, 1)), "array");
	assert_string_equal(jsondoc_type_name(jsondoc_at(arr, 2)), "object");
	assert_null(jsondoc_at(arr, 3));
	/* not an array: no assert() inside json-c */
	assert_null(jsondoc_at(v, 0));
	assert_int_equal(jsondoc_get_hex(v, "hex", &u), 0);
	assert_true(u == 0xdeadbeef);
	assert_int_equal(jsondoc_get_u64(v, "dup", &u), 0);
	assert_int_equal(u, 2); /* the last one wins */
	jsondoc_free(v);
}

/* The members in the order of the text, each value's type and number. */
static void test_members(void **state)
{
	static const char *const keys[] = { "event", "ts", "n", "f", "neg", "dup" };
	static const enum jsondoc_type types[] = {
		JSONDOC_STRING, JSONDOC_INT, JSONDOC_NULL,
		JSONDOC_DOUBLE, JSONDOC_INT, JSONDOC_BOOL,
	};
	struct json_object *v;
	struct jsondoc_member *m;
	unsigned int i;
	size_t n = 999;
	double d;

	v = parse_ok("{\"event\":\"stop\",\"ts\":6000,\"n\":null,\"f\":1.5,"
		     "\"neg\":-3,\"dup\":1,\"dup\":true}");
	assert_int_equal(jsondoc_len(v), N(keys));
	assert_int_equal(jsondoc_members(v, &m, &n), 0);
	assert_int_equal(n, N(keys));
	for (i = 0; i < N(keys); i++) {
		assert_string_equal(m[i].key, keys[i]);
		assert_int_equal(jsondoc_type(m[i].val), types[i]);
	}
	free(m);
	assert_int_equal(jsondoc_double(jsondoc_get(v, "ts"), &d), 0);
	assert_true(d == 6000.0);
	assert_int_equal(jsondoc_double(jsondoc_get(v, "f"), &d), 0);
	assert_true(d == 1.5);
	assert_int_equal(jsondoc_double(jsondoc_get(v, "event"), &d), -EINVAL);
	assert_int_equal(jsondoc_double(jsondoc_get(v, "n"), &d), -EINVAL);
	assert_int_equal(jsondoc_members(jsondoc_get(v, "ts"), &m, &n), -EINVAL);
	jsondoc_free(v);
}

struct getcase {
	const char *doc;
	int u64, str, boolean, hex;
};

/*
 * Each getter: missing (-ENOENT), null or another type (-EINVAL), where
 * json-c's own getters would turn "12" or 1.9 into numbers and 0 into
 * false.
 */
static void test_getters(void **state)
{
	static const struct getcase cases[] = {
		{ "{}", -ENOENT, -ENOENT, -ENOENT, -ENOENT },
		{ "{\"k\":null}", -EINVAL, -EINVAL, -EINVAL, -EINVAL },
		{ "{\"k\":\"12\"}", -EINVAL, 0, -EINVAL, -EINVAL },
		{ "{\"k\":1.9}", -EINVAL, -EINVAL, -EINVAL, -EINVAL },
		{ "{\"k\":7}", 0, -EINVAL, -EINVAL, 0 },
		{ "{\"k\":-7}", -EINVAL, -EINVAL, -EINVAL, -EINVAL },
		{ "{\"k\":0}", 0, -EINVAL, -EINVAL, 0 },
		{ "{\"k\":true}", -EINVAL, -EINVAL, 0, -EINVAL },
		{ "{\"k\":[]}", -EINVAL, -EINVAL, -EINVAL, -EINVAL },
		{ "{\"k\":\"0x\"}", -EINVAL, 0, -EINVAL, -EINVAL },
		{ "{\"k\":\"0x12345678901234567\"}", -EINVAL, 0, -EINVAL, -EINVAL },
		{ "{\"k\":\"0xg\"}", -EINVAL, 0, -EINVAL, -EINVAL },
		{ "{\"k\":\"0x1\\u0000\"}", -EINVAL, 0, -EINVAL, -EINVAL },
		{ "[1]", -ENOENT, -ENOENT, -ENOENT, -ENOENT },
	};
	struct json_object *v;
	const char *s;
	unsigned int i;
	uint64_t u;
	bool b;

	for (i = 0; i < N(cases); i++) {
		v = parse_ok(cases[i].doc);
		assert_int_equal(jsondoc_get_u64(v, "k", &u), cases[i].u64);
		assert_int_equal(jsondoc_get_str(v, "k", &s), cases[i].str);
		assert_int_equal(jsondoc_get_bool(v, "k", &b), cases[i].boolean);
		assert_int_equal(jsondoc_get_hex(v, "k", &u), cases[i].hex);
		jsondoc_free(v);
	}
}

static void test_invalid_args(void **state)
{
	struct json_object *v = (void *)0x1;
	struct jsondoc_member *m;
	uint64_t u;
	size_t n;

	assert_int_equal(jsondoc_parse(NULL, 1, &v, NULL), -EINVAL);
	assert_int_equal(jsondoc_parse("1", 1, NULL, NULL), -EINVAL);
	/* a document that is null parses, to NULL */
	assert_int_equal(jsondoc_parse("null", 4, &v, NULL), 0);
	assert_null(v);
	assert_int_equal(jsondoc_parse(NULL, 0, &v, NULL), -EBADMSG);
	assert_null(jsondoc_get(NULL, "k"));
	assert_false(jsondoc_has(NULL, "k"));
	assert_null(jsondoc_at(NULL, 0));
	assert_int_equal(jsondoc_len(NULL), 0);
	assert_int_equal(jsondoc_type(NULL), JSONDOC_NULL);
	assert_int_equal(jsondoc_members(NULL, &m, &n), -EINVAL);
	jsondoc_free(NULL);
	assert_int_equal(jsondoc_u64(NULL, &(uint64_t){ 0 }), -EINVAL);
	assert_int_equal(jsondoc_i64(NULL, &(int64_t){ 0 }), -EINVAL);
	/* no NUL needed: the length bounds the read */
	assert_int_equal(jsondoc_parse("12345", 2, &v, NULL), 0);
	assert_int_equal(jsondoc_i64(v, &(int64_t){ 0 }), 0);
	assert_int_equal(jsondoc_u64(v, &u), 0);
	assert_int_equal(u, 12);
	jsondoc_free(v);
}

/* Writes {"p": @len bytes of @val} with the JSON writer, parses it back. */
static struct json_object *write_read(const char *val, size_t len)
{
	struct json_object *v;
	struct json j;

	json_init_dyn(&j);
	json_obj_begin(&j, NULL);
	json_strn(&j, "p", val, len);
	json_obj_end(&j);
	assert_int_equal(json_finish(&j), 0);
	v = parse_ok(j.buf);
	json_free(&j);
	return v;
}

/*
 * A value that is not UTF-8 reads back as the very bytes written (from
 * "p_hex", not U+00FF's c3 bf nor U+FFFD's ef bf bd), the same pointer on
 * each call; UTF-8 reads back as is; a "_hex" that is no hex is refused.
 */
static void test_hex_twin(void **state)
{
	static const char *const vals[] = {
		"/tmp/a\xff",
		"\xc0\xaf\xe2\x82 x\xed\xa0\x80\xf4\x90\x80\x80",
		"/tmp/\xc3\xbf\xe2\x82\xac\xf0\x9f\x98\x80",
	};
	static const char *const bad[] = {
		"{\"p\":\"\\ufffd\",\"p_hex\":\"f\"}",
		"{\"p\":\"\\ufffd\",\"p_hex\":\"zz\"}",
		"{\"p\":\"\\ufffd\",\"p_hex\":255}",
	};
	struct json_object *v;
	const char *s, *again;
	size_t i;

	for (i = 0; i < N(vals); i++) {
		v = write_read(vals[i], strlen(vals[i]));
		assert_int_equal(jsondoc_get_str(v, "p", &s), 0);
		assert_string_equal(s, vals[i]);
		assert_int_equal(jsondoc_get_str(v, "p", &again), 0);
		assert_ptr_equal(again, s);
		/* only the values that are not UTF-8 have the twin */
		assert_int_equal(jsondoc_has(v, "p_hex"), i < 2);
		jsondoc_free(v);
	}
	for (i = 0; i < N(bad); i++) {
		v = parse_ok(bad[i]);
		assert_int_equal(jsondoc_get_str(v, "p", &s), -EINVAL);
		jsondoc_free(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_exact),     cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_depth_bounded), cmocka_unit_test(test_values),
		cmocka_unit_test(test_members),	      cmocka_unit_test(test_getters),
		cmocka_unit_test(test_invalid_args),  cmocka_unit_test(test_hex_twin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
