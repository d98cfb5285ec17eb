// SPDX-License-Identifier: GPL-2.0
/*
 * cyclic.c: two-segment copies, AUX wrap detection, backward data rings.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collect/cyclic.h"
#include "perfrec.h"

#define RING 256
#define GARBAGE 0xa5

/* The k-th byte any writer produces: period 251, so a lap changes bytes. */
static uint8_t stream(uint64_t k)
{
	return (uint8_t)(k % 251 + 1);
}

/* ---- cyclic_copy ---- */

static const struct copy_case {
	const char *name;
	size_t size;
	uint64_t from;
	size_t len;
	int rc;
} copy_cases[] = {
	{ "nothing", 16, 3, 0, 0 },
	{ "one byte at 0", 16, 0, 1, 0 },
	{ "one byte at the end", 16, 15, 1, 0 },
	{ "whole from 0", 16, 0, 16, 0 },
	{ "whole from the middle", 16, 9, 16, 0 },
	{ "straddles the end", 16, 12, 8, 0 },
	{ "running position", 16, 3 * 16 + 5, 11, 0 },
	{ "head at the end", 16, 16, 4, 0 },
	{ "longer than the ring", 16, 0, 17, -EINVAL },
	{ "not a power of two", 12, 0, 4, -EINVAL },
	{ "zero size", 0, 0, 0, -EINVAL },
};

static void test_copy(void **state)
{
	uint8_t ring[16], out[32];
	unsigned int i;
	size_t j;

	for (j = 0; j < sizeof(ring); j++)
		ring[j] = (uint8_t)(0x40 + j);
	for (i = 0; i < sizeof(copy_cases) / sizeof(copy_cases[0]); i++) {
		const struct copy_case *c = &copy_cases[i];

		memset(out, GARBAGE, sizeof(out));
		print_message("copy: %s\n", c->name);
		assert_int_equal(cyclic_copy(ring, c->size, c->from, c->len, out), c->rc);
		if (c->rc)
			continue;
		for (j = 0; j < c->len; j++)
			assert_int_equal(out[j], ring[(c->from + j) % c->size]);
		/* Nothing past the copy is touched. */
		assert_int_equal(out[c->len], GARBAGE);
	}
}

static void test_copy_null(void **state)
{
	uint8_t b[4];

	assert_int_equal(cyclic_copy(NULL, 4, 0, 1, b), -EINVAL);
	assert_int_equal(cyclic_copy(b, 4, 0, 1, NULL), -EINVAL);
}

/* ---- AUX overwrite ring ---- */

struct aux_sim {
	uint8_t ring[RING];
	uint64_t written; /* running total: the hardware position */
};

static void aux_write(struct aux_sim *s, size_t n)
{
	for (; n; n--, s->written++)
		s->ring[s->written % RING] = stream(s->written);
}

static const struct aux_case {
	const char *name;
	size_t before, after; /* written before the first read, then */
	bool head_as_size; /* report aux_head == size instead of 0 */
	bool full;
	size_t cap;
	size_t len;
	bool wrapped;
	uint64_t lost;
} aux_cases[] = {
	{ "empty", 0, 0, false, false, RING, 0, false, 0 },
	{ "not wrapped", 0, 100, false, false, RING, 100, false, 0 },
	{ "one byte", 50, 1, false, false, RING, 1, false, 0 },
	{ "straddles the end", 150, 150, false, false, RING, 150, false, 0 },
	{ "head at 0", 156, 100, false, false, RING, 100, false, 0 },
	{ "head at the end", 156, 100, true, false, RING, 100, false, 0 },
	{ "up to the window", 0, RING - CYCLIC_WINDOW, false, false, RING, RING - CYCLIC_WINDOW,
	  false, 0 },
	{ "into the window", 0, RING - 10, false, false, RING, RING, true, 0 },
	{ "exactly one lap", 30, RING, false, false, RING, RING, true, 0 },
	{ "wrapped once", 10, 300, false, false, RING, RING, true, 0 },
	{ "wrapped many times", 10, 5 * RING + 17, false, false, RING, RING, true, 0 },
	{ "full, not wrapped", 0, 100, false, true, RING, RING, false, 0 },
	{ "full, wrapped", 0, 300, false, true, RING, RING, true, 0 },
	{ "caller buffer short", 0, 100, false, false, 40, 40, false, 60 },
};

