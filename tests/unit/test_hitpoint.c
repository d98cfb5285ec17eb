// SPDX-License-Identifier: GPL-2.0
/*
 * hitpoint.c, elfsym.c and snapcut.c: --trigger-on specs parsed and
 * resolved against this very binary and the libc it maps (file offsets
 * checked against /proc/self/maps: the uprobe's place is the function's
 * first byte), and a staged record stream cut at an instant.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "target/elfsym.h"
#include "snapshot/snapcut.h"
#include "target/hitpoint.h"

/* Functions of this binary with known names. */
__attribute__((noinline)) int plan_probe_target(int x)
{
	return x * 3 + 1;
}

static __attribute__((noinline)) int plan_local_target(int x)
{
	return x - 7;
}

struct parse_case {
	const char *spec;
	int ret;
	enum hitpoint_kind kind;
	const char *symbol, *object;
	uint64_t addr, offset;
};

static const struct parse_case parse_cases[] = {
	{ "leaf", 0, HITPOINT_SYMBOL, "leaf", "", 0, 0 },
	{ "malloc@libc.so.6", 0, HITPOINT_SYMBOL, "malloc", "libc.so.6", 0, 0 },
	{ "f@/opt/x/lib.so", 0, HITPOINT_SYMBOL, "f", "/opt/x/lib.so", 0, 0 },
	{ "0x401136", 0, HITPOINT_ADDR, "", "", 0x401136, 0 },
	{ "libx.so:0x1130", 0, HITPOINT_OFFSET, "", "libx.so", 0, 0x1130 },
	{ "/bin/ls:4096", 0, HITPOINT_OFFSET, "", "/bin/ls", 0, 4096 },
	{ .spec = "", .ret = -EINVAL },
	{ .spec = "@libc.so.6", .ret = -EINVAL },
	{ .spec = "malloc@", .ret = -EINVAL },
	{ .spec = "0xzz", .ret = -EINVAL },
	{ .spec = ":0x10", .ret = -EINVAL },
	{ .spec = "libx.so:", .ret = -EINVAL },
	{ .spec = "libx.so:-4", .ret = -EINVAL },
	{ .spec = "libx.so:12ab", .ret = -EINVAL },
};

static void test_parse(void **state)
{
	struct hitpoint p;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		int ret;

		memset(&p, 0xa5, sizeof(p));
		memset(err, 'x', sizeof(err));
		err[sizeof(err) - 1] = 0;
		ret = hitpoint_parse(c->spec, &p, err, sizeof(err));
		if (ret != c->ret)
			fail_msg("'%s': %d, want %d", c->spec, ret, c->ret);
		if (ret) {
			assert_non_null(strstr(err, "--trigger-on"));
			continue;
		}
		assert_ptr_equal(p.spec, c->spec);
		assert_int_equal(p.kind, c->kind);
		assert_string_equal(p.symbol, c->symbol);
		assert_string_equal(p.object, c->object);
		assert_int_equal(p.addr, c->addr);
		assert_int_equal(p.offset, c->offset);
	}
	assert_int_equal(hitpoint_parse(NULL, &p, err, sizeof(err)), -EINVAL);
}

/*
 * The file offset that /proc/self/maps says @addr (a running address of
 * this process) has in its file, and that file's path.
 */
static uint64_t maps_offset(uintptr_t addr, char *path, size_t len)
{
	unsigned long lo, hi, pgoff;
	char line[PATH_MAX + 128], file[PATH_MAX];
	uint64_t off = UINT64_MAX;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &pgoff, file) < 3)
			continue;
		if (addr >= lo && addr < hi) {
			off = addr - lo + pgoff;
			snprintf(path, len, "%s", file);
			break;
		}
	}
	fclose(f);
	return off;
}

static const struct hitpoint_where self = { "/proc", 0, NULL, NULL };

static struct hitpoint_where here(void)
{
	struct hitpoint_where w = self;

	w.pid = getpid();
	return w;
}

/* A symbol of the executable: the offset maps give its first byte. */
static void test_resolve_symbols(void **state)
{
	struct hitpoint_where w = here();
	struct hitpoint p;
	char err[512], file[PATH_MAX];
	uint64_t want;

	assert_int_equal(plan_probe_target(1) + plan_local_target(8), 5);
	assert_int_equal(hitpoint_parse("plan_probe_target", &p, err, sizeof(err)), 0);
	assert_int_equal(hitpoint_resolve(&p, &w, err, sizeof(err)), 0);
	want = maps_offset((uintptr_t)plan_probe_target, file, sizeof(file));
	assert_int_equal(p.offset, want);
	/* the executable by its own path, as the maps name it */
	assert_string_equal(p.path, file);
	/* a static function (.symtab only) too */
	assert_int_equal(hitpoint_parse("plan_local_target", &p, err, sizeof(err)), 0);
	assert_int_equal(hitpoint_resolve(&p, &w, err, sizeof(err)), 0);
	assert_int_equal(p.offset, maps_offset((uintptr_t)plan_local_target, file, sizeof(file)));
	/* 0xADDR: the ELF address elfsym found, the same place */
	{
		char spec[32];
		uint64_t off = p.offset;

		snprintf(spec, sizeof(spec), "0x%llx", (unsigned long long)p.addr);
		assert_int_equal(hitpoint_parse(spec, &p, err, sizeof(err)), 0);
		assert_int_equal(hitpoint_resolve(&p, &w, err, sizeof(err)), 0);
		assert_int_equal(p.offset, off);
	}
}

