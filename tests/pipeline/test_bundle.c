// SPDX-License-Identifier: GPL-2.0
/*
 * trace.json (bundle.c) and ptbpf.json (ptbpfjson.c) tests. trace.json is
 * checked against the intel-pt bundle schema that `lldb-19 -b -o "trace
 * schema intel-pt"` prints: the field list below is hard-coded from that
 * output (LLDB 19.1.7) and, when lldb-19 is installed, the test checks that
 * every field name is still in what it prints. Every file must parse with
 * Python's json module; odd paths from /proc/PID/maps must come back byte
 * for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sys/mman.h>

#include "output/bundle.h"
#include "output/ptbpfjson.h"
#include "output/snapwrite.h"
#include "lldb_schema.h"
#include "proc/vdso.h"
#include "perfrec.h"
#include "testio.h"

/* Odd but real paths: quote, backslash, tab, \012 as the kernel writes a
 * newline, a lone 0xff byte, UTF-8, a space. */
static const char *const odd_paths[] = {
	"/opt/a \"quoted\" dir/lib.so",
	"/opt/back\\slash/t\tab.so",
	"/opt/new\\012line.so",
	"/opt/bad\xff"
	"byte.so",
	"/opt/\xc3\xa9t\xc3\xa9.so",
	"[vdso]",
};
#define NR_ODD (sizeof(odd_paths) / sizeof(odd_paths[0]))

/* What Python decodes: an invalid byte comes back as U+FFFD, and LLDB's
 * schema takes no systemPath_hex. */
static const char odd_expected[] = "[\"/opt/a \\\"quoted\\\" dir/lib.so\", "
				   "\"/opt/back\\\\slash/t\\tab.so\", \"/opt/new\\\\012line.so\", "
				   "\"/opt/bad\\ufffdbyte.so\", \"/opt/\\u00e9t\\u00e9.so\"]\n";

