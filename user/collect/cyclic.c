// SPDX-License-Identifier: GPL-2.0
/*
 * Ring arithmetic for perf buffers. See cyclic.h for the two ring policies.
 */
#include <errno.h>
#include <string.h>

#include "cyclic.h"

static bool pow2(size_t n)
{
	return n && !(n & (n - 1));
}

int cyclic_copy(const uint8_t *ring, size_t size, uint64_t from, size_t len, uint8_t *out)
{
	size_t start, first;

	if (!pow2(size) || len > size)
		return -EINVAL;
	if (!len)
		return 0;
	if (!ring || !out)
		return -EINVAL;
	start = from & (size - 1);
	first = size - start < len ? size - start : len;
	memcpy(out, ring + start, first);
	/* The second segment, when the range runs over the end. */
	memcpy(out + first, ring, len - first);
	return 0;
}

/* Remember the bytes just before @end: the writer overwrites them last. */
static void aux_remember(struct cyclic_aux *st, const uint8_t *ring, uint64_t end)
{
	st->end = end;
	st->window_len = st->size < CYCLIC_WINDOW ? st->size : CYCLIC_WINDOW;
	cyclic_copy(ring, st->size, end - st->window_len, st->window_len, st->window);
}

static bool aux_window_changed(const struct cyclic_aux *st, const uint8_t *ring)
{
	uint8_t now[CYCLIC_WINDOW];

	cyclic_copy(ring, st->size, st->end - st->window_len, st->window_len, now);
	return memcmp(now, st->window, st->window_len) != 0;
}

int cyclic_aux_init(struct cyclic_aux *st, const uint8_t *ring, size_t size)
{
	if (!st || !ring || !pow2(size))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->size = size;
	aux_remember(st, ring, 0);
	return 0;
}

int cyclic_aux_read(struct cyclic_aux *st, const uint8_t *ring, uint64_t aux_head, bool full,
		    uint8_t *out, size_t cap, struct cyclic_result *res)
{
	uint64_t head, from;
	size_t len;

	if (!st || !ring || !out || !res || !pow2(st->size))
		return -EINVAL;
	/* In overwrite mode aux_head runs 0..size; size is position 0. */
	head = aux_head & (st->size - 1);
	memset(res, 0, sizeof(*res));
	res->head = head;
	res->wrapped = aux_window_changed(st, ring);
	if (full || res->wrapped) {
		/* Oldest first: the byte at the head is the oldest one. */
		from = head;
		len = st->size;
	} else {
		from = st->end;
		len = (head - st->end) & (st->size - 1);
	}
	if (len > cap) {
		res->lost_bytes = len - cap;
		from += len - cap;
		len = cap;
	}
	cyclic_copy(ring, st->size, from, len, out);
	res->len = len;
	aux_remember(st, ring, head);
	return 0;
}

/*
 * Walk whole records newest first from @head while they fit in @limit
 * bytes; with @out, place each one so that @out ends up oldest first in
 * @total bytes. Returns the bytes walked.
 */
/* Reverse the order of the @n 8-byte words at @p, in place, any alignment. */
static void reverse_words(uint8_t *p, size_t n)
{
	uint64_t a, b;
	size_t i;

	for (i = 0; i < n / 2; i++) {
		memcpy(&a, p + 8 * i, 8);
		memcpy(&b, p + 8 * (n - 1 - i), 8);
		memcpy(p + 8 * i, &b, 8);
		memcpy(p + 8 * (n - 1 - i), &a, 8);
	}
}

size_t cyclic_backward_order(uint8_t *buf, size_t len)
{
	struct perf_event_header h;
	size_t off = 0;

	if (!buf)
		return 0;
	/*
	 * Each record reversed word by word, then the whole span: the records
	 * end up oldest first, each in its own order again. Records are
	 * 8-byte multiples (the kernel aligns them), so words suffice.
	 */
	while (len - off >= sizeof(h)) {
		memcpy(&h, buf + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off || (h.size & 7))
			break;
		reverse_words(buf + off, h.size / 8);
		off += h.size;
	}
	reverse_words(buf, off / 8);
	return off;
}

int cyclic_backward_take(uint64_t *prev_head, const uint8_t *ring, size_t size, uint64_t data_head,
			 bool full, uint8_t *out, size_t cap, struct cyclic_result *res)
{
	uint64_t written, avail;
	size_t limit;

	if (!prev_head || !ring || !out || !res || !pow2(size))
		return -EINVAL;
	/* data_head counts down from 0 in a write_backward ring. */
	written = *prev_head - data_head;
	avail = full ? 0 - data_head : written;
	limit = avail < size ? avail : size;
	if (limit > cap)
		limit = cap;
	cyclic_copy(ring, size, data_head, limit, out);
	memset(res, 0, sizeof(*res));
	res->len = limit;
	res->head = data_head;
	res->wrapped = written > size;
	res->lost_bytes = written; /* until cyclic_backward_done() */
	*prev_head = data_head;
	return 0;
}

void cyclic_backward_done(uint8_t *out, struct cyclic_result *res)
{
	uint64_t written = res->lost_bytes;

	res->len = cyclic_backward_order(out, res->len);
	res->lost_bytes = written > res->len ? written - res->len : 0;
}

int cyclic_backward_read(uint64_t *prev_head, const uint8_t *ring, size_t size, uint64_t data_head,
			 bool full, uint8_t *out, size_t cap, struct cyclic_result *res)
{
	int rc = cyclic_backward_take(prev_head, ring, size, data_head, full, out, cap, res);

	if (!rc)
		cyclic_backward_done(out, res);
	return rc;
}
