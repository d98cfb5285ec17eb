// SPDX-License-Identifier: GPL-2.0
/*
 * The keys the two programs share (tools/format/snapkeys.h), end to end:
 * a snapshot with every shared fact set to a value of its own is written
 * as ptbpf.json and trace.json by the tracer's writers (ptbpfjson.c,
 * bundle.c, snapjson.c) and read back by the reader's parser
 * (tools/dump/snap.c), without a complaint, each fact where it started. A key one side spells
 * differently reads back as missing or 0.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "output/bundle.h"
#include "output/ptbpfjson.h"
#include "snapparse.h"
#include "snapfmt.h"
#include "output/snapwrite.h"
#include "proc/vdso.h"

struct fixture {
	struct snapshot s;
	struct snap_core cores[2];
	struct snap_thread threads[2], more_threads[1];
	struct snap_map maps[3];
	struct vdso_image vdso;
	struct snap_process more[1];
	__u8 stack[8];
};

/* Every fact ptbpf.json shares with the reader, each a value of its own. */
static void fill(struct fixture *fx)
{
	struct snapshot *s = &fx->s;

	memset(fx, 0, sizeof(*fx));
	s->id = 42;
	s->run.backend = BACKEND_INTEL_PT;
	s->run.pid = 1000;
	s->run.full = true;
	s->run.run_start_ns = 123456789;
	s->run.data_attr.config = 0x2001;
	s->run.conv = (struct snap_tsc_conv){ true, 7, 11, 13 };
	strcpy(s->run.cpu_info.vendor, "GenuineIntel");
	s->run.cpu_info.family = 6;
	s->run.cpu_info.model = 142;
	s->run.cpu_info.stepping = 10;
	s->run.cpu_info.mtc = true;
	s->run.cpu_info.mtc_freq = 3;
	s->run.cpu_info.tsc_ctc_ratio_n = 200;
	s->run.cpu_info.tsc_ctc_ratio_d = 2;
	s->run.cpu_info.max_nonturbo_ratio = 21;
	s->why = (struct snap_cause){
		.kind = SNAPCAUSE_FATAL,
		.ts = 5555,
		.sig = 11,
		.tid = 1003,
		.stop_kind = "signal_delivery",
		.has_si_code = true,
		.si_code = -6,
		.ip = 0x401234,
		.has_addr = true,
		.addr = 0xdead0,
		.folded = 2,
		.folded_hits = 3,
		.pid = 2000,
	};
	s->realtime_ns = 1700000000000000000ULL;
	s->monotonic_ns = 987654321;
	s->crash = (struct snap_crash){
		.valid = true,
		.pid = 2000,
		.tid = 1003,
		.sig = 11,
		.at = "delivery",
		.ts = 5550,
		.sp = 0x7ffe0000,
		.stack_len = sizeof(fx->stack),
		.stack_want = 8192,
		.cost_ns = 4321,
		.stack = fx->stack,
	};
	fx->cores[0] = (struct snap_core){
		.cpu = 1,
		.trace_len = 100,
		.sideband_len = 200,
		.wrapped = true,
		.lost_bytes = 300,
		.sb_wrapped = true,
		.sb_lost_bytes = 400,
		.aux_truncated = 5,
		.aux_collision = 6,
		.aux_partial = 7,
		.ptrec_lost = 8,
	};
	fx->cores[1] = (struct snap_core){ .cpu = 3, .trace_len = 9 };
	s->nr_cores = 2;
	s->cores = fx->cores;
	s->proc.pid = 1000;
	strcpy(s->proc.comm, "target");
	fx->threads[0] = (struct snap_thread){ 1000, "target" };
	fx->threads[1] = (struct snap_thread){ 1001, "worker" };
	s->proc.threads = fx->threads;
	s->proc.nr_threads = 2;
	fx->maps[0] = (struct snap_map){ .start = 0x400000,
					 .len = 0x1000,
					 .prot = PROT_READ | PROT_EXEC,
					 .path = "/usr/bin/target" };
	fx->maps[1] = (struct snap_map){ .start = 0x7f0000001000,
					 .len = 0x2000,
					 .pgoff = 0x1000,
					 .prot = PROT_READ | PROT_EXEC,
					 .path = "/usr/lib/libc.so.6" };
	fx->maps[2] = (struct snap_map){
		.start = 0x7ffd1000, .len = 0x2000, .prot = PROT_READ | PROT_EXEC, .path = "[vdso]"
	};
	s->proc.maps = fx->maps;
	s->proc.nr_maps = 3;
	/* the target's [vdso] is the image saved; the child's is not */
	fx->vdso = (struct vdso_image){ .data = fx->stack, .len = 6752, .addr = 0x7ffd1000 };
	s->run.vdso = &fx->vdso;
	s->proc.vdso = SNAP_VDSO_NATIVE;
	fx->more[0].pid = 2000;
	strcpy(fx->more[0].comm, "child");
	fx->more_threads[0] = (struct snap_thread){ 1003, "child-t" };
	fx->more[0].threads = fx->more_threads;
	fx->more[0].nr_threads = 1;
	fx->more[0].vdso = SNAP_VDSO_OTHER;
	s->more = fx->more;
	s->nr_more = 1;
}

