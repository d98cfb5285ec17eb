// SPDX-License-Identifier: GPL-2.0
/*
 * ptrecs.c: a CPU's thread through switch records and ITRACE_START, and
 * the history a --full window asks (the thread before a time).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include "perfrec.h"
#include "collect/ptrecs.h"

#define TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

struct stream {
	__u8 buf[1024];
	size_t len;
};

/* A task-bound switch (in or out) of @tid at @time. */
static void put_switch(struct stream *s, bool out, __u32 tid, __u64 time)
{
	struct perf_event_header h = { PERF_RECORD_SWITCH, 0, 0 };
	struct perfrec_id id = { .pid = 100, .tid = tid, .time = time };

	h.misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0;
	h.size = (__u16)(sizeof(h) + perfrec_id_size(TYPE));
	memcpy(s->buf + s->len, &h, sizeof(h));
	perfrec_id_put(s->buf + s->len + sizeof(h), TYPE, &id);
	s->len += h.size;
}

/* The kernel's ITRACE_START of @tid at @time. */
static void put_itrace(struct stream *s, __u32 tid, __u64 time)
{
	struct perf_event_header h = { PERF_RECORD_ITRACE_START, 0, 0 };
	struct perfrec_id id = { .pid = 100, .tid = tid, .time = time };
	__u32 who[2] = { 100, tid };

	h.size = (__u16)(sizeof(h) + sizeof(who) + perfrec_id_size(TYPE));
	memcpy(s->buf + s->len, &h, sizeof(h));
	memcpy(s->buf + s->len + sizeof(h), who, sizeof(who));
	perfrec_id_put(s->buf + s->len + sizeof(h) + sizeof(who), TYPE, &id);
	s->len += h.size;
}

static __u32 before(const struct ptrecs_hist *h, __u64 t)
{
	struct ptrecs_cpu st = { 9, 9 };

	if (!ptrecs_hist_before(h, t, &st))
		return (__u32)-1;
	return st.tid;
}

/*
 * ITRACE_START (PT records) and switches (sideband) in time order; the
 * history answers for any time since, and a read again holding the same
 * records (--full) adds nothing.
 */
static void test_follow_history(void **state)
{
	struct stream sb = { .len = 0 }, pt = { .len = 0 };
	struct ptrecs_cpu st = { 0, 0 };
	struct ptrecs_hist h;
	__u64 t;

	(void)state;
	assert_int_equal(ptrecs_hist_init(&h, 16), 0);
	put_itrace(&pt, 7, 100);
	put_switch(&sb, true, 7, 200);
	put_switch(&sb, false, 8, 300);
	assert_true(ptrecs_first_time(sb.buf, sb.len, TYPE, pt.buf, pt.len, TYPE, &t));
	assert_int_equal(t, 100);
	ptrecs_follow(&st, &h, sb.buf, sb.len, TYPE, pt.buf, pt.len, TYPE);
	assert_int_equal(st.tid, 8);
	assert_int_equal(h.n, 3);
	assert_int_equal(before(&h, 100), 0); /* before PT started: none */
	assert_int_equal(before(&h, 150), 7);
	assert_int_equal(before(&h, 250), 0); /* switched out */
	assert_int_equal(before(&h, 301), 8);
	/* --full: the same switch records again, and one more */
	put_switch(&sb, true, 8, 400);
	ptrecs_follow(&st, &h, sb.buf, sb.len, TYPE, NULL, 0, TYPE);
	assert_int_equal(h.n, 4);
	assert_int_equal(st.tid, 0);
	assert_int_equal(before(&h, 350), 8);
	assert_false(ptrecs_first_time(NULL, 0, TYPE, NULL, 0, TYPE, &t));
	ptrecs_hist_free(&h);
}

/*
 * A full history drops its oldest step, whose state is then known from
 * its time on only; a gap (records lost unseen) forgets everything.
 */
static void test_history_cap_and_gap(void **state)
{
	struct stream sb = { .len = 0 };
	struct ptrecs_cpu st = { 0, 0 };
	struct ptrecs_hist h;

	(void)state;
	assert_int_equal(ptrecs_hist_init(&h, 2), 0);
	put_switch(&sb, false, 5, 100);
	put_switch(&sb, true, 5, 200);
	put_switch(&sb, false, 6, 300);
	ptrecs_follow(&st, &h, sb.buf, sb.len, TYPE, NULL, 0, TYPE);
	assert_int_equal(h.n, 2);
	assert_int_equal(before(&h, 150), 5); /* the dropped step, from 100 on */
	assert_int_equal(before(&h, 99), (__u32)-1);
	assert_int_equal(before(&h, 301), 6);
	ptrecs_hist_gap(&h);
	assert_int_equal(before(&h, 301), (__u32)-1);
	sb.len = 0;
	put_switch(&sb, true, 6, 500);
	ptrecs_follow(&st, &h, sb.buf, sb.len, TYPE, NULL, 0, TYPE);
	assert_int_equal(before(&h, 501), 0);
	assert_int_equal(before(&h, 499), (__u32)-1);
	ptrecs_hist_free(&h);
	assert_int_equal(ptrecs_hist_init(&h, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follow_history),
		cmocka_unit_test(test_history_cap_and_gap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