/* A library by its name, from the maps: libc's getpid. */
static void test_resolve_library(void **state)
{
	struct hitpoint_where w = here();
	struct hitpoint p;
	char err[512], file[PATH_MAX];
	uint64_t want;

	want = maps_offset((uintptr_t)getpid, file, sizeof(file));
	assert_int_not_equal(want, UINT64_MAX);
	assert_int_equal(hitpoint_parse("getpid@libc.so.6", &p, err, sizeof(err)), 0);
	assert_int_equal(hitpoint_resolve(&p, &w, err, sizeof(err)), 0);
	assert_string_equal(p.path, file);
	assert_int_equal(p.offset, want);
	/* "libc" names libc.so.6 too */
	assert_int_equal(hitpoint_parse("getpid@libc", &p, err, sizeof(err)), 0);
	assert_int_equal(hitpoint_resolve(&p, &w, err, sizeof(err)), 0);
	assert_int_equal(p.offset, want);
	/* a command not yet started: found in the library directories */
	w.pid = 0;
	w.exe = "/proc/self/exe";
	assert_int_equal(hitpoint_parse("getpid@libc.so.6", &p, err, sizeof(err)), 0);
	assert_int_equal(hitpoint_resolve(&p, &w, err, sizeof(err)), 0);
	assert_non_null(strstr(p.path, "libc.so.6"));
	assert_int_equal(p.offset, want);
}

struct bad_case {
	const char *spec;
	int ret;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{ "plan_nosuch_function", -ENOENT, "no function plan_nosuch_function" },
	/* the names it is part of are the candidates */
	{ "plan_probe_targ", -ENOENT, "similar: plan_probe_target" },
	{ "x@libnosuch", -ENOENT, "maps no file named libnosuch" },
	{ "x@/nonexistent/lib.so", -ENOENT, "no file /nonexistent/lib.so" },
	{ "0x7ffffff00000", -ERANGE, "no loaded segment" },
	{ "nosuchfn@libc.so.6", -ENOENT, "no function nosuchfn in /" },
};

static void test_resolve_errors(void **state)
{
	struct hitpoint_where w = here();
	struct hitpoint p;
	char err[512];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		assert_int_equal(hitpoint_parse(bad_cases[i].spec, &p, err, sizeof(err)), 0);
		err[0] = 0;
		ret = hitpoint_resolve(&p, &w, err, sizeof(err));
		if (ret != bad_cases[i].ret || !strstr(err, bad_cases[i].msg))
			fail_msg("'%s': %d '%s', want %d '%s'", bad_cases[i].spec, ret, err,
				 bad_cases[i].ret, bad_cases[i].msg);
	}
	w.pid = 0;
	w.exe = "no-such-command-here";
	assert_int_equal(hitpoint_parse("main", &p, err, sizeof(err)), 0);
	assert_int_equal(hitpoint_resolve(&p, &w, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "can't find no-such-command-here"));
	assert_int_equal(hitpoint_resolve(NULL, &w, err, sizeof(err)), -EINVAL);
}