static void test_ptbpf_json_round_trip(void **state)
{
	struct dump_log log = { stderr, 0 };
	struct ptbpfjson_file files[2];
	struct ptbpfjson_dir dir;
	struct dump_snap d;
	struct fixture fx;
	struct json j;
	const struct dump_proc *pr;
	const struct dump_core *c;

	fill(&fx);
	assert_int_equal(snapwrite_nr_formats, 2);
	snapwrite_contents(&fx.s, SNAPWRITE_ALL, files, &dir);
	json_init_dyn(&j);
	assert_int_equal(ptbpfjson_build(&fx.s, &dir, &j), 0);
	memset(&d, 0, sizeof(d));
	assert_int_equal(snap_parse_meta(&d, j.buf, j.len, "ptbpf.json", &log), 0);
	json_free(&j);
	assert_int_equal(log.nr_errors, 0);

	assert_int_equal(d.id, 42);
	assert_int_equal(d.backend, BACKEND_INTEL_PT);
	assert_true(d.full);
	assert_int_equal(d.run_start_ns, 123456789);
	assert_int_equal(d.run_pid, 1000);
	/* read as the process the cause was in, one the run followed */
	assert_int_equal(d.cause_pid, 2000);
	assert_int_equal(d.pid, 2000);
	assert_string_equal(d.cause, "fatal");
	assert_int_equal(d.cause_kind, SNAPCAUSE_FATAL);
	assert_string_equal(d.signal, "SIGSEGV");
	assert_int_equal(d.cause_ts, 5555);
	assert_int_equal(d.cause_tid, 1003);
	assert_string_equal(d.stop_kind, "signal_delivery");
	assert_true(d.has_si_code);
	assert_int_equal(d.si_code, -6);
	assert_int_equal(d.ip, 0x401234);
	assert_true(d.has_addr);
	assert_int_equal(d.addr, 0xdead0);
	assert_int_equal(d.folded_stops, 2);
	assert_int_equal(d.folded_hits, 3);
	assert_int_equal(d.realtime_ns, 1700000000000000000ULL);
	assert_int_equal(d.monotonic_ns, 987654321);
	assert_string_equal(d.crash_at, "delivery");
	assert_int_equal(d.crash_capture_ns, 4321);
	assert_int_equal(d.crash_stack_asked, 8192);

	assert_true(d.conv.valid);
	assert_int_equal(d.conv.time_shift, 7);
	assert_int_equal(d.conv.time_mult, 11);
	assert_int_equal(d.conv.time_zero, 13);
	assert_string_equal(d.cpu.vendor, "GenuineIntel");
	assert_int_equal(d.cpu.family, 6);
	assert_int_equal(d.cpu.model, 142);
	assert_int_equal(d.cpu.stepping, 10);
	assert_int_equal(d.cpu.mtc_freq, 3);
	assert_int_equal(d.cpu.tsc_ctc_ratio_n, 200);
	assert_int_equal(d.cpu.tsc_ctc_ratio_d, 2);
	assert_int_equal(d.cpu.max_nonturbo_ratio, 21);
	assert_int_equal(d.pt_config, 0x2001);

	assert_int_equal(d.nr_cores, 2);
	c = &d.cores[0];
	assert_int_equal(c->cpu, 1);
	assert_true(c->in_meta);
	assert_int_equal(c->bytes, 100);
	assert_int_equal(c->sideband_bytes, 200);
	assert_true(c->wrapped);
	assert_int_equal(c->lost_bytes, 300);
	assert_true(c->sb_wrapped);
	assert_int_equal(c->sb_lost_bytes, 400);
	assert_int_equal(c->aux_truncated, 5);
	assert_int_equal(c->aux_collision, 6);
	assert_int_equal(c->aux_partial, 7);
	assert_int_equal(c->aux_records_lost, 8);
	assert_int_equal(d.cores[1].cpu, 3);
	assert_int_equal(d.cores[1].bytes, 9);

	pr = snap_proc_find(&d, 1000);
	assert_non_null(pr);
	assert_string_equal(pr->comm, "target");
	assert_int_equal(pr->nr_threads, 2);
	assert_int_equal(pr->threads[1].tid, 1001);
	assert_string_equal(pr->threads[1].comm, "worker");
	assert_true(d.vdso_saved);
	assert_int_equal(d.vdso_bytes, 6752);
	assert_string_equal(pr->vdso, SNAPFMT_VDSO);
	/* read as the child, whose [vdso] is another ABI's: why, not the file */
	assert_true(d.vdso[0] && strcmp(d.vdso, SNAPFMT_VDSO));
	assert_int_equal(d.nr_followed, 1);
	assert_int_equal(d.followed[0], 2000);
	assert_string_equal(d.comm, "child");
	assert_int_equal(d.nr_threads, 1);
	assert_int_equal(d.threads[0].tid, 1003);
	assert_string_equal(d.threads[0].comm, "child-t");
	snap_free(&d);
}

