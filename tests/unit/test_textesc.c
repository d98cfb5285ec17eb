// SPDX-License-Identifier: GPL-2.0
/*
 * textesc.c: what a traced program controls is shown on a terminal, never
 * sent to it; and ptbpf's own stderr lines (say.c, status.c) go through it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/say.h"
#include "base/status.h"
#include "textesc.h"

/* The comm of the issue: retitle the terminal, clear it, split the line. */
static const char pwn[] = "\x1b]0;PWN\x07\x1b[2J\n";

static void test_comm(void **state)
{
	char buf[TEXTESC_SIZE(sizeof(pwn))];

	assert_string_equal(textesc_str(buf, sizeof(buf), pwn), "\\x1b]0;PWN\\x07\\x1b[2J\\n");
	assert_true(textesc_needed(pwn, strlen(pwn), 0));
	assert_false(textesc_needed("worker-3", 8, 0));
}

static void test_kinds(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "a\\b", "a\\\\b" }, /* the backslash: "\x1b" as text differs */
		{ "\t\r\x7f", "\\t\\r\\x7f" },
		{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" }, /* UTF-8 passes */
		{ "\xc2\x9b"
		  "2J",
		  "\\xc2\\x9b2J" }, /* C1 CSI in UTF-8 */
		{ "\x9b"
		  "2J",
		  "\\x9b2J" }, /* C1 CSI, one byte */
		{ "\xc0\xaf", "\\xc0\\xaf" }, /* overlong */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" }, /* a surrogate */
		{ "\xe2\x82", "\\xe2\\x82" }, /* cut short */
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(textesc_str(buf, sizeof(buf), cases[i].in), cases[i].out);
}

/* Cut before an escape that does not fit, never inside one. */
static void test_cut(void **state)
{
	char buf[8];

	assert_string_equal(textesc_str(buf, sizeof(buf), "ab\x1b\x1b"), "ab\\x1b");
	assert_string_equal(textesc_str(buf, sizeof(buf), "abcd\x1b"), "abcd");
	assert_string_equal(textesc(buf, 1, "x", 1, 0), "");
}

/* Lines: '\n' and '\\' pass, so an escaped line is not escaped twice. */
static void test_lines(void **state)
{
	char esc[TEXTESC_SIZE(sizeof(pwn))], net[TEXTESC_SIZE(sizeof(esc))];

	textesc_str(esc, sizeof(esc), pwn);
	assert_false(textesc_needed(esc, strlen(esc), TEXTESC_LINES));
	assert_string_equal(textesc(net, sizeof(net), "a\x1b\nb\\\n", 6, TEXTESC_LINES),
			    "a\\x1b\nb\\\n");
}

static void test_fputs_dup(void **state)
{
	char *out = NULL, *d;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_int_equal(textesc_fputs(pwn, f), 0);
	fclose(f);
	assert_string_equal(out, "\\x1b]0;PWN\\x07\\x1b[2J\\n");
	d = textesc_dup(pwn);
	assert_string_equal(d, out);
	free(d);
	free(out);
}

/* ptbpf's lines on stderr: a target's name in them arrives escaped, on one line. */
static void test_say_lines(void **state)
{
	char buf[4096], line[256];
	int p[2];
	ssize_t n;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(say_start(p[1]), 0);
	snprintf(line, sizeof(line), "ptbpf: exec pid 7 %s", pwn);
	status_say(line);
	say("ptbpf: raw %s", pwn); /* no caller escaping: the net */
	assert_int_equal(say_stop(5000), 0);
	n = read(p[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = 0;
	assert_null(memchr(buf, 0x1b, (size_t)n));
	assert_null(memchr(buf, 0x07, (size_t)n));
	assert_string_equal(buf, "ptbpf: exec pid 7 \\x1b]0;PWN\\x07\\x1b[2J\\n\n"
				 "ptbpf: raw \\x1b]0;PWN\\x07\\x1b[2J\n");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm),	  cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_cut),	  cmocka_unit_test(test_lines),
		cmocka_unit_test(test_fputs_dup), cmocka_unit_test(test_say_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