struct fixture {
	char dir[64];
	struct snapshot snap;
	struct snap_core core[2];
	struct snap_thread thr[2];
	struct snap_map maps[NR_ODD + 1];
	__u8 sb[256];
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct snapshot *s;
	unsigned int i;

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/ptbpf-bundle-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	s = &fx->snap;
	s->id = 3;
	s->run.backend = BACKEND_INTEL_PT;
	s->why.kind = SNAPCAUSE_FATAL;
	s->why.sig = 11;
	s->why.ts = 123456789;
	s->run.pid = 100;
	s->run.data_attr.type = 8;
	s->run.data_attr.config = (1ULL << 10) | (1ULL << 9) | (3ULL << 14);
	s->run.sb_attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	s->run.sb_attr.sample_id_all = 1;
	s->run.conv.valid = true;
	s->run.conv.time_mult = 123;
	s->run.conv.time_shift = 31;
	s->run.conv.time_zero = 0xfffffffff0000000ULL;
	strcpy(s->run.cpu_info.vendor, "GenuineIntel");
	s->run.cpu_info.family = 6;
	s->run.cpu_info.model = 142;
	s->run.cpu_info.stepping = 10;
	s->run.cpu_info.tsc_ctc_ratio_n = 216;
	s->run.cpu_info.tsc_ctc_ratio_d = 2;
	s->run.cpu_info.max_nonturbo_ratio = 21;
	/* what pmu_cpu_info() reads back from that config */
	s->run.cpu_info.mtc = true;
	s->run.cpu_info.mtc_freq = 3;
	for (i = 0; i < 2; i++) {
		fx->core[i].cpu = (int)i + 4;
		fx->core[i].trace_len = 100 * (i + 1);
		fx->core[i].wrapped = i == 1;
		fx->core[i].lost_bytes = i * 4096;
		fx->thr[i].tid = 100 + i;
		strcpy(fx->thr[i].comm, i ? "worker \"1\"" : "main");
	}
	s->nr_cores = 2;
	s->cores = fx->core;
	s->proc.pid = 100;
	strcpy(s->proc.comm, "main");
	s->proc.exe = "/usr/bin/true";
	s->proc.nr_threads = 2;
	s->proc.threads = fx->thr;
	for (i = 0; i < NR_ODD; i++) {
		fx->maps[i].start = 0x7f0000001000ULL + i * 0x10000;
		fx->maps[i].pgoff = 0x1000;
		fx->maps[i].prot = PROT_READ | PROT_EXEC;
		fx->maps[i].path = (char *)odd_paths[i];
	}
	/* a second mapping of the first file, lower: its load address wins */
	fx->maps[NR_ODD] = fx->maps[0];
	fx->maps[NR_ODD].start = 0x7e0000002000ULL;
	fx->maps[NR_ODD].pgoff = 0x2000;
	fx->maps[NR_ODD].prot = PROT_READ; /* its data: still the module's */
	s->proc.nr_maps = NR_ODD + 1;
	s->proc.maps = fx->maps;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

static void save(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static void test_trace_json_schema(void **state)
{
	static const char *const bad[] = {
		"{\"type\":\"intel-pt\",\"cpuInfo\":{\"vendor\":\"unknown\","
		"\"family\":6,\"model\":1,\"stepping\":1},\"extra\":1}",
		"{\"type\":\"intel-pt\",\"cpuInfo\":{\"vendor\":\"unknown\","
		"\"family\":\"6\",\"model\":1,\"stepping\":1}}",
	};
	struct fixture *fx = *state;
	unsigned int i;
	char py[128], js[128], lldb[128], cmd[512], *out;
	struct json j;

	memset(&j, 0xa5, sizeof(j));
	json_init_dyn(&j);
	assert_int_equal(bundle_trace_json(&fx->snap, snapwrite_vdso_saved(&fx->snap), &j), 0);
	snprintf(js, sizeof(js), "%s/trace.json", fx->dir);
	save(js, j.buf, j.len);
	json_free(&j);
	assert_int_equal(lldb_schema_write(fx->dir, py, sizeof(py), lldb, sizeof(lldb)), 0);
	snprintf(cmd, sizeof(cmd), "python3 %s %s %s", py, js, lldb);
	out = run_cmd(cmd);
	assert_string_equal(out, odd_expected);
	free(out);
	/* the checker itself rejects an unknown field and a wrong type */
	for (i = 0; i < 2; i++) {
		save(js, bad[i], strlen(bad[i]));
		snprintf(cmd, sizeof(cmd), "python3 %s %s 2>/dev/null", py, js);
		assert_int_not_equal(system(cmd), 0);
	}
}

/*
 * A [vdso] ptbpf saved the image of: a module of the schema's, its
 * "file" the image in the bundle, loaded at the mapping's start.
 */
static void test_trace_json_vdso(void **state)
{
	struct fixture *fx = *state;
	char py[128], js[128], lldb[128], cmd[512], want[64], *out;
	struct vdso_image img = { .data = fx->sb, .len = sizeof(fx->sb) };
	struct json j;

	fx->snap.run.vdso = &img;
	fx->snap.proc.vdso = SNAP_VDSO_NATIVE;
	json_init_dyn(&j);
	assert_int_equal(bundle_trace_json(&fx->snap, snapwrite_vdso_saved(&fx->snap), &j), 0);
	snprintf(want, sizeof(want), "\"loadAddress\":\"0x%llx\"",
		 (unsigned long long)fx->maps[NR_ODD - 1].start);
	if (!strstr(j.buf, "{\"systemPath\":\"[vdso]\",\"file\":\"vdso.so\",") ||
	    !strstr(j.buf, want))
		fail_msg("no [vdso] module of vdso.so at %s in %s", want, j.buf);
	snprintf(js, sizeof(js), "%s/trace.json", fx->dir);
	save(js, j.buf, j.len);
	json_free(&j);
	assert_int_equal(lldb_schema_write(fx->dir, py, sizeof(py), lldb, sizeof(lldb)), 0);
	snprintf(cmd, sizeof(cmd), "python3 %s %s %s", py, js, lldb);
	out = run_cmd(cmd);
	snprintf(want, sizeof(want), ", \"[vdso]\"]\n");
	assert_memory_equal(out, odd_expected, strlen(odd_expected) - 2);
	assert_string_equal(out + strlen(odd_expected) - 2, want);
	free(out);
}

static void test_trace_json_values(void **state)
{
	struct fixture *fx = *state;
	struct json j;

	json_init_dyn(&j);
	assert_int_equal(bundle_trace_json(&fx->snap, snapwrite_vdso_saved(&fx->snap), &j), 0);
	/* paths relative to the bundle, the load address of the lowest map */
	assert_non_null(strstr(j.buf, "{\"id\":5,\"iptTrace\":\"cpus/"
				      "5.intelpt_trace\",\"contextSwitchTrace\""
				      ":\"cpus/5.perf_context_switch_trace\"}"));
	assert_non_null(strstr(j.buf, "\"loadAddress\":\"0x7e0000000000\""));
	assert_non_null(strstr(j.buf, "\"timeZero\":18446744073441116160"));
	assert_null(strstr(j.buf, "vdso"));
	json_free(&j);
	/* not GenuineIntel: the schema's "unknown" */
	strcpy(fx->snap.run.cpu_info.vendor, "AuthenticAMD");
	json_init_dyn(&j);
	assert_int_equal(bundle_trace_json(&fx->snap, snapwrite_vdso_saved(&fx->snap), &j), 0);
	assert_non_null(strstr(j.buf, "\"vendor\":\"unknown\""));
	json_free(&j);
}

static void test_ptbpf_json(void **state)
{
	struct fixture *fx = *state;
	struct ptbpfjson_file files[2];
	struct ptbpfjson_dir dir;
	char js[128], cmd[512], *out;
	struct json j;

	assert_int_equal(snapwrite_nr_formats, 2);
	snapwrite_contents(&fx->snap, SNAPWRITE_PERF, files, &dir);
	json_init_dyn(&j);
	assert_int_equal(ptbpfjson_build(&fx->snap, &dir, &j), 0);
	snprintf(js, sizeof(js), "%s/ptbpf.json", fx->dir);
	save(js, j.buf, j.len);
	json_free(&j);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
		 "print(d[\"backend\"], d[\"trigger\"], d[\"signal\"], "
		 "d[\"snapshot\"], d[\"cores\"][1][\"wrapped\"], "
		 "d[\"cores\"][1][\"lost_bytes\"], d[\"attr\"][\"type\"], "
		 "d[\"files\"][\"lldb\"], d[\"process\"][\"threads\"][1]"
		 "[\"comm\"]); print(d[\"ptxed\"][\"args\"])' %s",
		 js);
	out = run_cmd(cmd);
	assert_string_equal(out, "intel-pt fatal SIGSEGV 3 True 4096 8 False "
				 "worker \"1\"\n"
				 "--cpu 6/142/10 --mtc-freq 3 --nom-freq 21 "
				 "--cpuid-0x15.eax 2 --cpuid-0x15.ebx 216\n");
	free(out);
}

/* LLDB reads switch records with exactly TID and TIME after the body. */
static void test_switch_trace(void **state)
{
	struct fixture *fx = *state;
	struct {
		struct perf_event_header h;
		__u32 np_pid, np_tid, pid, tid;
		__u64 time;
		__u32 cpu, res;
		__u64 ident;
	} in = {
		.h = { PERF_RECORD_SWITCH_CPU_WIDE, 0, sizeof(in) },
		.np_pid = 1, .np_tid = 2, .pid = 100, .tid = 101,
		.time = 5555, .ident = 9,
	}, out;
	char p[128];
	int fd;

	/* the kernel wrote TID|TIME|CPU|IDENTIFIER here */
	fx->snap.run.sb_attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
					   PERF_SAMPLE_IDENTIFIER;
	memcpy(fx->sb, &in, sizeof(in));
	fx->core[1].sideband = fx->sb;
	fx->core[1].sideband_len = sizeof(in);
	snprintf(p, sizeof(p), "%s/sw", fx->dir);
	fd = open(p, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(bundle_write_switch_trace(fd, &fx->snap, 1), 0);
	memset(&out, 0xa5, sizeof(out));
	assert_int_equal(pread(fd, &out, sizeof(out), 0), 32);
	assert_int_equal(out.h.size, 32);
	assert_int_equal(out.pid, 100);
	assert_int_equal(out.tid, 101);
	assert_int_equal(out.time, 5555);
	assert_int_equal(bundle_write_switch_trace(fd, &fx->snap, 2), -EINVAL);
	close(fd);
}

static void test_invalid_args(void **state)
{
	struct fixture *fx = *state;
	struct ptbpfjson_dir dir = { NULL, 0, false };
	char buf[16];
	struct json j;

	json_init_dyn(&j);
	assert_int_equal(bundle_trace_json(NULL, false, &j), -EINVAL);
	assert_int_equal(ptbpfjson_build(NULL, &dir, &j), -EINVAL);
	assert_int_equal(ptbpfjson_build(&fx->snap, NULL, &j), -EINVAL);
	dir.nr_files = 1;
	assert_int_equal(ptbpfjson_build(&fx->snap, &dir, &j), -EINVAL);
	/* a vdso.so said to be there with no image to say the size of */
	dir.nr_files = 0;
	dir.vdso = true;
	assert_int_equal(ptbpfjson_build(&fx->snap, &dir, &j), -EINVAL);
	fx->snap.run.backend = BACKEND_SAMPLE;
	assert_int_equal(bundle_trace_json(&fx->snap, snapwrite_vdso_saved(&fx->snap), &j),
			 -EINVAL);
	json_free(&j);
	assert_int_equal(bundle_write_switch_trace(1, NULL, 0), -EINVAL);
	assert_int_equal(bundle_cpu_path(buf, sizeof(buf), 12, SNAPFMT_SWITCH_SUFFIX),
			 -ENAMETOOLONG);
	assert_int_equal(bundle_cpu_path(NULL, 8, 1, "x"), -EINVAL);
	assert_int_equal(bundle_cpu_path(buf, sizeof(buf), 12, "x"), 0);
	assert_string_equal(buf, "cpus/12.x");
	assert_null(snapfmt_backend_name((enum ptbpf_backend)99));
	assert_string_equal(snapfmt_backend_name(BACKEND_SAMPLE), "sample");
	/* a fixed buffer too small for the document */
	json_init(&j, buf, sizeof(buf));
	fx->snap.run.backend = BACKEND_INTEL_PT;
	assert_int_equal(bundle_trace_json(&fx->snap, snapwrite_vdso_saved(&fx->snap), &j),
			 -ENOSPC);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_trace_json_schema), T(test_trace_json_vdso), T(test_trace_json_values),
		T(test_ptbpf_json),	   T(test_switch_trace),    T(test_invalid_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
