// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf-dump on Intel PT snapshots made here: two runs of a known path
 * (tests/ptgen.h) by two threads of this process on one core, written by
 * snapwrite like a real snapshot. Packets, instructions, symbols, the
 * summary and the timeline are asserted exactly; the instructions also
 * against `perf script --itrace=i0ns` on the same perf.data.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "insn.h"
#include "ptpkt.h"
#include "load.h"
#include "summary.h"
#include "timeline.h"
#include "json.h"
#include "jsondoc.h"
#include "ptgen.h"
#include "output/snapwrite.h"
#include "testio.h"

#define T_RUN1 1000
#define T_RUN2 3000

struct fixture {
	char dir[64], snap_dir[128];
	struct snapshot snap;
	struct snap_core core;
	uint8_t pt[512], sb[512];
	size_t garbage_at; /* where the garbage went, 0: none */
	uint64_t sb_lost; /* switch-record bytes the snapshot says were lost */
	struct snap_process *more; /* --follow: processes ptbpf.json names */
	unsigned int nr_more;
	pthread_t thread;
	uint32_t tid_a, tid_b;
	char *out, *err; /* what the code under test printed */
	size_t out_len, err_len;
	FILE *fout;
	struct dump_log log;
	struct dump_snap ds;
};

static pthread_barrier_t started;

static void *second(void *arg)
{
	uint32_t *tid = arg;

	pthread_setname_np(pthread_self(), "ptgen-b");
	*tid = (uint32_t)gettid();
	pthread_barrier_wait(&started);
	pause();
	return NULL;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/ptbpf-dump-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->snap_dir, sizeof(fx->snap_dir), "%s/snapshot-000001", fx->dir);
	fx->tid_a = (uint32_t)gettid();
	pthread_barrier_init(&started, NULL, 2);
	assert_int_equal(pthread_create(&fx->thread, NULL, second, &fx->tid_b), 0);
	pthread_barrier_wait(&started);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	pthread_cancel(fx->thread);
	pthread_join(fx->thread, NULL);
	pthread_barrier_destroy(&started);
	snap_free(&fx->ds);
	procinfo_free(&fx->snap.proc);
	if (fx->fout)
		fclose(fx->fout);
	free(fx->out);
	free(fx->err);
	if (!getenv("PTBPF_TEST_KEEP"))
		rm_tree(fx->dir);
	free(fx);
	return 0;
}

/* Thread A runs the path at T_RUN1, B at T_RUN2; @garbage between. */
static void make_snapshot(struct fixture *fx, const uint8_t *garbage, size_t glen)
{
	uint32_t pid = (uint32_t)getpid(), a = fx->tid_a, b = fx->tid_b;
	uint64_t back = (uint64_t)(uintptr_t)make_snapshot;
	struct snapwrite_opts o = { .out_dir = fx->dir, .dirfd = -1, .uid = -1, .gid = -1 };
	size_t n = 0, off;
	char err[256];

	assert_int_equal(ptgen_snapshot(&fx->snap, &fx->core), 0);
	fx->snap.more = fx->more;
	fx->snap.nr_more = fx->nr_more;
	off = ptgen_run(fx->pt, sizeof(fx->pt), 0, T_RUN1, back);
	if (glen) {
		fx->garbage_at = off;
		memcpy(fx->pt + off, garbage, glen);
		off += glen;
	}
	off = ptgen_run(fx->pt, sizeof(fx->pt), off, T_RUN2, back);
	assert_true(off > 0);
	fx->core.trace = fx->pt;
	fx->core.trace_len = off;
	fx->core.head = off;
	n += ptgen_switch(fx->sb + n, true, pid, a, 0, 0, 900);
	n += ptgen_switch(fx->sb + n, false, 0, 0, pid, a, 900);
	n += ptgen_switch(fx->sb + n, true, pid, b, pid, a, 2000);
	n += ptgen_switch(fx->sb + n, false, pid, a, pid, b, 2000);
	n += ptgen_switch(fx->sb + n, true, 0, 0, pid, b, 5000);
	n += ptgen_switch(fx->sb + n, false, pid, b, 0, 0, 5000);
	fx->core.sideband = fx->sb;
	fx->core.sideband_len = n;
	fx->core.sb_wrapped = fx->sb_lost > 0;
	fx->core.sb_lost_bytes = fx->sb_lost;
	assert_int_equal(snapwrite_snapshot(&fx->snap, &o, NULL, 0, err, sizeof(err)), 0);
}