static void check_aux_bytes(const struct aux_case *c, const struct aux_sim *s, const uint8_t *out)
{
	size_t j;

	if (c->len == RING) {
		/* The whole ring from the head: oldest (maybe zero) first. */
		for (j = 0; j < RING; j++)
			assert_int_equal(out[j], s->ring[(s->written + j) % RING]);
		return;
	}
	/* Otherwise always the newest bytes the writer produced. */
	for (j = 0; j < c->len; j++)
		assert_int_equal(out[j], stream(s->written - c->len + j));
}

static void test_aux(void **state)
{
	static struct aux_sim s;
	uint8_t out[2 * RING];
	struct cyclic_result r;
	struct cyclic_aux st;
	unsigned int i;
	uint64_t head;

	for (i = 0; i < sizeof(aux_cases) / sizeof(aux_cases[0]); i++) {
		const struct aux_case *c = &aux_cases[i];

		print_message("aux: %s\n", c->name);
		memset(&s, 0, sizeof(s));
		memset(&st, GARBAGE, sizeof(st));
		assert_int_equal(cyclic_aux_init(&st, s.ring, RING), 0);
		aux_write(&s, c->before);
		assert_int_equal(cyclic_aux_read(&st, s.ring, s.written % RING, false, out,
						 sizeof(out), &r),
				 0);
		assert_int_equal(r.len, c->before);
		aux_write(&s, c->after);
		head = s.written % RING;
		if (c->head_as_size && !head)
			head = RING;
		memset(out, GARBAGE, sizeof(out));
		memset(&r, GARBAGE, sizeof(r));
		assert_int_equal(cyclic_aux_read(&st, s.ring, head, c->full, out, c->cap, &r), 0);
		assert_int_equal(r.len, c->len);
		assert_int_equal(r.wrapped, c->wrapped);
		assert_int_equal(r.lost_bytes, c->lost);
		assert_int_equal(r.head, s.written % RING);
		check_aux_bytes(c, &s, out);
		assert_int_equal(out[c->len], GARBAGE);
		/* The next read starts where this one ended: nothing new. */
		assert_int_equal(cyclic_aux_read(&st, s.ring, head, false, out, sizeof(out), &r),
				 0);
		assert_int_equal(r.len, 0);
		assert_false(r.wrapped);
	}
}

static void test_aux_null(void **state)
{
	uint8_t ring[RING] = { 0 }, out[RING];
	struct cyclic_result r;
	struct cyclic_aux st;

	assert_int_equal(cyclic_aux_init(NULL, ring, RING), -EINVAL);
	assert_int_equal(cyclic_aux_init(&st, NULL, RING), -EINVAL);
	assert_int_equal(cyclic_aux_init(&st, ring, 100), -EINVAL);
	assert_int_equal(cyclic_aux_init(&st, ring, RING), 0);
	assert_int_equal(cyclic_aux_read(NULL, ring, 0, false, out, RING, &r), -EINVAL);
	assert_int_equal(cyclic_aux_read(&st, ring, 0, false, NULL, RING, &r), -EINVAL);
	assert_int_equal(cyclic_aux_read(&st, ring, 0, false, out, RING, NULL), -EINVAL);
	memset(&st, 0, sizeof(st));
	assert_int_equal(cyclic_aux_read(&st, ring, 0, false, out, RING, &r), -EINVAL);
}

/* ---- backward data rings ---- */

struct bwd_sim {
	uint8_t ring[RING];
	uint64_t head; /* counts down from 0 */
	uint32_t seq;
};

/* A record of @size bytes whose payload is its sequence number. */
static void bwd_put(struct bwd_sim *s, uint16_t size)
{
	uint8_t rec[64] = { 0 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, size };
	uint16_t i;

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), &s->seq, sizeof(s->seq));
	s->seq++;
	s->head -= size;
	for (i = 0; i < size; i++)
		s->ring[(s->head + i) % RING] = rec[i];
}

static uint32_t seq_of(const uint8_t *rec)
{
	uint32_t v;

	memcpy(&v, rec + sizeof(struct perf_event_header), sizeof(v));
	return v;
}

