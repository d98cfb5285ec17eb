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

int cyc_copy(const __u8 *ring, size_t size, __u64 from, size_t len, __u8 *out)
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
static void aux_remember(struct cyc_aux *st, const __u8 *ring, __u64 end)
{
	st->end = end;
	st->window_len = st->size < CYC_WINDOW ? st->size : CYC_WINDOW;
	cyc_copy(ring, st->size, end - st->window_len, st->window_len,
		 st->window);
}

static bool aux_window_changed(const struct cyc_aux *st, const __u8 *ring)
{
	__u8 now[CYC_WINDOW];

	cyc_copy(ring, st->size, st->end - st->window_len, st->window_len, now);
	return memcmp(now, st->window, st->window_len) != 0;
}

int cyc_aux_init(struct cyc_aux *st, const __u8 *ring, size_t size)
{
	if (!st || !ring || !pow2(size))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->size = size;
	aux_remember(st, ring, 0);
	return 0;
}

int cyc_aux_read(struct cyc_aux *st, const __u8 *ring, __u64 aux_head,
		 bool full, __u8 *out, size_t cap, struct cyc_result *res)
{
	__u64 head, from;
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
	cyc_copy(ring, st->size, from, len, out);
	res->len = len;
	aux_remember(st, ring, head);
	return 0;
}

/*
 * Walk whole records newest first from @head while they fit in @limit
 * bytes; with @out, place each one so that @out ends up oldest first in
 * @total bytes. Returns the bytes walked.
 */
static size_t backward_walk(const __u8 *ring, size_t size, __u64 head,
			    size_t limit, __u8 *out, size_t total)
{
	struct perf_event_header h;
	size_t off = 0;

	while (limit - off >= sizeof(h)) {
		/* A header may straddle the end of the ring too. */
		cyc_copy(ring, size, head + off, sizeof(h), (__u8 *)&h);
		if (h.size < sizeof(h) || h.size > limit - off)
			break;
		if (out)
			cyc_copy(ring, size, head + off, h.size,
				 out + total - off - h.size);
		off += h.size;
	}
	return off;
}

int cyc_backward_read(__u64 *prev_head, const __u8 *ring, size_t size,
		      __u64 data_head, bool full, __u8 *out, size_t cap,
		      struct cyc_result *res)
{
	__u64 written, avail;
	size_t limit, taken;

	if (!prev_head || !ring || !out || !res || !pow2(size))
		return -EINVAL;
	/* data_head counts down from 0 in a write_backward ring. */
	written = *prev_head - data_head;
	avail = full ? 0 - data_head : written;
	limit = avail < size ? avail : size;
	if (limit > cap)
		limit = cap;
	taken = backward_walk(ring, size, data_head, limit, NULL, 0);
	backward_walk(ring, size, data_head, taken, out, taken);
	memset(res, 0, sizeof(*res));
	res->len = taken;
	res->head = data_head;
	res->wrapped = written > size;
	res->lost_bytes = written > taken ? written - taken : 0;
	*prev_head = data_head;
	return 0;
}

int cyc_next_record(const __u8 *buf, size_t len, size_t *off,
		    const struct perf_event_header **hdr)
{
	const struct perf_event_header *h;

	if (!buf || !off || !hdr)
		return -EINVAL;
	if (*off >= len)
		return 0;
	if (len - *off < sizeof(*h))
		return -EBADMSG;
	h = (const struct perf_event_header *)(buf + *off);
	if (h->size < sizeof(*h) || h->size > len - *off)
		return -EBADMSG;
	*hdr = h;
	*off += h->size;
	return 1;
}
