// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's MMAP2 records merged into /proc readings (user/proc/kmaps.c):
 * a mapping added in address order, over older ones (trimmed, split,
 * replaced), a stream of records as a staged sideband holds them, each
 * merged into the process it names, and taken out of the stream.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include "proc/kmaps.h"
#include "perfrec.h"
#include "proc/procinfo.h"

static void add(struct snap_process *p, __u64 start, __u64 len, __u64 pgoff, const char *path)
{
	struct snap_map m = { .start = start, .len = len, .pgoff = pgoff, .prot = PROT_READ };

	m.path = (char *)path;
	assert_int_equal(kmaps_add(p, &m), 0);
}

static void want(const struct snap_process *p, unsigned int i, __u64 start, __u64 len, __u64 pgoff,
		 const char *path)
{
	assert_true(i < p->nr_maps);
	assert_int_equal(p->maps[i].start, start);
	assert_int_equal(p->maps[i].len, len);
	assert_int_equal(p->maps[i].pgoff, pgoff);
	assert_string_equal(p->maps[i].path, path);
}

static void test_add(void **state)
{
	struct snap_process p = { .pid = 7 };

	add(&p, 0x5000, 0x1000, 0, "/b");
	add(&p, 0x1000, 0x1000, 0, "/a"); /* below: first */
	add(&p, 0x9000, 0x4000, 0x2000, "/c"); /* above: last */
	assert_int_equal(p.nr_maps, 3);
	want(&p, 0, 0x1000, 0x1000, 0, "/a");
	want(&p, 1, 0x5000, 0x1000, 0, "/b");
	want(&p, 2, 0x9000, 0x4000, 0x2000, "/c");
	/* over the middle of /c: its two ends stay, at their offsets */
	add(&p, 0xa000, 0x1000, 0, "/d");
	assert_int_equal(p.nr_maps, 5);
	want(&p, 2, 0x9000, 0x1000, 0x2000, "/c");
	want(&p, 3, 0xa000, 0x1000, 0, "/d");
	want(&p, 4, 0xb000, 0x2000, 0x4000, "/c");
	/* over /b exactly: replaced */
	add(&p, 0x5000, 0x1000, 0x3000, "/e");
	assert_int_equal(p.nr_maps, 5);
	want(&p, 1, 0x5000, 0x1000, 0x3000, "/e");
	/* across /d and the start of the upper /c */
	add(&p, 0x9800, 0x2000, 0, "/f");
	assert_int_equal(p.nr_maps, 5);
	want(&p, 2, 0x9000, 0x800, 0x2000, "/c");
	want(&p, 3, 0x9800, 0x2000, 0, "/f");
	want(&p, 4, 0xb800, 0x1800, 0x4800, "/c");
	procinfo_free(&p);
}

/* An MMAP2 record of @pid as the kernel writes it, then a sample ID of 8. */
static size_t mmap2_rec(__u8 *out, __u32 pid, __u64 addr, __u64 pgoff, const char *name)
{
	struct perfrec_mmap2 r = { 0 };
	size_t name_len = (strlen(name) + 1 + 7) / 8 * 8;

	r.header.type = PERF_RECORD_MMAP2;
	r.header.size = (__u16)(sizeof(r) + name_len + 8);
	r.pid = r.tid = pid;
	r.addr = addr;
	r.len = 0x1000;
	r.pgoff = pgoff;
	r.prot = PROT_READ | PROT_EXEC;
	memset(out, 0, r.header.size);
	memcpy(out, &r, sizeof(r));
	memcpy(out + sizeof(r), name, strlen(name));
	return r.header.size;
}

static void test_merge(void **state)
{
	struct snap_process p = { .pid = 7 }, more[2] = { { .pid = 8 }, { .pid = 9 } };
	struct perf_event_header sw = { PERF_RECORD_SWITCH, 0, sizeof(sw) + 8 };
	__u8 buf[1024] = { 0 };
	size_t n = 0;

	n += mmap2_rec(buf + n, 7, 0x7f0000001000, 0x1000, "/lib/libx.so");
	memcpy(buf + n, &sw, sizeof(sw)); /* another record, left alone */
	n += sw.size;
	n += mmap2_rec(buf + n, 9, 0x7f0000005000, 0, "/usr/bin/w");
	n += mmap2_rec(buf + n, 4, 0x7f0000009000, 0, "/not/followed");
	n += mmap2_rec(buf + n, 7, 0x7f000000a000, 0, "//anon_hugepage");
	assert_int_equal(kmaps_merge(buf, n, &p, more, 2), 3);
	assert_int_equal(p.nr_maps, 2);
	want(&p, 0, 0x7f0000001000, 0x1000, 0x1000, "/lib/libx.so");
	assert_int_equal(p.maps[0].prot, PROT_READ | PROT_EXEC);
	assert_int_equal(more[0].nr_maps, 0);
	assert_int_equal(more[1].nr_maps, 1);
	want(&more[1], 0, 0x7f0000005000, 0x1000, 0, "/usr/bin/w");
	/* a record cut off ends the walk, what came before is merged */
	procinfo_free(&p);
	p.pid = 7;
	assert_int_equal(kmaps_merge(buf, n - 8, &p, NULL, 0), 1);
	procinfo_free(&p);
	procinfo_free(&more[1]);
}

/* The MMAP2, FORK and EXIT records taken out, the others kept, in order, and whole. */
static void test_strip(void **state)
{
	struct perf_event_header sw = { PERF_RECORD_SWITCH, 0, sizeof(sw) + 8 };
	const struct perf_event_header *h;
	__u8 buf[1024] = { 0 };
	size_t n = 0, off = 0;
	int nr = 0;

	n += mmap2_rec(buf + n, 7, 0x1000, 0, "/a");
	memcpy(buf + n, &sw, sizeof(sw));
	buf[n + sizeof(sw)] = 1;
	n += sw.size;
	n += mmap2_rec(buf + n, 7, 0x2000, 0, "/b");
	n += mmap2_rec(buf + n, 7, 0x3000, 0, "/c");
	/* a FORK and an EXIT, which come with the mmap records */
	memset(buf + n, 0, 48);
	((struct perf_event_header *)(buf + n))->type = PERF_RECORD_FORK;
	((struct perf_event_header *)(buf + n))->size = 48;
	n += 48;
	memset(buf + n, 0, 48);
	((struct perf_event_header *)(buf + n))->type = PERF_RECORD_EXIT;
	((struct perf_event_header *)(buf + n))->size = 48;
	n += 48;
	sw.misc = 2;
	memcpy(buf + n, &sw, sizeof(sw));
	n += sw.size;
	kmaps_strip(buf, &n);
	assert_int_equal(n, 2 * sw.size);
	while (perfrec_next(buf, n, &off, &h) > 0) {
		assert_int_equal(h->type, PERF_RECORD_SWITCH);
		assert_int_equal(h->misc, nr ? 2 : 0);
		if (!nr)
			assert_int_equal(((const __u8 *)h)[sizeof(sw)], 1);
		nr++;
	}
	assert_int_equal(nr, 2);
	n = 0;
	kmaps_strip(buf, &n);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_strip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