static const struct bwd_case {
	const char *name;
	unsigned int before, after; /* 40-byte records before/after read 1 */
	bool full;
	size_t cap;
	unsigned int nrec; /* records in the second read */
	uint32_t first_seq;
	bool wrapped;
	uint64_t lost;
} bwd_cases[] = {
	{ "empty", 0, 0, false, RING, 0, 0, false, 0 },
	{ "one record", 0, 1, false, RING, 1, 0, false, 0 },
	{ "three records", 0, 3, false, RING, 3, 0, false, 0 },
	{ "straddles the end", 5, 2, false, RING, 2, 5, false, 0 },
	{ "after a read", 4, 2, false, RING, 2, 4, false, 0 },
	{ "wrapped once", 0, 7, false, RING, 6, 1, true, 40 },
	{ "wrapped many times", 0, 20, false, RING, 6, 14, true, 560 },
	{ "full after a read", 4, 1, true, RING, 5, 0, false, 0 },
	{ "caller buffer short", 0, 5, false, 100, 2, 3, false, 120 },
};

static void test_backward(void **state)
{
	static struct bwd_sim s;
	uint8_t out[RING + 8];
	struct cyclic_result r;
	unsigned int i, k;
	uint64_t prev;

	for (i = 0; i < sizeof(bwd_cases) / sizeof(bwd_cases[0]); i++) {
		const struct bwd_case *c = &bwd_cases[i];

		print_message("backward: %s\n", c->name);
		memset(&s, 0, sizeof(s));
		prev = 0;
		for (k = 0; k < c->before; k++)
			bwd_put(&s, 40);
		assert_int_equal(cyclic_backward_read(&prev, s.ring, RING, s.head, false, out,
						      sizeof(out), &r),
				 0);
		assert_int_equal(r.len, 40 * c->before);
		for (k = 0; k < c->after; k++)
			bwd_put(&s, 40);
		memset(out, GARBAGE, sizeof(out));
		memset(&r, GARBAGE, sizeof(r));
		assert_int_equal(cyclic_backward_read(&prev, s.ring, RING, s.head, c->full, out,
						      c->cap, &r),
				 0);
		assert_int_equal(r.len, 40 * c->nrec);
		assert_int_equal(r.wrapped, c->wrapped);
		assert_int_equal(r.lost_bytes, c->lost);
		assert_int_equal(r.head, s.head);
		assert_int_equal(prev, s.head);
		/* Oldest first, no gaps, ending with the newest record. */
		for (k = 0; k < c->nrec; k++)
			assert_int_equal(seq_of(out + 40 * k), c->first_seq + k);
		/*
		 * Past len are raw ring bytes the order step dropped (an
		 * overwritten record's remains); never past the cap.
		 */
		assert_int_equal(out[c->cap], GARBAGE);
	}
}

static void test_backward_mixed_sizes(void **state)
{
	static struct bwd_sim s;
	static const uint16_t sizes[] = { 16, 48, 24, 64, 8 + 8, 32, 40, 56 };
	const struct perf_event_header *h;
	uint8_t out[RING];
	struct cyclic_result r;
	size_t off = 0;
	uint64_t prev = 0;
	unsigned int k, n = 0;

	memset(&s, 0, sizeof(s));
	for (k = 0; k < 3 * sizeof(sizes) / sizeof(sizes[0]); k++)
		bwd_put(&s, sizes[k % 8]);
	assert_int_equal(
		cyclic_backward_read(&prev, s.ring, RING, s.head, false, out, sizeof(out), &r), 0);
	assert_true(r.wrapped);
	/* Walk the result: consecutive sequence numbers up to the newest. */
	while (perfrec_next(out, r.len, &off, &h) == 1)
		n++;
	assert_int_equal(off, r.len);
	assert_true(n > 3);
	assert_int_equal(seq_of(out + r.len - 56), s.seq - 1);
}

static void test_backward_corrupt(void **state)
{
	uint8_t ring[RING] = { 0 }, out[RING];
	struct cyclic_result r;
	uint64_t prev = 0;

	/* A zero header stops the walk instead of looping forever. */
	assert_int_equal(cyclic_backward_read(&prev, ring, RING, (uint64_t)-64, false, out,
					      sizeof(out), &r),
			 0);
	assert_int_equal(r.len, 0);
	assert_int_equal(r.lost_bytes, 64);
}