/* Loads the snapshot; what is printed goes to fx->out, messages to err. */
static void load(struct fixture *fx)
{
	fx->log.err = open_memstream(&fx->err, &fx->err_len);
	assert_non_null(fx->log.err);
	assert_int_equal(load_snapshot(fx->snap_dir, &fx->ds, &fx->log), 0);
	fx->fout = open_memstream(&fx->out, &fx->out_len);
	assert_non_null(fx->fout);
}

static void done(struct fixture *fx)
{
	fflush(fx->fout);
	fclose(fx->log.err);
	fx->log.err = NULL;
}

static void test_packets(void **state)
{
	static const char expect[] =
		"cpu 0: %zu bytes of Intel PT from perf.data at offset 0x%llx\n"
		"00000000  psb\n"
		"00000010  tsc      0x3e8\n"
		"00000018  psbend\n"
		"0000001a  mode     exec 64-bit\n"
		"0000001c  tip.pge  0x%llx (sext48)\n"
		"00000023  tnt.8    !!\n"
		"00000024  tip.pgd  0x%llx (sext48)\n"
		"0000002b  psb\n"
		"0000003b  tsc      0xbb8\n"
		"00000043  psbend\n"
		"00000045  mode     exec 64-bit\n"
		"00000047  tip.pge  0x%llx (sext48)\n"
		"0000004e  tnt.8    !!\n"
		"0000004f  tip.pgd  0x%llx (sext48)\n";
	struct fixture *fx = *state;
	unsigned long long outer = (uintptr_t)ptgen_outer;
	unsigned long long back = (uintptr_t)make_snapshot;
	char want[2048];

	make_snapshot(fx, NULL, 0);
	load(fx);
	assert_int_equal(ptpkt_print(fx->fout, &fx->ds, &fx->ds.cores[0], &fx->log), 0);
	done(fx);
	snprintf(want, sizeof(want), expect, fx->ds.cores[0].trace_len,
		 (unsigned long long)fx->ds.cores[0].trace_off, outer, back, outer, back);
	assert_string_equal(fx->out, want);
	assert_string_equal(fx->err, "");
	assert_int_equal(fx->log.nr_errors, 0);
}

/*
 * A trace that starts inside a packet (a cyclic buffer's oldest bytes):
 * the listing says how many bytes came before the first PSB, then goes on
 * from there with the offsets of this trace.
 */
static void test_packets_head_skipped(void **state)
{
	struct fixture *fx = *state;
	struct dump_core c;
	char want[256];

	make_snapshot(fx, NULL, 0);
	load(fx);
	/* 3 bytes into the first PSB: the next whole one is run 2's */
	c = fx->ds.cores[0];
	c.trace += 3;
	c.trace_len -= 3;
	assert_int_equal(ptpkt_print(fx->fout, &fx->ds, &c, &fx->log), 0);
	done(fx);
	snprintf(want, sizeof(want),
		 "00000000  skipped: %d bytes before the first PSB\n"
		 "%08x  psb\n"
		 "%08x  tsc      0xbb8\n",
		 0x2b - 3, 0x2b - 3, 0x3b - 3);
	assert_non_null(strstr(fx->out, want));
	assert_string_equal(fx->err, "");
}

/* The expected --insn text for the two runs, with this run's addresses. */
static void insn_text(struct fixture *fx, char *buf, size_t len, bool run1)
{
	char sym[64];
	size_t n = 0;
	unsigned int r, i;

	n += snprintf(buf + n, len - n, "cpu 0: %zu bytes of Intel PT\n",
		      fx->ds.cores[0].trace_len);
	for (r = run1 ? 0 : 1; r < 2; r++) {
		n += snprintf(buf + n, len - n, "tid %u (%s) at 0.00000%d000 s:\n",
			      r ? fx->tid_b : fx->tid_a, r ? "ptgen-b" : "test_dump_pt", r ? 3 : 1);
		if (!r && fx->garbage_at)
			continue;
		/* a line names its function when the line above is in another
		 * (the first after the thread's line always) */
		for (i = 0; i < PTGEN_PATH_LEN; i++) {
			if (i && ptgen_path[i].inner == ptgen_path[i - 1].inner)
				sym[0] = '\0';
			else
				snprintf(sym, sizeof(sym), "  %s+0x%x",
					 ptgen_path[i].inner ? "ptgen_inner" : "ptgen_outer",
					 ptgen_path[i].off);
			n += snprintf(buf + n, len - n, "  %llx%s\n",
				      (unsigned long long)ptgen_ip(&ptgen_path[i]), sym);
		}
	}
}

static void decode_insn(struct fixture *fx)
{
	struct pt_image *image = pt_image_alloc(NULL);
	struct dump_symtab tab;

	assert_non_null(image);
	assert_int_equal(symtab_load(&tab, &fx->ds, image, &fx->log), 0);
	assert_int_equal(insn_print(fx->fout, &fx->ds, &fx->ds.cores[0], image, &tab, &fx->log), 0);
	symtab_free(&tab);
	pt_image_free(image);
	done(fx);
}

