// SPDX-License-Identifier: GPL-2.0
/*
 * The protobuf writer (tools/dump/pbuf.c) byte for byte: varints at their
 * edges, a double, strings, nested messages short (the byte left for the
 * length) and long (the body moved up for a 2- and a 3-byte length).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pbuf.h"

static void test_varints(void **state)
{
	static const uint8_t want[] = {
		0x08, 0x00, /* 1: 0 */
		0x10, 0x7f, /* 2: 127 */
		0x18, 0x80, 0x01, /* 3: 128 */
		0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* 4: ~0 */
		0x80, 0x10, 0x2a, /* 256: 42, a two-byte key */
		0x29, 0,    0,	  0,	0,    0,    0,	  0xf0, 0x3f, /* 5: 1.0 as a double */
		0x32, 0x02, 'h',  'i', /* 6: "hi" */
	};
	struct pbuf p = { 0 };

	(void)state;
	pbuf_varint(&p, 1, 0);
	pbuf_varint(&p, 2, 127);
	pbuf_varint(&p, 3, 128);
	pbuf_varint(&p, 4, UINT64_MAX);
	pbuf_varint(&p, 256, 42);
	pbuf_double(&p, 5, 1.0);
	pbuf_str(&p, 6, "hi");
	assert_false(p.nomem);
	assert_int_equal(p.len, sizeof(want));
	assert_memory_equal(p.b, want, sizeof(want));
	pbuf_free(&p);
}

/* Field 1 { field 2: @n bytes 'a' } after a varint, its bytes checked. */
static void nested(size_t n, const uint8_t *outer_len, size_t ol, const uint8_t *inner_len,
		   size_t il)
{
	struct pbuf p = { 0 };
	static char body[20000];
	size_t at, off = 0;

	memset(body, 'a', sizeof(body));
	pbuf_varint(&p, 3, 7);
	at = pbuf_begin(&p, 1);
	pbuf_bytes(&p, 2, body, n);
	pbuf_end(&p, at);
	pbuf_varint(&p, 4, 9); /* after it: written where it ends */
	assert_false(p.nomem);
	assert_int_equal(p.len, 2 + 1 + ol + 1 + il + n + 2);
	assert_int_equal(p.b[off++], 0x18);
	assert_int_equal(p.b[off++], 7);
	assert_int_equal(p.b[off++], 0x0a);
	assert_memory_equal(p.b + off, outer_len, ol);
	off += ol;
	assert_int_equal(p.b[off++], 0x12);
	assert_memory_equal(p.b + off, inner_len, il);
	off += il;
	assert_memory_equal(p.b + off, body, n);
	off += n;
	assert_int_equal(p.b[off++], 0x20);
	assert_int_equal(p.b[off++], 9);
	pbuf_free(&p);
}

static void test_nested(void **state)
{
	(void)state;
	/* 1 + 1 + 100 = 102 bytes: the one byte left */
	nested(100, (const uint8_t[]){ 102 }, 1, (const uint8_t[]){ 100 }, 1);
	/* 1 + 2 + 200 = 203: two bytes, the body moved up one */
	nested(200, (const uint8_t[]){ 0xcb, 0x01 }, 2, (const uint8_t[]){ 0xc8, 0x01 }, 2);
	/* 1 + 3 + 20000 = 20004: three bytes */
	nested(20000, (const uint8_t[]){ 0xa4, 0x9c, 0x01 }, 3,
	       (const uint8_t[]){ 0xa0, 0x9c, 0x01 }, 3);
}

/* Messages within messages, the inner long: each length its own. */
static void test_nested_twice(void **state)
{
	static char body[300];
	struct pbuf p = { 0 };
	size_t a, b;

	(void)state;
	memset(body, 'b', sizeof(body));
	a = pbuf_begin(&p, 1);
	b = pbuf_begin(&p, 2);
	pbuf_bytes(&p, 3, body, sizeof(body));
	pbuf_end(&p, b);
	pbuf_varint(&p, 4, 1);
	pbuf_end(&p, a);
	/* inner: 1 + 2 + 300 = 303 (0xaf 0x02); outer: 1 + 2 + 303 + 2 */
	assert_int_equal(p.len, 1 + 2 + 308);
	assert_int_equal(p.b[0], 0x0a);
	assert_int_equal(p.b[1], 0xb4); /* 308 = 0x134 */
	assert_int_equal(p.b[2], 0x02);
	assert_int_equal(p.b[3], 0x12);
	assert_int_equal(p.b[4], 0xaf);
	assert_int_equal(p.b[5], 0x02);
	assert_int_equal(p.b[6], 0x1a);
	assert_int_equal(p.b[7], 0xac); /* 300 */
	assert_int_equal(p.b[8], 0x02);
	assert_int_equal(p.b[9 + 300], 0x20);
	assert_int_equal(p.b[10 + 300], 1);
	pbuf_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_nested_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