/* Put a record of @size bytes, type @type, at @p. */
static void put_rec(uint8_t *p, uint16_t size, uint32_t type)
{
	struct perf_event_header h = { .type = type, .size = size };

	memset(p, (int)type, size);
	memcpy(p, &h, sizeof(h));
}

/*
 * The order step alone, at any alignment: newest-first records come out
 * oldest first, each intact; a record that is not a multiple of 8 bytes
 * ends the intact part.
 */
static void test_backward_order(void **state)
{
	static const uint16_t sizes[] = { 24, 8, 48, 16 }; /* newest first */
	uint8_t raw[256] __attribute__((aligned(8)));
	const struct perf_event_header *h;
	size_t off, len, k, shift;

	for (shift = 0; shift < 8; shift++) {
		uint8_t *buf = raw + shift;

		memset(raw, GARBAGE, sizeof(raw));
		for (k = 0, off = 0; k < 4; off += sizes[k], k++)
			put_rec(buf + off, sizes[k], 10 + k);
		put_rec(buf + off, 12, 99); /* not intact: ends the walk */
		len = cyclic_backward_order(buf, off + 12);
		assert_int_equal(len, 96);
		for (k = 4, off = 0; k-- > 0;) {
			h = (const void *)(buf + off);
			assert_int_equal(h->type, 10 + k);
			assert_int_equal(h->size, sizes[k]);
			if (h->size > sizeof(*h))
				assert_int_equal(buf[off + h->size - 1], 10 + k);
			off += h->size;
		}
	}
	assert_int_equal(cyclic_backward_order(NULL, 64), 0);
	assert_int_equal(cyclic_backward_order(raw, 0), 0);
}

static void test_backward_null(void **state)
{
	uint8_t ring[RING] = { 0 }, out[RING];
	struct cyclic_result r;
	uint64_t prev = 0;

	assert_int_equal(cyclic_backward_read(NULL, ring, RING, 0, false, out, RING, &r), -EINVAL);
	assert_int_equal(cyclic_backward_read(&prev, NULL, RING, 0, false, out, RING, &r), -EINVAL);
	assert_int_equal(cyclic_backward_read(&prev, ring, 100, 0, false, out, RING, &r), -EINVAL);
	assert_int_equal(cyclic_backward_read(&prev, ring, RING, 0, false, out, RING, NULL),
			 -EINVAL);
}

static void test_next_record(void **state)
{
	uint64_t buf[4] = { 0 };
	struct perf_event_header *h = (void *)buf;
	const struct perf_event_header *got = NULL;
	size_t off = 0;

	*h = (struct perf_event_header){ PERF_RECORD_SAMPLE, 0, 16 };
	h[2] = (struct perf_event_header){ PERF_RECORD_LOST, 0, 4 };
	assert_int_equal(perfrec_next((uint8_t *)buf, 32, &off, &got), 1);
	assert_ptr_equal(got, h);
	assert_int_equal(off, 16);
	/* Shorter than its own header. */
	assert_int_equal(perfrec_next((uint8_t *)buf, 32, &off, &got), -EBADMSG);
	/* Running past the end. */
	off = 0;
	assert_int_equal(perfrec_next((uint8_t *)buf, 12, &off, &got), -EBADMSG);
	off = 32;
	assert_int_equal(perfrec_next((uint8_t *)buf, 32, &off, &got), 0);
	assert_int_equal(perfrec_next(NULL, 32, &off, &got), -EINVAL);
	assert_int_equal(perfrec_next((uint8_t *)buf, 32, NULL, &got), -EINVAL);
	assert_int_equal(perfrec_next((uint8_t *)buf, 32, &off, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_copy_null),
		cmocka_unit_test(test_aux),
		cmocka_unit_test(test_aux_null),
		cmocka_unit_test(test_backward),
		cmocka_unit_test(test_backward_mixed_sizes),
		cmocka_unit_test(test_backward_corrupt),
		cmocka_unit_test(test_backward_null),
		cmocka_unit_test(test_backward_order),
		cmocka_unit_test(test_next_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