static void test_insn(void **state)
{
	struct fixture *fx = *state;
	char want[4096];
	size_t n;

	make_snapshot(fx, NULL, 0);
	load(fx);
	decode_insn(fx);
	insn_text(fx, want, sizeof(want), true);
	n = strlen(want);
	snprintf(want + n, sizeof(want) - n,
		 "cpu 0: 14 instructions of the target, 0 of other tasks, "
		 "0 errors\n");
	assert_string_equal(fx->out, want);
	assert_string_equal(fx->err, "");
}

/*
 * "tid ip sym" lines of --insn output @out (modified) into @buf: a line
 * without a name is in the function named above it, at an offset as much
 * further as its address.
 */
static void ours_as_lines(char *out, char *buf, size_t len)
{
	unsigned long tid, cur = 0, ip, off, base = 0;
	char sym[128], fn[128] = "", *p, *q, *plus;
	size_t n = 0;
	int got;

	buf[0] = '\0';
	for (p = out; (q = strchr(p, '\n')); p = q + 1) {
		*q = '\0';
		if (sscanf(p, "tid %lu", &tid) == 1) {
			cur = tid;
			fn[0] = '\0';
			continue;
		}
		if (strncmp(p, "  ", 2) || (got = sscanf(p, "%lx %127s", &ip, sym)) < 1)
			continue;
		if (got == 2) {
			plus = strrchr(sym, '+');
			assert_non_null(plus);
			*plus = '\0';
			assert_int_equal(sscanf(plus + 1, "0x%lx", &off), 1);
			snprintf(fn, sizeof(fn), "%s", sym);
			base = ip - off;
		}
		/* an unnamed line right after a thread's line would be a bug */
		assert_true(fn[0]);
		n += snprintf(buf + n, len - n, "%lu %lx %s+0x%lx\n", cur, ip, fn, ip - base);
	}
}

