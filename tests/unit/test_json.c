// SPDX-License-Identifier: GPL-2.0
/*
 * JSON writer tests: escaping (quotes, control characters, bytes that are
 * not UTF-8, odd paths), nesting, misuse, a fixed buffer that is too small.
 * Every document that json_finish() accepts is also fed to Python's json
 * module, the reader a user would point at it.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "json.h"

/* Python reads @text as JSON and prints it back ASCII-escaped. */
static void python_reads(const char *text, const char *expect)
{
	char cmd[256], path[64], out[1024];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ptbpf-json-%d.out", (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; "
		 "print(json.dumps(json.load(sys.stdin)), end=\"\")' >%s",
		 path);
	f = popen(cmd, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(pclose(f), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	remove(path);
	if (expect)
		assert_string_equal(out, expect);
}

struct esc_case {
	const char *in;
	size_t len;
	const char *out; /* what json.c writes */
	const char *py; /* what Python decodes, re-encoded ASCII */
};

#define S(x) x, sizeof(x) - 1

static const struct esc_case esc_cases[] = {
	{ S("plain"), "\"plain\"", "\"plain\"" },
	{ S("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"", "\"a\\\"b\\\\c/d\"" },
	{ S("\n\t\r\b\f"), "\"\\n\\t\\r\\b\\f\"", "\"\\n\\t\\r\\b\\f\"" },
	{ S("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"", "\"\\u0001\\u001f\\u007f\"" },
	{ S("nul\0byte"), "\"nul\\u0000byte\"", "\"nul\\u0000byte\"" },
	/* not UTF-8, each byte U+FFFD: a lone byte, an overlong '/', a
	 * surrogate, a cut-off sequence, a code point past U+10FFFF */
	{ S("\xff"), "\"\\ufffd\"", "\"\\ufffd\"" },
	{ S("\xc0\xaf"), "\"\\ufffd\\ufffd\"", "\"\\ufffd\\ufffd\"" },
	{ S("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"", "\"\\ufffd\\ufffd\\ufffd\"" },
	{ S("\xe2\x82"), "\"\\ufffd\\ufffd\"", "\"\\ufffd\\ufffd\"" },
	{ S("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
	  "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	/* valid UTF-8 is kept as is */
	{ S("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
	  "\"\\u00e9\\u20ac\\ud83d\\ude00\"" },
	/* a path from /proc/PID/maps: spaces, escaped newline, deleted */
	{ S("/opt/my app/a\\012b (deleted)"), "\"/opt/my app/a\\\\012b (deleted)\"",
	  "\"/opt/my app/a\\\\012b (deleted)\"" },
	{ S(""), "\"\"", "\"\"" },
};

static void test_escaping(void **state)
{
	unsigned int i;
	struct json j;

	for (i = 0; i < sizeof(esc_cases) / sizeof(esc_cases[0]); i++) {
		const struct esc_case *c = &esc_cases[i];

		json_init_dyn(&j);
		json_strn(&j, NULL, c->in, c->len);
		assert_int_equal(json_finish(&j), 0);
		assert_string_equal(j.buf, c->out);
		python_reads(j.buf, c->py);
		json_free(&j);
	}
}

/* Keys are escaped the same way as values. */
static void test_odd_keys(void **state)
{
	char buf[128];
	struct json j;

	memset(buf, 'x', sizeof(buf));
	json_init(&j, buf, sizeof(buf));
	json_obj_begin(&j, NULL);
	json_str(&j, "k\"ey\n", "v");
	json_str(&j, "\xff", NULL);
	json_obj_end(&j);
	assert_int_equal(json_finish(&j), 0);
	assert_string_equal(buf, "{\"k\\\"ey\\n\":\"v\",\"\\ufffd\":null}");
	python_reads(buf, "{\"k\\\"ey\\n\": \"v\", \"\\ufffd\": null}");
}

struct hex_case {
	const char *in;
	size_t len;
	const char *out; /* the object json.c writes around member "p" */
};

/*
 * A member that is not UTF-8 keeps valid UTF-8 (U+FFFD for each bad byte)
 * and is followed by "<key>_hex", the exact bytes; a member that is UTF-8,
 * multi-byte characters included, is written as before and has no _hex.
 */
static const struct hex_case hex_cases[] = {
	/* a path byte 0xff: once \u00ff, which reads back as c3 bf */
	{ S("/tmp/a\xff"), "{\"p\":\"/tmp/a\\ufffd\",\"p_hex\":\"2f746d702f61ff\",\"n\":1}" },
	/* overlong '/' (c0 af) and a sequence cut short (e2 82) */
	{ S("\xc0\xaf"), "{\"p\":\"\\ufffd\\ufffd\",\"p_hex\":\"c0af\",\"n\":1}" },
	{ S("x\xe2\x82"), "{\"p\":\"x\\ufffd\\ufffd\",\"p_hex\":\"78e282\",\"n\":1}" },
	/* escapes still apply next to a bad byte; NUL is kept in the hex */
	{ S("\"\n\0\xfe"), "{\"p\":\"\\\"\\n\\u0000\\ufffd\",\"p_hex\":\"220a00fe\",\"n\":1}" },
	/* UTF-8: as is, no _hex */
	{ S("/tmp/\xc3\xbf\xe2\x82\xac\xf0\x9f\x98\x80"),
	  "{\"p\":\"/tmp/\xc3\xbf\xe2\x82\xac\xf0\x9f\x98\x80\",\"n\":1}" },
	{ S("a\tb\x01"), "{\"p\":\"a\\tb\\u0001\",\"n\":1}" },
	{ S(""), "{\"p\":\"\",\"n\":1}" },
};

static void test_hex_member(void **state)
{
	unsigned int i;
	struct json j;

	for (i = 0; i < sizeof(hex_cases) / sizeof(hex_cases[0]); i++) {
		const struct hex_case *c = &hex_cases[i];

		json_init_dyn(&j);
		json_obj_begin(&j, NULL);
		json_strn(&j, "p", c->in, c->len);
		json_u64(&j, "n", 1);
		json_obj_end(&j);
		assert_int_equal(json_finish(&j), 0);
		assert_string_equal(j.buf, c->out);
		/* and a JSON reader takes it */
		python_reads(j.buf, NULL);
		json_free(&j);
	}
}

/* json_str() goes the same way; a key that needs escaping keeps it in
 * its _hex twin; a fixed buffer too small for the _hex is -ENOSPC. */
static void test_hex_member_str(void **state)
{
	char buf[64];
	struct json j;

	json_init(&j, buf, sizeof(buf));
	json_obj_begin(&j, NULL);
	json_str(&j, "a\"b", "\xff\xfe");
	json_obj_end(&j);
	assert_int_equal(json_finish(&j), 0);
	assert_string_equal(buf, "{\"a\\\"b\":\"\\ufffd\\ufffd\",\"a\\\"b_hex\":\"fffe\"}");
	python_reads(buf, "{\"a\\\"b\": \"\\ufffd\\ufffd\", \"a\\\"b_hex\": \"fffe\"}");

	/* 19 bytes hold {"p":"\ufffd"} but not the _hex after it */
	json_init(&j, buf, 19);
	json_obj_begin(&j, NULL);
	json_str(&j, "p", "\xff");
	json_obj_end(&j);
	assert_int_equal(json_finish(&j), -ENOSPC);
}

static void test_nesting_and_numbers(void **state)
{
	struct json j;

	json_init_dyn(&j);
	json_obj_begin(&j, NULL);
	json_arr_begin(&j, "a");
	json_u64(&j, NULL, UINT64_MAX);
	json_i64(&j, NULL, INT64_MIN);
	json_obj_begin(&j, NULL);
	json_null(&j, "n");
	json_bool(&j, "t", true);
	json_bool(&j, "f", false);
	json_obj_end(&j);
	json_arr_begin(&j, NULL);
	json_arr_end(&j);
	json_arr_end(&j);
	json_double(&j, "half", 0.5);
	json_double(&j, "nan", NAN);
	json_double(&j, "inf", -INFINITY);
	json_obj_begin(&j, "empty");
	json_obj_end(&j);
	json_obj_end(&j);
	assert_int_equal(json_finish(&j), 0);
	assert_string_equal(j.buf, "{\"a\":[18446744073709551615,"
				   "-9223372036854775808,{\"n\":null,\"t\":"
				   "true,\"f\":false},[]],\"half\":0.5,"
				   "\"nan\":null,\"inf\":null,\"empty\":{}}");
	python_reads(j.buf, NULL);
	json_free(&j);
}

static void test_depth_limit(void **state)
{
	struct json j;
	int i;

	json_init_dyn(&j);
	for (i = 0; i < JSON_MAX_DEPTH - 1; i++)
		json_arr_begin(&j, NULL);
	assert_int_equal(j.err, 0);
	json_arr_begin(&j, NULL); /* one too deep */
	assert_int_equal(json_finish(&j), -EINVAL);
	json_free(&j);
}

/* Each sequence is wrong for the reason in its name. */
static void unbalanced_open(struct json *j)
{
	json_obj_begin(j, NULL);
}

static void extra_close(struct json *j)
{
	json_obj_begin(j, NULL);
	json_obj_end(j);
	json_obj_end(j);
}

static void wrong_close(struct json *j)
{
	json_obj_begin(j, NULL);
	json_arr_end(j);
}

static void key_in_array(struct json *j)
{
	json_arr_begin(j, NULL);
	json_u64(j, "k", 1);
	json_arr_end(j);
}

static void no_key_in_object(struct json *j)
{
	json_obj_begin(j, NULL);
	json_u64(j, NULL, 1);
	json_obj_end(j);
}

static void two_top_values(struct json *j)
{
	json_u64(j, NULL, 1);
	json_u64(j, NULL, 2);
}

static void top_level_key(struct json *j)
{
	json_u64(j, "k", 1);
}

static void nothing(struct json *j)
{
}

static void null_bytes(struct json *j)
{
	json_strn(j, NULL, NULL, 3);
}

static void test_misuse(void **state)
{
	static void (*const cases[])(struct json *) = {
		unbalanced_open, extra_close,	wrong_close, key_in_array, no_key_in_object,
		two_top_values,	 top_level_key, nothing,     null_bytes,
	};
	unsigned int i;
	struct json j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_init_dyn(&j);
		cases[i](&j);
		assert_int_equal(json_finish(&j), -EINVAL);
		json_free(&j);
	}
}

static void test_enospc(void **state)
{
	char buf[16 + 4];
	unsigned int cap;
	struct json j;

	/* every size short of the document fails, and never writes past */
	for (cap = 1; cap <= 16; cap++) {
		memset(buf, 'x', sizeof(buf));
		json_init(&j, buf, cap);
		json_obj_begin(&j, NULL);
		json_str(&j, "key", "value");
		json_obj_end(&j);
		/* {"key":"value"} is 15 bytes, plus the NUL */
		assert_int_equal(json_finish(&j), cap < 16 ? -ENOSPC : 0);
		assert_memory_equal(buf + cap, "xxxx", 4);
		/* errors are sticky: nothing more is written */
		json_str(&j, "more", "bytes");
		assert_int_equal(json_finish(&j), cap < 16 ? -ENOSPC : -EINVAL);
	}
	assert_string_equal(buf, "{\"key\":\"value\"}");
}

static void test_invalid_init(void **state)
{
	struct json j;

	memset(&j, 0xa5, sizeof(j));
	json_init(&j, NULL, 16);
	assert_int_equal(json_finish(&j), -EINVAL);
	json_init(&j, (char *)&j, 0);
	assert_int_equal(json_finish(&j), -EINVAL);
	memset(&j, 0xa5, sizeof(j));
	json_init_dyn(&j);
	assert_null(j.buf);
	assert_int_equal(j.len, 0);
	json_free(&j);
	json_free(&j); /* twice is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_odd_keys),
		cmocka_unit_test(test_nesting_and_numbers),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_enospc),
		cmocka_unit_test(test_invalid_init),
		cmocka_unit_test(test_hex_member),
		cmocka_unit_test(test_hex_member_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
