// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON reader: values and their exact numbers, escapes, typed getters
 * with their errors, and bad documents with the offset and reason given.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "jsonread.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct badcase {
	const char *text;
	size_t off;
	const char *why;
};

static void test_bad_documents(void **state)
{
	static const struct badcase cases[] = {
		{ "", 0, "unexpected end of input" },
		{ "   ", 3, "unexpected end of input" },
		{ "{", 1, "expected a member name" },
		{ "{\"a\":1,}", 7, "expected a member name" },
		{ "{\"a\" 1}", 5, "expected ':'" },
		{ "{\"a\":1 \"b\":2}", 7, "expected ',' or a close" },
		{ "[1,2", 4, "unexpected end of input" },
		{ "[1 2]", 3, "expected ',' or a close" },
		{ "\"abc", 0, "unterminated string" },
		{ "\"a\\qb\"", 2, "bad escape in string" },
		{ "\"\\ud800\"", 1, "bad escape in string" },
		{ "\"a\nb\"", 2, "control character in string" },
		{ "01", 0, "bad number" },
		{ "-", 0, "bad number" },
		{ "1.", 0, "bad number" },
		{ "1e", 0, "bad number" },
		{ "tru", 0, "unknown literal" },
		{ "nul", 0, "unknown literal" },
		{ "{} x", 3, "text after the value" },
		{ "@", 0, "unexpected character" },
	};
	struct jread_err e;
	struct jval *v;
	unsigned int i;

	for (i = 0; i < N(cases); i++) {
		e.off = 999;
		e.why = "garbage";
		v = (void *)0x1;
		assert_int_equal(jread_parse(cases[i].text,
					     strlen(cases[i].text), &v, &e),
				 -EBADMSG);
		assert_null(v);
		assert_int_equal(e.off, cases[i].off);
		assert_string_equal(e.why, cases[i].why);
	}
}

static void test_depth_bounded(void **state)
{
	char deep[2 * JREAD_MAX_DEPTH + 8];
	struct jread_err e;
	struct jval *v;
	unsigned int i;

	for (i = 0; i < JREAD_MAX_DEPTH; i++) {
		deep[i] = '[';
		deep[2 * JREAD_MAX_DEPTH - 1 - i] = ']';
	}
	assert_int_equal(jread_parse(deep, 2 * JREAD_MAX_DEPTH, &v, &e), 0);
	jval_free(v);
	memmove(deep + 1, deep, 2 * JREAD_MAX_DEPTH);
	deep[0] = '[';
	deep[2 * JREAD_MAX_DEPTH + 1] = ']';
	assert_int_equal(jread_parse(deep, 2 * JREAD_MAX_DEPTH + 2, &v, &e),
			 -EBADMSG);
	assert_int_equal(e.off, JREAD_MAX_DEPTH);
	assert_string_equal(e.why, "nested too deeply");
}

static void test_values(void **state)
{
	static const char doc[] =
		" {\"s\":\"a\\\"b\\\\c\\/\\n\\u00e9\\ud83d\\ude00\","
		"\"big\":18446744073709551615,\"neg\":-9223372036854775808,"
		"\"f\":1.5e3,\"t\":true,\"F\":false,\"n\":null,"
		"\"arr\":[1,[],{}],\"hex\":\"0xDEADbeef\",\"dup\":1,\"dup\":2} ";
	const struct jval *arr;
	struct jval *v;
	const char *s;
	uint64_t u;
	int64_t i;
	bool b;

	assert_int_equal(jread_parse(doc, strlen(doc), &v, NULL), 0);
	assert_int_equal(jval_get_str(v, "s", &s), 0);
	assert_string_equal(s, "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80");
	assert_int_equal(jval_get_u64(v, "big", &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(jval_get_i64(v, "neg", &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(jval_get_u64(v, "neg", &u), -EINVAL);
	assert_int_equal(jval_get_i64(v, "big", &i), -EINVAL);
	assert_int_equal(jval_get_u64(v, "f", &u), -EINVAL);
	assert_true(jval_get(v, "f")->d == 1500.0);
	assert_int_equal(jval_get_bool(v, "t", &b), 0);
	assert_true(b);
	assert_int_equal(jval_get_bool(v, "F", &b), 0);
	assert_false(b);
	assert_int_equal(jval_get(v, "n")->type, JT_NULL);
	arr = jval_get(v, "arr");
	assert_int_equal(arr->n, 3);
	assert_int_equal(jval_at(arr, 1)->type, JT_ARR);
	assert_int_equal(jval_at(arr, 2)->type, JT_OBJ);
	assert_null(jval_at(arr, 3));
	assert_int_equal(jval_get_hex(v, "hex", &u), 0);
	assert_true(u == 0xdeadbeef);
	assert_int_equal(jval_get_u64(v, "dup", &u), 0);
	assert_int_equal(u, 2); /* the last one wins */
	jval_free(v);
}

struct getcase {
	const char *doc;
	int u64, str, boolean, hex;
};

/* Each getter: missing (-ENOENT) and wrong-typed (-EINVAL). */
static void test_getters(void **state)
{
	static const struct getcase cases[] = {
		{ "{}", -ENOENT, -ENOENT, -ENOENT, -ENOENT },
		{ "{\"k\":\"x\"}", -EINVAL, 0, -EINVAL, -EINVAL },
		{ "{\"k\":7}", 0, -EINVAL, -EINVAL, 0 },
		{ "{\"k\":-7}", -EINVAL, -EINVAL, -EINVAL, -EINVAL },
		{ "{\"k\":true}", -EINVAL, -EINVAL, 0, -EINVAL },
		{ "{\"k\":\"0x\"}", -EINVAL, 0, -EINVAL, -EINVAL },
		{ "{\"k\":\"0x12345678901234567\"}", -EINVAL, 0, -EINVAL,
		  -EINVAL },
		{ "{\"k\":\"0xg\"}", -EINVAL, 0, -EINVAL, -EINVAL },
		{ "[1]", -ENOENT, -ENOENT, -ENOENT, -ENOENT },
	};
	struct jval *v;
	const char *s;
	unsigned int i;
	uint64_t u;
	bool b;

	for (i = 0; i < N(cases); i++) {
		assert_int_equal(jread_parse(cases[i].doc, strlen(cases[i].doc),
					     &v, NULL),
				 0);
		assert_int_equal(jval_get_u64(v, "k", &u), cases[i].u64);
		assert_int_equal(jval_get_str(v, "k", &s), cases[i].str);
		assert_int_equal(jval_get_bool(v, "k", &b), cases[i].boolean);
		assert_int_equal(jval_get_hex(v, "k", &u), cases[i].hex);
		jval_free(v);
	}
}

static void test_invalid_args(void **state)
{
	struct jval *v;

	assert_int_equal(jread_parse(NULL, 1, &v, NULL), -EINVAL);
	assert_int_equal(jread_parse("1", 1, NULL, NULL), -EINVAL);
	assert_null(jval_get(NULL, "k"));
	assert_null(jval_at(NULL, 0));
	assert_string_equal(jval_type_name(JT_OBJ), "object");
	assert_string_equal(jval_type_name((enum jtype)42), "unknown");
	jval_free(NULL);
	/* no NUL needed: the length bounds the read */
	assert_int_equal(jread_parse("12345", 2, &v, NULL), 0);
	assert_int_equal(v->u, 12);
	jval_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_depth_bounded),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_invalid_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