static void test_trace_json_round_trip(void **state)
{
	struct dump_log log = { stderr, 0 };
	struct snap_trace_cpus cpus;
	struct dump_snap d;
	struct fixture fx;
	struct json j;

	fill(&fx);
	json_init_dyn(&j);
	assert_int_equal(bundle_trace_json(&fx.s, snapwrite_vdso_saved(&fx.s), &j), 0);
	memset(&d, 0, sizeof(d));
	d.pid = 1000;
	assert_int_equal(snap_parse_trace_json(&d, j.buf, j.len, "trace.json", &log, &cpus), 0);
	json_free(&j);
	assert_int_equal(log.nr_errors, 0);

	assert_int_equal(d.nr_modules, 2);
	assert_string_equal(d.modules[0].path, "/usr/bin/target");
	assert_int_equal(d.modules[0].load, 0x400000);
	assert_string_equal(d.modules[1].path, "/usr/lib/libc.so.6");
	assert_int_equal(d.modules[1].load, 0x7f0000000000);
	/* the saved [vdso]: a range of the reader's, the image's to fill */
	assert_int_equal(d.nr_ranges, 1);
	assert_string_equal(d.ranges[0].name, "[vdso]");
	assert_int_equal(d.ranges[0].start, 0x7ffd1000);
	assert_int_equal(cpus.nr, 2);
	assert_int_equal(cpus.cpu[1].cpu, 3);
	assert_string_equal(cpus.cpu[1].ipt, "cpus/3.intelpt_trace");
	assert_string_equal(cpus.cpu[1].sw, "cpus/3.perf_context_switch_trace");
	snap_trace_cpus_free(&cpus);
	snap_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptbpf_json_round_trip),
		cmocka_unit_test(test_trace_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
