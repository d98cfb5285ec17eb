/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring arithmetic for perf buffers, pure (no kernel, no allocation), so the
 * unit tests reach every branch in memory.
 *
 * Two kinds of ring are read:
 *
 * - The AUX area of an intel_pt event, mapped read-only, which the kernel
 *   runs in overwrite mode: the newest bytes always win and aux_head is a
 *   position inside the buffer (0..size), not a running total, so the reader
 *   cannot tell from the head alone how much was written. struct cyclic_aux
 *   remembers where the last snapshot ended and a window of the bytes just
 *   before that point: the writer resumes at that point, so it reaches those
 *   bytes last; if they changed, it went (nearly) once around the buffer and
 *   data not yet snapshotted is gone. The whole buffer is then taken and the
 *   read says wrapped. A lap is reported up to CYCLIC_WINDOW bytes early, and a
 *   lap that rewrote the window with identical bytes (e.g. PT PAD packets,
 *   which are zero bytes, over the zeroed buffer) goes unseen.
 *
 * - The data ring of a sampling or sideband event. Policy: overwrite, newest
 *   wins. The ring is mapped read-only with attr.write_backward = 1, as
 *   `perf record --overwrite` does. A flight recorder wants the target's most
 *   recent history when it stops, and a writable ring with a reader-advanced
 *   data_tail would keep the oldest records and drop the newest
 *   (PERF_RECORD_LOST) once full — exactly the part we want. Writing
 *   backward puts data_head on the newest record (a forward overwrite ring
 *   gives no way to find the oldest intact record), and data_head is then a
 *   running total that counts down from 0, so the bytes written since the
 *   last read, hence the bytes lost, are known exactly. The reader walks
 *   records from data_head (newest first) and lays them out oldest first.
 *
 * Every ring size is a power of two (perf rings are a power-of-two number
 * of pages); positions may be running totals, they are taken modulo size.
 */
#ifndef PTBPF_CYCLIC_H
#define PTBPF_CYCLIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <linux/perf_event.h>

/* Bytes of the AUX area remembered at the end of each snapshot. */
#define CYCLIC_WINDOW 64

/* What one read produced. */
struct cyclic_result {
	size_t len; /* bytes written to the caller's buffer */
	bool wrapped; /* the ring overwrote bytes not yet read */
	uint64_t lost_bytes; /* bytes known to be lost since the last read */
	uint64_t head; /* the head the read ended at */
};

/* Per-ring state of the AUX reader. */
struct cyclic_aux {
	size_t size;
	uint64_t end; /* where the last snapshot ended, 0..size-1 */
	size_t window_len;
	uint8_t window[CYCLIC_WINDOW];
};

/*
 * Copy @len bytes of the cyclic buffer @ring of @size bytes, starting at
 * position @from (taken modulo @size), to @out, in at most two segments.
 *
 * Returns -EINVAL if @ring or @out is NULL (with @len > 0), if @size is not
 * a power of two, or if @len > @size.
 */
int cyclic_copy(const uint8_t *ring, size_t size, uint64_t from, size_t len, uint8_t *out);

/*
 * Start reading the AUX area @ring of @size bytes from position 0, the
 * kernel's starting point; remembers the current (zeroed) bytes before it.
 *
 * Returns -EINVAL if @st or @ring is NULL or @size is not a power of two.
 */
int cyclic_aux_init(struct cyclic_aux *st, const uint8_t *ring, size_t size);

/*
 * Copy what the writer added since the last read, oldest first, into @out
 * of @cap bytes: the bytes from the previous end to @aux_head (valid only
 * after the event was disabled), or, when the window changed or @full is
 * set, the whole buffer starting at @aux_head. When that does not fit in
 * @cap, the newest @cap bytes are kept and the rest counted as lost.
 * Updates @st and fills @res.
 *
 * Returns -EINVAL if @st, @ring, @out or @res is NULL or @st was not set up
 * by cyclic_aux_init().
 */
int cyclic_aux_read(struct cyclic_aux *st, const uint8_t *ring, uint64_t aux_head, bool full,
		    uint8_t *out, size_t cap, struct cyclic_result *res);

/*
 * Read the whole records of a write_backward ring @ring of @size bytes
 * written since @prev_head (the data_head of the last read, 0 at first),
 * newest first from @data_head, into @out of @cap bytes laid out oldest
 * first. With @full, every intact record in the ring is taken. Records that
 * were overwritten, or that do not fit in @cap, are counted as lost bytes.
 * Sets *@prev_head to @data_head.
 *
 * Returns -EINVAL if @prev_head, @ring, @out or @res is NULL or @size is
 * not a power of two.
 */
int cyclic_backward_read(uint64_t *prev_head, const uint8_t *ring, size_t size, uint64_t data_head,
			 bool full, uint8_t *out, size_t cap, struct cyclic_result *res);

/*
 * cyclic_backward_read() in two steps, so that only the copy happens while
 * the event is paused: cyclic_backward_take() copies the raw span (newest
 * record first) into @out; cyclic_backward_done(), once the event runs again,
 * keeps the intact records, lays them out oldest first and sets res->len
 * and res->lost_bytes.
 *
 * cyclic_backward_take() returns -EINVAL as cyclic_backward_read() does.
 */
int cyclic_backward_take(uint64_t *prev_head, const uint8_t *ring, size_t size, uint64_t data_head,
			 bool full, uint8_t *out, size_t cap, struct cyclic_result *res);
void cyclic_backward_done(uint8_t *out, struct cyclic_result *res);

/*
 * Lays the records of @len bytes at @buf, newest first as
 * a write_backward ring holds them, out oldest first, in place. Stops at
 * the first record that is not intact (shorter than its header, past
 * @len, or not a multiple of 8 bytes). Returns the bytes kept (0 for NULL).
 */
size_t cyclic_backward_order(uint8_t *buf, size_t len);

#endif /* PTBPF_CYCLIC_H */