/* Our --insn, instruction for instruction, is what perf script says. */
static void test_insn_matches_perf(void **state)
{
	struct fixture *fx = *state;
	char cmd[512], mine[4096], theirs[4096], *perf, *line, *save = NULL;
	unsigned long tid, ip;
	char sym[128];
	size_t n = 0;

	make_snapshot(fx, NULL, 0);
	load(fx);
	decode_insn(fx);
	ours_as_lines(fx->out, mine, sizeof(mine));
	snprintf(cmd, sizeof(cmd),
		 "perf script --itrace=i0ns -F tid,ip,sym,symoff -i %s/perf.data"
		 " 2>/dev/null",
		 fx->snap_dir);
	perf = run_cmd(cmd);
	for (line = strtok_r(perf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(sscanf(line, "%lu %lx %127s", &tid, &ip, sym), 3);
		n += snprintf(theirs + n, sizeof(theirs) - n, "%lu %lx %s\n", tid, ip, sym);
	}
	free(perf);
	assert_string_equal(mine, theirs);
	/* both runs, each on its own thread */
	assert_int_equal(n, strlen(mine));
	assert_non_null(strstr(mine, "ptgen_inner+0x3"));
}

static void test_summary(void **state)
{
	static const char expect[] =
		"%s: snapshot 1, intel-pt, trigger stop (SIGSTOP) at "
		"0.000006000 s, pid %u (test_dump_pt)\n"
		"  cpu 0: 86 bytes, sideband 192 bytes, wrapped no, lost 0 "
		"bytes, 6 context switches\n"
		"    packets 14: psb 2, psbend 2, tip.pge 2, tip.pgd 2, tnt.8 2, "
		"mode 2, tsc 2\n"
		"    psb 2, ovf 0\n"
		"    tsc 0x3e8 .. 0xbb8 (0.000001000 s .. 0.000003000 s)\n"
		"    decodes: yes\n"
		"  span: 0.000000900 s .. 0.000005000 s (0.004 ms), ending "
		"-0.001 ms from the trigger\n";
	struct fixture *fx = *state;
	char want[1024];

	make_snapshot(fx, NULL, 0);
	load(fx);
	assert_int_equal(summary_text(fx->fout, &fx->ds, NULL, &fx->log), 0);
	done(fx);
	snprintf(want, sizeof(want), expect, fx->snap_dir, getpid());
	assert_string_equal(fx->out, want);
	assert_int_equal(fx->log.nr_errors, 0);
}

/* Overwritten switch records are shown, in text and in JSON. */
static void test_summary_switches_lost(void **state)
{
	struct fixture *fx = *state;
	struct json_object *core;
	struct json_object *root;
	struct json j;
	uint64_t v;
	bool b;

	fx->sb_lost = 4096;
	make_snapshot(fx, NULL, 0);
	load(fx);
	assert_int_equal(summary_text(fx->fout, &fx->ds, NULL, &fx->log), 0);
	json_init_dyn(&j);
	assert_int_equal(summary_json(&j, &fx->ds, NULL, &fx->log), 0);
	assert_int_equal(json_finish(&j), 0);
	done(fx);
	assert_non_null(strstr(fx->out, "6 context switches (switch records "
					"lost: 4096 bytes)\n"));
	assert_int_equal(jsondoc_parse(j.buf, j.len, &root, NULL), 0);
	json_free(&j);
	core = jsondoc_at(jsondoc_get(root, "cores"), 0);
	assert_int_equal(jsondoc_get_bool(core, "sideband_wrapped", &b), 0);
	assert_true(b);
	assert_int_equal(jsondoc_get_u64(core, "sideband_lost_bytes", &v), 0);
	assert_int_equal(v, 4096);
	jsondoc_free(root);
	assert_int_equal(fx->log.nr_errors, 0);
}

static void test_summary_json(void **state)
{
	struct fixture *fx = *state;
	struct json_object *core, *pk;
	struct json_object *root;
	struct json j;
	uint64_t v;
	bool b;

	make_snapshot(fx, NULL, 0);
	load(fx);
	json_init_dyn(&j);
	assert_int_equal(summary_json(&j, &fx->ds, NULL, &fx->log), 0);
	assert_int_equal(json_finish(&j), 0);
	done(fx);
	assert_int_equal(jsondoc_parse(j.buf, j.len, &root, NULL), 0);
	json_free(&j);
	assert_int_equal(jsondoc_get_u64(root, "pid", &v), 0);
	assert_int_equal(v, getpid());
	core = jsondoc_at(jsondoc_get(root, "cores"), 0);
	assert_non_null(core);
	assert_int_equal(jsondoc_get_u64(core, "bytes", &v), 0);
	assert_int_equal(v, 86);
	assert_int_equal(jsondoc_get_u64(core, "psb", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(jsondoc_get_u64(core, "first_time_ns", &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(jsondoc_get_u64(core, "last_time_ns", &v), 0);
	assert_int_equal(v, 3000);
	assert_int_equal(jsondoc_get_bool(core, "decodes", &b), 0);
	assert_true(b);
	pk = jsondoc_get(core, "packets");
	assert_int_equal(jsondoc_get_u64(pk, "tnt.8", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(jsondoc_len(pk), 7);
	jsondoc_free(root);
}

struct tl_want {
	const char *ph, *name;
	int tid; /* 0: thread A, 1: thread B */
	double ts;
};

/* Each slice of the timeline: B/E nested per thread, in time. */
static void test_timeline(void **state)
{
	static const struct tl_want want[] = {
		{ "B", "ptgen_outer", 0, 1.0 },
		{ "B", "ptgen_inner", 0, 1.0 },
		{ "E", "", 0, 1.0 },
		{ "E", "", 0, 1.0 },
		{ "B", "ptgen_outer", 1, 3.0 },
		{ "B", "ptgen_inner", 1, 3.0 },
		{ "E", "", 1, 3.0 },
		{ "E", "", 1, 3.0 },
		{ "i", "stop", 0, 6.0 },
	};
	static const char events[] = "{\"event\":\"stop\",\"ts\":6000,\"pid\":%u,\"tid\":%u,"
				     "\"signal\":\"SIGSTOP\"}\n"
				     "not json\n";
	struct fixture *fx = *state;
	struct pt_image *image = pt_image_alloc(NULL);
	struct json_object *evs, *e;
	struct dump_symtab tab;
	struct dump_tl tl;
	struct json_object *root;
	const char *ph, *name;
	char line[256];
	unsigned int i, k = 0, cpu_slices = 0, counters = 0, snaps = 0;
	uint64_t pid, tid;
	double ts;

	make_snapshot(fx, NULL, 0);
	load(fx);
	assert_int_equal(symtab_load(&tab, &fx->ds, image, &fx->log), 0);
	assert_int_equal(timeline_begin(&tl, fx->fout), 0);
	assert_int_equal(timeline_snapshot(&tl, &fx->ds, image, &tab, &fx->log), 0);
	snprintf(line, sizeof(line), events, getpid(), fx->tid_a);
	assert_int_equal(timeline_events(&tl, line, strlen(line), "ev.jsonl", &fx->log), 1);
	assert_int_equal(timeline_end(&tl), 0);
	symtab_free(&tab);
	pt_image_free(image);
	done(fx);
	/* the bad line is named with the offset of its bad byte (the o of
	 * "not"); the good one went in */
	snprintf(line, sizeof(line),
		 "ptbpf-dump: ev.jsonl: offset 0x%zx: not JSON: unknown "
		 "literal\n",
		 strlen(line) - strlen("ot json\n"));
	assert_string_equal(fx->err, line);
	assert_int_equal(jsondoc_parse(fx->out, fx->out_len, &root, NULL), 0);
	evs = jsondoc_get(root, "traceEvents");
	assert_non_null(evs);
	for (i = 0; (e = jsondoc_at(evs, i)); i++) {
		assert_int_equal(jsondoc_get_str(e, "ph", &ph), 0);
		assert_int_equal(jsondoc_get_str(e, "name", &name), 0);
		assert_int_equal(jsondoc_get_u64(e, "pid", &pid), 0);
		assert_int_equal(jsondoc_get_u64(e, "tid", &tid), 0);
		assert_non_null(jsondoc_get(e, "ts"));
		if (!strcmp(ph, "M"))
			continue;
		/* the core's track: who ran there, from the switch records */
		if (pid == TL_CPUS_PID) {
			assert_int_equal(tid, 0);
			assert_int_equal(jsondoc_double(jsondoc_get(e, "ts"), &ts), 0);
			if (!strcmp(ph, "B")) {
				snprintf(line, sizeof(line), " %u",
					 cpu_slices ? fx->tid_b : fx->tid_a);
				assert_non_null(strstr(name, line));
				assert_true(ts == (cpu_slices ? 2.0 : 0.9));
				cpu_slices++;
			}
			continue;
		}
		assert_int_equal(pid, getpid());
		if (!strcmp(ph, "C")) {
			counters++;
			continue;
		}
		if (!strcmp(name, "snapshot 1: stop")) {
			/* the snapshot's facts, on its process (no cause tid) */
			assert_string_equal(ph, "i");
			assert_int_equal(jsondoc_get_str(jsondoc_get(e, "args"), "signal", &name),
					 0);
			assert_string_equal(name, "SIGSTOP");
			snaps++;
			continue;
		}
		assert_true(k < sizeof(want) / sizeof(want[0]));
		assert_string_equal(ph, want[k].ph);
		assert_string_equal(name, want[k].name);
		assert_int_equal(tid, want[k].tid ? fx->tid_b : fx->tid_a);
		assert_int_equal(jsondoc_double(jsondoc_get(e, "ts"), &ts), 0);
		assert_true(ts == want[k].ts);
		k++;
	}
	assert_int_equal(k, sizeof(want) / sizeof(want[0]));
	assert_int_equal(cpu_slices, 2);
	assert_int_equal(counters, 2);
	assert_int_equal(snaps, 1);
	jsondoc_free(root);
}

/* The timeline of the snapshot into @path in format @fmt. */
static void timeline_file(struct fixture *fx, const char *path, enum tl_format fmt)
{
	static const char events[] = "{\"event\":\"stop\",\"ts\":6000,\"pid\":%u,\"tid\":%u,"
				     "\"signal\":\"SIGSTOP\",\"code\":-6,\"ok\":true}\n";
	struct pt_image *image = pt_image_alloc(NULL);
	struct dump_symtab tab;
	struct dump_tl tl;
	char line[256];
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(symtab_load(&tab, &fx->ds, image, &fx->log), 0);
	assert_int_equal(timeline_begin_fmt(&tl, f, fmt), 0);
	assert_int_equal(timeline_snapshot(&tl, &fx->ds, image, &tab, &fx->log), 0);
	snprintf(line, sizeof(line), events, getpid(), fx->tid_b);
	assert_int_equal(timeline_events(&tl, line, strlen(line), "ev.jsonl", &fx->log), 1);
	/* an event before the last on its sequence: time does go back there */
	snprintf(line, sizeof(line), "{\"event\":\"resume\",\"ts\":5500,\"pid\":%u}\n", getpid());
	assert_int_equal(timeline_events(&tl, line, strlen(line), "ev.jsonl", &fx->log), 1);
	assert_int_equal(timeline_end(&tl), 0);
	assert_int_equal(fclose(f), 0);
	symtab_free(&tab);
	pt_image_free(image);
}

/*
 * The Perfetto timeline: protoc decodes it with the checked-in schema
 * (upstream's field numbers); each track described before its events,
 * names interned on their sequence, slices nested in order also where
 * calls share a timestamp (each run's calls are within one timing
 * packet), and the same events as the JSON timeline.
 */
static void test_timeline_perfetto(void **state)
{
	static struct snap_thread worker_threads[] = { { 4242, "worker" }, { 4243, "worker-io" } };
	static struct snap_process worker = {
		.pid = 4242, .comm = "worker", .nr_threads = 2, .threads = worker_threads
	};
	struct fixture *fx = *state;
	char pf[160], js[160], cmd[1024], *o;
	struct stat st_pf, st_js;

	/* a followed process, with a thread that has no events: tracks */
	fx->more = &worker;
	fx->nr_more = 1;
	make_snapshot(fx, NULL, 0);
	load(fx);
	/* the clock pair ptbpf.json has of a real run: a ClockSnapshot */
	fx->ds.realtime_ns = 1700000000000000000ULL;
	fx->ds.monotonic_ns = 5000;
	snprintf(pf, sizeof(pf), "%s/tl.pftrace", fx->dir);
	snprintf(js, sizeof(js), "%s/tl.json", fx->dir);
	timeline_file(fx, pf, TL_FORMAT_PERFETTO);
	timeline_file(fx, js, TL_FORMAT_JSON);
	done(fx);
	assert_string_equal(fx->err, "");
	assert_int_equal(timeline_format_of(pf), TL_FORMAT_PERFETTO);
	assert_int_equal(timeline_format_of("x.perfetto-trace"), TL_FORMAT_PERFETTO);
	assert_int_equal(timeline_format_of(js), TL_FORMAT_JSON);
	snprintf(cmd, sizeof(cmd),
		 "protoc --decode=perfetto.protos.Trace -Itests tests/perfetto_trace.proto "
		 "<%s >%s.txt && python3 tests/pf_check.py %s.txt --same-as %s "
		 "--want-threads %u:%u,%u:%u,4242:4242,4242:4243 2>&1",
		 pf, pf, pf, js, getpid(), fx->tid_a, getpid(), fx->tid_b);
	o = run_cmd(cmd);
	/* tracks: the process, its 2 threads, the followed one and its 2,
	 * CPUs, cpu 0, 2 counters; slices: 4 calls and the core's 2 runs;
	 * instants: the snapshot's and the 2 events' */
	assert_string_equal(o, "packets 31 tracks 10 slices 6 maxdepth 2 instants 3 "
			       "counters 2 clocks 1\n");
	free(o);
	/* times are deltas on each sequence's clock; the event back in time
	 * names CLOCK_MONOTONIC and is absolute (the same time as the JSON's,
	 * pf_check.py said) */
	snprintf(cmd, sizeof(cmd), "grep -c 'timestamp_clock_id: 3$' %s.txt", pf);
	o = run_cmd(cmd);
	assert_string_equal(o, "1\n");
	free(o);
	assert_int_equal(stat(pf, &st_pf), 0);
	assert_int_equal(stat(js, &st_js), 0);
	assert_true(st_pf.st_size < st_js.st_size);
}

/*
 * A call's name is known by its address while the snapshot's table lives:
 * the next snapshot's table may hold another name at the same address
 * (the last one freed), and that slice is named by its own text.
 */
static void test_timeline_call_names(void **state)
{
	struct fixture *fx = *state;
	struct tl_track t = { TL_THREAD, 4242, 4243 };
	char name[16], pf[160], cmd[1024], *o;
	struct tl_writer w;
	FILE *f;

	snprintf(pf, sizeof(pf), "%s/calls.pftrace", fx->dir);
	f = fopen(pf, "w");
	assert_non_null(f);
	assert_int_equal(tlpf_open(&w, f), 0);
	w.ops->thread(&w, 4242, 4243, "worker");
	w.ops->sequence(&w, 1);
	strcpy(name, "alpha");
	w.ops->begin_call(&w, &t, 1000, name);
	w.ops->end_slice(&w, &t, 2000, NULL);
	w.ops->begin_call(&w, &t, 3000, name);
	w.ops->end_slice(&w, &t, 4000, NULL);
	w.names_epoch++; /* a new snapshot: its table's names */
	strcpy(name, "beta");
	w.ops->begin_call(&w, &t, 5000, name);
	w.ops->end_slice(&w, &t, 6000, NULL);
	assert_int_equal(w.ops->end(&w), 0);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd),
		 "protoc --decode=perfetto.protos.Trace -Itests tests/perfetto_trace.proto "
		 "<%s >%s.txt && python3 tests/pf_check.py %s.txt --json %s.json && "
		 "python3 -c 'import json,sys; print(\" \".join(e[\"name\"] for e in "
		 "json.load(open(sys.argv[1]))[\"traceEvents\"] if e[\"ph\"] == \"B\"))' "
		 "%s.json 2>&1",
		 pf, pf, pf, pf, pf);
	o = run_cmd(cmd);
	assert_string_equal(o, "packets 9 tracks 2 slices 3 maxdepth 1 instants 0 counters 0 "
			       "clocks 0\nalpha alpha beta\n");
	free(o);
}

/*
 * Garbage between the runs: the packet listing says where and why, and
 * picks up at the second PSB; --insn shows the error in place and still
 * decodes the second run; both name the file and offset on stderr.
 */
static void test_garbage_resyncs(void **state)
{
	static const uint8_t garbage[] = { 0x02, 0xff, 0x02, 0xff };
	struct fixture *fx = *state;
	unsigned long long off;
	char want[4096], msg[256];
	size_t n;

	make_snapshot(fx, garbage, sizeof(garbage));
	load(fx);
	off = fx->ds.cores[0].trace_off + fx->garbage_at;
	assert_int_equal(ptpkt_print(fx->fout, &fx->ds, &fx->ds.cores[0], &fx->log), 0);
	done(fx);
	snprintf(want, sizeof(want),
		 "%08zx  error: unknown opcode\n"
		 "%08zx  resync: next PSB, %zu bytes skipped\n"
		 "%08zx  psb\n",
		 fx->garbage_at, fx->garbage_at + sizeof(garbage), sizeof(garbage),
		 fx->garbage_at + sizeof(garbage));
	assert_non_null(strstr(fx->out, want));
	snprintf(msg, sizeof(msg),
		 "ptbpf-dump: perf.data: offset 0x%llx: cpu 0 trace offset "
		 "0x%zx: unknown opcode\n",
		 off, fx->garbage_at);
	assert_string_equal(fx->err, msg);
	assert_int_equal(fx->log.nr_errors, 1);

	/* --insn: the first run is whole, the error in place, the second */
	fclose(fx->fout);
	free(fx->out);
	free(fx->err);
	fx->out = fx->err = NULL;
	snap_free(&fx->ds);
	load(fx);
	decode_insn(fx);
	snprintf(want, sizeof(want),
		 "  error at trace offset 0x%zx: unknown opcode; resync at "
		 "0x%zx\ntid %u (ptgen-b) at 0.000003000 s:\n",
		 fx->garbage_at, fx->garbage_at + sizeof(garbage), fx->tid_b);
	assert_non_null(strstr(fx->out, want));
	/*
	 * libipt's query decoder reads a packet ahead: it meets the garbage
	 * before the block decoder gives out the first run's last
	 * instruction (where the return went is in the trace after it).
	 */
	n = strlen(fx->out);
	snprintf(want, sizeof(want), "  %llx  ptgen_inner+0x0\n  %llx\n  error at",
		 (unsigned long long)ptgen_ip(&ptgen_path[4]),
		 (unsigned long long)ptgen_ip(&ptgen_path[5]));
	assert_non_null(strstr(fx->out, want));
	assert_non_null(strstr(fx->out, "cpu 0: 13 instructions of the "
					"target, 0 of other tasks, 1 errors\n"));
	assert_true(n > 0);
	assert_string_equal(fx->err, msg);
}

/* One packet as a line: offset, size, kind and payload text. */
static size_t pkt_line(char *buf, size_t len, uint64_t off, const struct pt_packet *pkt)
{
	char pl[160];

	return (size_t)snprintf(buf, len, "%llx %u %s %s\n", (unsigned long long)off, pkt->size,
				ptpkt_kind_name(pkt->type), ptpkt_payload(pkt, pl, sizeof(pl)));
}

struct pkt_list {
	char *buf;
	size_t len, cap;
};

static void list_pkt(void *ctx, uint64_t off, const struct pt_packet *pkt, uint32_t id)
{
	struct pkt_list *l = ctx;

	(void)id;
	l->len += pkt_line(l->buf + l->len, l->cap - l->len, off, pkt);
	assert_true(l->len < l->cap);
}

static void list_err(void *ctx, uint64_t off, const char *why, uint64_t resync)
{
	struct pkt_list *l = ctx;

	l->len += (size_t)snprintf(l->buf + l->len, l->cap - l->len, "%llx error %s, on at %llx\n",
				   (unsigned long long)off, why, (unsigned long long)resync);
	assert_true(l->len < l->cap);
}

static void enc_pkt(struct pt_encoder *e, enum pt_packet_type type, uint64_t v, int x)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	switch (type) {
	case ppt_tnt_8:
		p.payload.tnt.bit_size = (uint8_t)(1 + x % 6);
		p.payload.tnt.payload = v & ((1u << p.payload.tnt.bit_size) - 1);
		break;
	case ppt_tip:
	case ppt_fup:
		p.payload.ip.ipc = x ? pt_ipc_update_16 : pt_ipc_sext_48;
		p.payload.ip.ip = v;
		break;
	case ppt_mtc:
		p.payload.mtc.ctc = (uint8_t)v;
		break;
	case ppt_cyc:
		p.payload.cyc.value = v;
		break;
	case ppt_tsc:
		p.payload.tsc.tsc = v;
		break;
	case ppt_ptw:
		p.payload.ptw.plc = 1; /* 8 bytes: a 10-byte packet */
		p.payload.ptw.payload = v;
		break;
	default:
		break;
	}
	assert_true(pt_enc_next(e, &p) > 0);
}

/*
 * ptpkt_scan() takes packets whose bytes it met before from its memo, not
 * from libipt: what it gives must be what libipt's own loop gives, packet
 * for packet, errors and resyncs included, on a stream of repeating and
 * varying packets (CYC of every length, TIPs with many payloads, PTWs
 * that differ only past their eighth byte), garbage
 * in places and a packet cut at the end.
 */
static void test_packets_memo_agrees(void **state)
{
	static const uint8_t garbage[] = { 0x02, 0xff, 0x02, 0xff };
	size_t cap = 8 << 20, blen = 1 << 20, len = 0;
	struct pkt_list ours = { malloc(cap), 0, cap }, libs = { malloc(cap), 0, cap };
	uint8_t *buf = malloc(blen);
	struct pt_packet_decoder *d;
	struct dump_pt_stats st;
	struct pt_packet pkt;
	struct pt_encoder *e;
	struct pt_config cfg;
	uint64_t off, end;
	const char *why;
	unsigned int i;
	int ret;

	(void)state;
	assert_non_null(ours.buf);
	assert_non_null(libs.buf);
	assert_non_null(buf);
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + blen;
	for (i = 0; i < 20000; i++) {
		e = pt_alloc_encoder(&cfg);
		assert_non_null(e);
		assert_int_equal(pt_enc_sync_set(e, len), 0);
		if (i % 500 == 0) {
			enc_pkt(e, ppt_psb, 0, 0);
			enc_pkt(e, ppt_tsc, 1000 + i, 0);
			enc_pkt(e, ppt_fup, 0x7f0000001000ULL + i, 0);
			enc_pkt(e, ppt_psbend, 0, 0);
		}
		enc_pkt(e, ppt_tnt_8, i * 7, (int)i);
		enc_pkt(e, ppt_tip, 0x7f0000001000ULL + (i * 37) % 700, 1);
		enc_pkt(e, ppt_mtc, i % 256, 0);
		enc_pkt(e, ppt_cyc, (i * 7919ULL) % (1ULL << (1 + i % 30)), 0);
		/* past 8 bytes, a payload that differs only there */
		if (i % 3 == 0)
			enc_pkt(e, ppt_ptw, (uint64_t)(i % 7) << 56 | 0x1234, 0);
		pt_enc_get_offset(e, &off);
		pt_free_encoder(e);
		len = off;
		/* garbage now and then: an error, then on at the next PSB */
		if (i % 1700 == 1699) {
			memcpy(buf + len, garbage, sizeof(garbage));
			len += sizeof(garbage);
		}
	}
	/* a TSC cut short at the end */
	buf[len++] = 0x19;
	buf[len++] = 0x01;
	cfg.end = buf + len;

	assert_int_equal(ptpkt_scan(&cfg, &st, list_pkt, list_err, &ours), 0);
	assert_true(st.errors > 10);

	/* libipt alone, every packet decoded */
	d = pt_pkt_alloc_decoder(&cfg);
	assert_non_null(d);
	assert_int_equal(pt_pkt_sync_forward(d), 0);
	for (;;) {
		pt_pkt_get_offset(d, &off);
		ret = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (ret == -pte_eos)
			break;
		if (ret >= 0) {
			libs.len += pkt_line(libs.buf + libs.len, libs.cap - libs.len, off, &pkt);
			continue;
		}
		why = pt_errstr(pt_errcode(ret));
		ret = pt_pkt_sync_forward(d);
		end = len;
		if (ret >= 0)
			pt_pkt_get_sync_offset(d, &end);
		list_err(&libs, off, why, end);
		if (ret < 0)
			break;
	}
	pt_pkt_free_decoder(d);
	assert_true(libs.len > 100000);
	assert_int_equal(ours.len, libs.len);
	assert_memory_equal(ours.buf, libs.buf, libs.len);
	free(ours.buf);
	free(libs.buf);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_packets, setup, teardown),
		cmocka_unit_test(test_packets_memo_agrees),
		cmocka_unit_test_setup_teardown(test_packets_head_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_insn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_insn_matches_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_switches_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeline_perfetto, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeline_call_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_resyncs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