static void test_elfsym(void **state)
{
	struct elfsym_match m[ELFSYM_MAX_MATCHES];
	unsigned int nr = 99;
	uint64_t off;
	char buf[64];

	assert_int_equal(
		elfsym_find("/proc/self/exe", "plan_local_target", m, ELFSYM_MAX_MATCHES, &nr), 0);
	assert_int_equal(nr, 1);
	assert_true(m[0].local);
	assert_true(m[0].size > 0);
	assert_int_equal(elfsym_addr_offset("/proc/self/exe", m[0].addr, &off), 0);
	assert_int_equal(off, m[0].offset);
	assert_int_equal(
		elfsym_find("/proc/self/exe", "no_such_fn_here", m, ELFSYM_MAX_MATCHES, &nr), 0);
	assert_int_equal(nr, 0);
	/* not ELF, not there, bad arguments */
	assert_int_equal(elfsym_find("/proc/self/maps", "x", m, 1, &nr), -ENOEXEC);
	assert_int_equal(elfsym_find("/nonexistent", "x", m, 1, &nr), -ENOENT);
	assert_int_equal(elfsym_find(NULL, "x", m, 1, &nr), -EINVAL);
	assert_int_equal(elfsym_addr_offset(NULL, 0, &off), -EINVAL);
	assert_int_equal(elfsym_similar("/proc/self/exe", "plan_probe", 4, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "plan_probe_target");
}

/* A sample record (IDENTIFIER|IP|TID|TIME|CPU) and a switch with an ID. */
#define SAMPLE_TYPE                                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU)
#define SB_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

struct sample_rec {
	struct perf_event_header h;
	__u64 id, ip;
	__u32 pid, tid;
	__u64 time;
	__u32 cpu, res;
};

struct switch_rec {
	struct perf_event_header h;
	__u32 pid, tid;
	__u64 time;
	__u32 cpu, res;
	__u64 id;
};

static size_t put_sample(__u8 *p, __u64 time, __u64 ip)
{
	struct sample_rec r = {
		.h = { PERF_RECORD_SAMPLE, 0, sizeof(r) },
		.ip = ip,
		.time = time,
	};

	memcpy(p, &r, sizeof(r));
	return sizeof(r);
}

static size_t put_switch(__u8 *p, __u64 time)
{
	struct switch_rec r = {
		.h = { PERF_RECORD_SWITCH, 0, sizeof(r) },
		.time = time,
	};

	memcpy(p, &r, sizeof(r));
	return sizeof(r);
}

static void test_cut_stream(void **state)
{
	__u8 buf[512], copy[512];
	struct snap_cut cut = { 0 };
	struct sample_rec r;
	size_t len = 0, keep;

	len += put_sample(buf + len, 100, 0x1);
	len += put_sample(buf + len, 200, 0x2);
	len += put_sample(buf + len, 350, 0x3); /* past 300 */
	len += put_sample(buf + len, 300, 0x4); /* at the hit: kept */
	len += put_sample(buf + len, 900, 0x5);
	keep = len;
	assert_int_equal(snapcut_stream(buf, &len, SAMPLE_TYPE, 1, 300, &cut), 0);
	assert_int_equal(len, 3 * sizeof(r));
	assert_int_equal(cut.records, 2);
	assert_int_equal(cut.bytes, 2 * sizeof(r));
	assert_int_equal(cut.after_hit_ns, 600);
	memcpy(&r, buf + 2 * sizeof(r), sizeof(r));
	assert_int_equal(r.ip, 0x4);
	(void)keep;

	/* switch records by their sample ID */
	memset(&cut, 0, sizeof(cut));
	len = put_switch(buf, 250);
	len += put_switch(buf + len, 301);
	assert_int_equal(snapcut_stream(buf, &len, SB_TYPE, 1, 300, &cut), 0);
	assert_int_equal(len, sizeof(struct switch_rec));
	assert_int_equal(cut.after_hit_ns, 1);

	/* a malformed stream is left as it is */
	len = put_sample(buf, 999, 0x9);
	buf[len] = 0xff; /* a header cut off */
	len += 4;
	memcpy(copy, buf, len);
	assert_int_equal(snapcut_stream(buf, &len, SAMPLE_TYPE, 1, 300, NULL), -EBADMSG);
	assert_int_equal(len, sizeof(r) + 4);
	assert_memory_equal(buf, copy, len);
	assert_int_equal(snapcut_stream(NULL, &len, SAMPLE_TYPE, 1, 0, NULL), -EINVAL);
	len = 0;
	assert_int_equal(snapcut_stream(NULL, &len, SAMPLE_TYPE, 1, 0, NULL), 0);
}

/* A snapshot of one core: trace and sideband cut at the hit. */
static void test_cut_snapshot(void **state)
{
	struct snapshot s;
	struct snap_core core;
	__u8 trace[256], sb[256];

	memset(&s, 0, sizeof(s));
	memset(&core, 0, sizeof(core));
	s.run.backend = BACKEND_SAMPLE;
	s.run.data_attr.sample_type = SAMPLE_TYPE;
	s.run.data_attr.sample_id_all = 1;
	s.run.sb_attr.sample_type = SB_TYPE;
	s.run.sb_attr.sample_id_all = 1;
	s.why.ts = 1000;
	s.nr_cores = 1;
	s.cores = &core;
	core.trace = trace;
	core.trace_len = put_sample(trace, 900, 1);
	core.trace_len += put_sample(trace + core.trace_len, 1500, 2);
	core.sideband = sb;
	core.sideband_len = put_switch(sb, 1200);
	assert_int_equal(snapcut_snapshot(&s), 0);
	assert_string_equal(s.cut.how, "time");
	assert_int_equal(s.cut.records, 2);
	assert_int_equal(s.cut.after_hit_ns, 500);
	assert_int_equal(core.trace_len, sizeof(struct sample_rec));
	assert_int_equal(core.sideband_len, 0);
	s.run.backend = BACKEND_INTEL_PT;
	assert_int_equal(snapcut_snapshot(&s), -EINVAL);
	assert_int_equal(snapcut_snapshot(NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),		cmocka_unit_test(test_resolve_symbols),
		cmocka_unit_test(test_resolve_library), cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_elfsym),		cmocka_unit_test(test_cut_stream),
		cmocka_unit_test(test_cut_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
