// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf-dump on bad input: a snapshot made here (one run of tests/ptgen.h's
 * path) is broken one way per case: a ptbpf.json field missing or of the
 * wrong type, a truncated or garbled perf.data, a module that is not ELF
 * or gone, paths out of the snapshot, a directory that is no snapshot.
 * Each case asserts the exact message (file, offset, why) and what is
 * still shown.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "insn.h"
#include "load.h"
#include "snapparse.h"
#include "summary.h"
#include "ptgen.h"
#include "output/snapwrite.h"
#include "testio.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct fixture {
	char dir[64], snap[128], path[256];
	struct snapshot s;
	struct snap_core core;
	uint8_t pt[256], sb[256];
	char *err, *out;
	size_t err_len, out_len;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct snapwrite_opts o = { .dirfd = -1, .uid = -1, .gid = -1 };
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)gettid();
	char err[256];
	size_t n = 0;

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/ptbpf-dumpbad-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->snap, sizeof(fx->snap), "%s/snapshot-000001", fx->dir);
	assert_int_equal(ptgen_snapshot(&fx->s, &fx->core), 0);
	fx->core.trace = fx->pt;
	fx->core.trace_len = ptgen_run(fx->pt, sizeof(fx->pt), 0, 1000, (uint64_t)(uintptr_t)setup);
	n += ptgen_switch(fx->sb + n, false, 0, 0, pid, tid, 900);
	n += ptgen_switch(fx->sb + n, true, 0, 0, pid, tid, 5000);
	fx->core.sideband = fx->sb;
	fx->core.sideband_len = n;
	o.out_dir = fx->dir;
	assert_int_equal(snapwrite_snapshot(&fx->s, &o, NULL, 0, err, sizeof(err)), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	procinfo_free(&fx->s.proc);
	free(fx->err);
	free(fx->out);
	rm_tree(fx->dir);
	free(fx);
	return 0;
}

static char *file(struct fixture *fx, const char *name)
{
	snprintf(fx->path, sizeof(fx->path), "%s/%s", fx->snap, name);
	return fx->path;
}

static void put(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* Replaces the first @from in file @name by @to. */
static void edit(struct fixture *fx, const char *name, const char *from, const char *to)
{
	size_t len, fl = strlen(from), tl = strlen(to);
	char *buf = read_whole(file(fx, name), &len), *p, *out;

	p = strstr(buf, from);
	assert_non_null(p);
	out = malloc(len - fl + tl);
	memcpy(out, buf, (size_t)(p - buf));
	memcpy(out + (p - buf), to, tl);
	memcpy(out + (p - buf) + tl, p + fl, len - (size_t)(p - buf) - fl);
	put(fx->path, out, len - fl + tl);
	free(out);
	free(buf);
}

/* Loads and summarizes; returns the number of problems reported. */
static unsigned int summarize(struct fixture *fx, int want_load)
{
	struct dump_log log = { NULL, 0 };
	struct dump_snap ds;
	FILE *out;

	free(fx->err);
	free(fx->out);
	log.err = open_memstream(&fx->err, &fx->err_len);
	out = open_memstream(&fx->out, &fx->out_len);
	assert_int_equal(load_snapshot(fx->snap, &ds, &log), want_load);
	if (!want_load)
		assert_int_equal(summary_text(out, &ds, NULL, &log), 0);
	snap_free(&ds);
	fclose(out);
	fclose(log.err);
	return log.nr_errors;
}

struct metacase {
	const char *from, *to, *msg;
};

/* One bad field of ptbpf.json: named; the summary still shows. */
static void test_meta_fields(void **state)
{
	static const struct metacase cases[] = {
		{ "\"bytes\":43", "\"bytes\":\"43\"",
		  "field \"cores[0].bytes\" is not a number that fits" },
		{ "\"trigger\":\"stop\",", "", "field \"trigger\" is missing" },
		{ "\"valid\":true", "\"valid\":1",
		  "field \"time_conv.valid\" is not true or false" },
		{ "\"process\":{", "\"process\":7,\"x\":{", "field \"process\" is not an object" },
		{ "\"cores\":[", "\"cores\":\"x\",\"c\":[", "field \"cores\" is not an array" },
		{ "\"config\":\"0x400\"", "\"config\":\"400\"",
		  "field \"attr.config\" is missing or not a \"0x...\" string" },
		{ "\"backend\":\"intel-pt\"", "\"backend\":\"magic\"",
		  "unknown backend \"magic\"" },
		{ "{\"cpu\":0,", "{\"cpu\":-3,", "field \"cores[0].cpu\" is missing or not a CPU" },
	};
	struct fixture *fx = *state;
	char want[256];
	unsigned int i;

	for (i = 0; i < N(cases); i++) {
		teardown(state);
		setup(state);
		fx = *state;
		edit(fx, "ptbpf.json", cases[i].from, cases[i].to);
		assert_int_equal(summarize(fx, 0), 1);
		snprintf(want, sizeof(want), "ptbpf-dump: ptbpf.json: %s\n", cases[i].msg);
		assert_string_equal(fx->err, want);
		/* the rest is still read */
		assert_non_null(strstr(fx->out, "snapshot 1"));
	}
}

static void test_meta_truncated(void **state)
{
	struct fixture *fx = *state;
	size_t len;
	char *buf = read_whole(file(fx, "ptbpf.json"), &len), want[256], *cut;

	cut = strstr(buf, "\"snapshot\":1,") + strlen("\"snapshot\":1,");
	put(fx->path, buf, (size_t)(cut - buf));
	assert_int_equal(summarize(fx, 0), 1);
	snprintf(want, sizeof(want),
		 "ptbpf-dump: ptbpf.json: offset 0x%zx: not JSON: unexpected "
		 "end of input\n",
		 (size_t)(cut - buf));
	assert_string_equal(fx->err, want);
	/* not JSON at all, and not an object */
	put(fx->path,
	    "\x7f"
	    "ELF garbage",
	    11);
	summarize(fx, 0);
	assert_string_equal(fx->err, "ptbpf-dump: ptbpf.json: offset 0x0: not "
				     "JSON: unexpected character\n");
	put(fx->path, "[1]", 3);
	summarize(fx, 0);
	assert_string_equal(fx->err, "ptbpf-dump: ptbpf.json: offset 0x0: not "
				     "a JSON object but array\n");
	free(buf);
}

struct perfcase {
	long cut; /* bytes kept; < 0: from the end */
	const char *msg; /* the first message */
};

/*
 * A truncated perf.data is reported at the offset where it breaks; the
 * core's trace then comes from cpus/ and still decodes.
 */
static void test_perf_truncated(void **state)
{
	static const struct perfcase cases[] = {
		{ 0, "ptbpf-dump: perf.data: offset 0x0: not a perf.data file "
		     "(shorter than its header)\n" },
		{ 60, "ptbpf-dump: perf.data: offset 0x0: not a perf.data file "
		      "(shorter than its header)\n" },
		{ 110, "ptbpf-dump: perf.data: offset 0x10: bad attrs section" },
		{ -1, "ptbpf-dump: perf.data: offset 0x38: data section ends" },
	};
	struct fixture *fx = *state;
	size_t len;
	char *buf = read_whole(file(fx, "perf.data"), &len);
	struct perffile_header h;
	unsigned int i;

	memcpy(&h, buf, sizeof(h));
	for (i = 0; i < N(cases); i++) {
		size_t keep = cases[i].cut >= 0 ? (size_t)cases[i].cut : h.data_off + 40;

		put(file(fx, "perf.data"), buf, keep);
		assert_true(summarize(fx, 0) >= 1);
		assert_memory_equal(fx->err, cases[i].msg, strlen(cases[i].msg));
		assert_non_null(strstr(fx->out, "decodes: yes"));
		assert_non_null(strstr(fx->out, "psb 1, ovf 0"));
	}
	/* the magic garbled */
	memcpy(buf, "PERFILE3", 8);
	put(file(fx, "perf.data"), buf, len);
	assert_int_equal(summarize(fx, 0), 1);
	assert_string_equal(fx->err, "ptbpf-dump: perf.data: offset 0x0: not a "
				     "perf.data file (no PERFILE2 magic)\n");
	free(buf);
}

/* A record with size 0 ends the walk, named at its offset. */
static void test_perf_bad_record(void **state)
{
	struct fixture *fx = *state;
	size_t len;
	char *buf = read_whole(file(fx, "perf.data"), &len), want[160];
	struct perffile_header h;

	memcpy(&h, buf, sizeof(h));
	memset(buf + h.data_off + 6, 0, 2);
	put(fx->path, buf, len);
	assert_int_equal(summarize(fx, 0), 1);
	snprintf(want, sizeof(want),
		 "ptbpf-dump: perf.data: offset 0x%llx: record cut off or of a "
		 "bad size\n",
		 (unsigned long long)h.data_off);
	assert_string_equal(fx->err, want);
	free(buf);
}

/* Decodes core 0 with the modules the snapshot names. */
static void insn(struct fixture *fx, struct dump_log *log)
{
	struct pt_image *image = pt_image_alloc(NULL);
	FILE *out = open_memstream(&fx->out, &fx->out_len);
	struct dump_symtab tab;
	struct dump_snap ds;

	assert_int_equal(load_snapshot(fx->snap, &ds, log), 0);
	assert_int_equal(symtab_load(&tab, &ds, image, log), 0);
	assert_int_equal(insn_print(out, &ds, &ds.cores[0], image, &tab, log), 0);
	symtab_free(&tab);
	pt_image_free(image);
	snap_free(&ds);
	fclose(out);
}

/*
 * Modules from trace.json that are not ELF, or gone: each named; the
 * instructions then fail in place ("no memory mapped") and it goes on.
 */
static void test_module_not_elf(void **state)
{
	struct fixture *fx = *state;
	struct dump_log log;
	char want[512], notelf[128];

	unlink(file(fx, "perf.data"));
	snprintf(notelf, sizeof(notelf), "%s/notelf", fx->dir);
	put(notelf, "#!/bin/sh\n", 10);
	snprintf(want, sizeof(want),
		 "{\"type\":\"intel-pt\",\"processes\":[{\"pid\":1,\"modules\":"
		 "[{\"systemPath\":\"%s\",\"loadAddress\":\"0x%llx\"},"
		 "{\"systemPath\":\"%s/gone\",\"loadAddress\":\"0x1000\"},"
		 "{\"systemPath\":7}]}],"
		 "\"cpus\":[{\"id\":0,\"iptTrace\":\"cpus/0.intelpt_trace\","
		 "\"contextSwitchTrace\":\"cpus/0.perf_context_switch_trace\"},"
		 "{\"id\":1,\"iptTrace\":\"../../../etc/passwd\","
		 "\"contextSwitchTrace\":\"x\"}]}",
		 notelf, (unsigned long long)(uintptr_t)ptgen_outer, fx->dir);
	put(file(fx, "trace.json"), want, strlen(want));
	log.err = open_memstream(&fx->err, &fx->err_len);
	log.nr_errors = 0;
	insn(fx, &log);
	fclose(log.err);
	snprintf(want, sizeof(want),
		 "ptbpf-dump: trace.json: processes[0].modules[2]: needs a "
		 "string \"systemPath\" and a \"0x...\" loadAddress\n"
		 "ptbpf-dump: trace.json: cpu 1: trace paths must stay inside "
		 "the snapshot\n"
		 "ptbpf-dump: %s: offset 0x0: module: not a 64-bit ELF file\n"
		 "ptbpf-dump: %s/gone: module: No such file or directory\n"
		 "ptbpf-dump: cpus/0.intelpt_trace: offset 0x23: cpu 0 trace "
		 "offset 0x23: no memory mapped at this address\n",
		 notelf, fx->dir);
	assert_string_equal(fx->err, want);
	assert_int_equal(log.nr_errors, 5);
	assert_non_null(strstr(fx->out, "  error at trace offset 0x23: no "
					"memory mapped at this address; no "
					"PSB after it\n"));
}

/* The switch file of --format lldb, cut in a record. */
static void test_switch_file_cut(void **state)
{
	struct fixture *fx = *state;
	size_t len;
	char *buf;

	unlink(file(fx, "perf.data"));
	buf = read_whole(file(fx, "cpus/0.perf_context_switch_trace"), &len);
	put(fx->path, buf, len - 4);
	assert_int_equal(summarize(fx, 0), 1);
	assert_string_equal(fx->err, "ptbpf-dump: "
				     "cpus/0.perf_context_switch_trace: offset "
				     "0x20: bad record header: cut off, or a "
				     "size that is 0, not a multiple of 8 or "
				     "past the end\n");
	assert_non_null(strstr(fx->out, "1 context switches"));
	free(buf);
}

static void test_not_a_snapshot(void **state)
{
	struct fixture *fx = *state;
	char want[256];

	unlink(file(fx, "ptbpf.json"));
	assert_int_equal(summarize(fx, -ENOENT), 1);
	snprintf(want, sizeof(want), "ptbpf-dump: %s: not a snapshot directory (no ptbpf.json)\n",
		 fx->snap);
	assert_string_equal(fx->err, want);
	assert_int_equal(load_snapshot(NULL, NULL, NULL), -EINVAL);
}

/* Trace bytes with no PSB: nothing decodes, and it says so. */
static void test_no_psb(void **state)
{
	struct fixture *fx = *state;
	size_t len;
	char *buf = read_whole(file(fx, "perf.data"), &len);
	char *psb = memmem(buf, len, "\x02\x82\x02\x82", 4);

	assert_non_null(psb);
	psb[1] = 0x42; /* no longer a PSB pattern */
	put(fx->path, buf, len);
	assert_int_equal(summarize(fx, 0), 1);
	assert_non_null(strstr(fx->out, "    decodes: no (no PSB)\n"));
	assert_non_null(strstr(fx->err, ": cpu 0: no PSB in 43 bytes of "
					"trace\n"));
	free(buf);
}

/*
 * trace.json's cpus come back as data, in file order, for the loader to
 * read: an entry without its three fields is reported and left out, and
 * paths are handed on as written (the loader checks them).
 */
static void test_trace_cpus(void **state)
{
	static const char doc[] = "{\"processes\":[{\"modules\":[]}],\"cpus\":["
				  "{\"id\":3,\"iptTrace\":\"cpus/3.t\",\"contextSwitchTrace\":"
				  "\"cpus/3.s\"},"
				  "{\"id\":\"1\",\"iptTrace\":\"a\",\"contextSwitchTrace\":\"b\"},"
				  "{\"id\":0,\"iptTrace\":\"../x\",\"contextSwitchTrace\":\"y\"}]}";
	struct dump_log log = { NULL, 0 };
	struct snap_trace_cpus cpus = { (void *)0x1, 99 };
	struct dump_snap ds;
	char *err;
	size_t len;

	memset(&ds, 0, sizeof(ds));
	log.err = open_memstream(&err, &len);
	assert_int_equal(snap_parse_trace_json(&ds, doc, strlen(doc), "trace.json", &log, &cpus),
			 0);
	fclose(log.err);
	assert_string_equal(err, "ptbpf-dump: trace.json: cpus[1]: needs "
				 "\"id\", \"iptTrace\" and "
				 "\"contextSwitchTrace\"\n");
	free(err);
	assert_int_equal(cpus.nr, 2);
	assert_int_equal(cpus.cpu[0].cpu, 3);
	assert_string_equal(cpus.cpu[0].ipt, "cpus/3.t");
	assert_string_equal(cpus.cpu[0].sw, "cpus/3.s");
	assert_int_equal(cpus.cpu[1].cpu, 0);
	assert_string_equal(cpus.cpu[1].ipt, "../x");
	assert_string_equal(cpus.cpu[1].sw, "y");
	/* the parse itself reads no file and adds no core */
	assert_int_equal(ds.nr_cores, 0);
	snap_trace_cpus_free(&cpus);
	assert_null(cpus.cpu);
	assert_int_equal(cpus.nr, 0);
	snap_free(&ds);
	/* not an object: reported (counted here), and no cpus */
	log.err = NULL;
	log.nr_errors = 0;
	cpus.nr = 99;
	assert_int_equal(snap_parse_trace_json(&ds, "[]", 2, "trace.json", &log, &cpus), -EBADMSG);
	assert_int_equal(log.nr_errors, 1);
	assert_int_equal(cpus.nr, 0);
	assert_int_equal(snap_parse_trace_json(&ds, "{}", 2, "trace.json", &log, NULL), -EINVAL);
	snap_free(&ds);
}

/*
 * What the target controls, shown and never sent to a terminal: a comm
 * of "\x1b]0;PWN\x07\x1b[2J\n" (prctl PR_SET_NAME), in the summary and
 * in --insn's thread lines, and a module path in a message.
 */
static void test_hostile_names(void **state)
{
	static const char shown[] = "\\x1b]0;PWN\\x07\\x1b[2J\\n";
	struct fixture *fx = *state;
	char want[512], comm[64], bad[128];
	struct dump_log log;
	const char *json = "\"comm\":\"\\u001b]0;PWN\\u0007\\u001b[2J\\n\"";

	snprintf(comm, sizeof(comm), "\"comm\":\"%.15s\"", program_invocation_short_name);
	edit(fx, "ptbpf.json", comm, json);
	edit(fx, "ptbpf.json", comm, json); /* its thread */
	assert_int_equal(summarize(fx, 0), 0);
	snprintf(want, sizeof(want), ", pid %u (%s)\n", (unsigned int)getpid(), shown);
	assert_non_null(strstr(fx->out, want));
	assert_null(memchr(fx->out, 0x1b, fx->out_len));
	assert_null(memchr(fx->out, 0x07, fx->out_len));
	/* --insn: the thread's line */
	free(fx->out);
	free(fx->err);
	log.err = open_memstream(&fx->err, &fx->err_len);
	log.nr_errors = 0;
	insn(fx, &log);
	fclose(log.err);
	snprintf(want, sizeof(want), "tid %d (%s) at ", gettid(), shown);
	assert_non_null(strstr(fx->out, want));
	assert_null(memchr(fx->out, 0x1b, fx->out_len));
	/* a module's path in a message */
	unlink(file(fx, "perf.data"));
	snprintf(bad, sizeof(bad), "%s/m\x1b[2J", fx->dir);
	put(bad, "#!/bin/sh\n", 10);
	snprintf(want, sizeof(want),
		 "{\"type\":\"intel-pt\",\"processes\":[{\"pid\":1,\"modules\":"
		 "[{\"systemPath\":\"%s/m\\u001b[2J\",\"loadAddress\":\"0x1000\"}]}],"
		 "\"cpus\":[{\"id\":0,\"iptTrace\":\"cpus/0.intelpt_trace\","
		 "\"contextSwitchTrace\":\"cpus/0.perf_context_switch_trace\"}]}",
		 fx->dir);
	put(file(fx, "trace.json"), want, strlen(want));
	free(fx->out);
	free(fx->err);
	log.err = open_memstream(&fx->err, &fx->err_len);
	log.nr_errors = 0;
	insn(fx, &log);
	fclose(log.err);
	snprintf(want, sizeof(want),
		 "ptbpf-dump: %s/m\\x1b[2J: offset 0x0: module: not a 64-bit ELF file\n", fx->dir);
	assert_non_null(strstr(fx->err, want));
	assert_null(memchr(fx->err, 0x1b, fx->err_len));
}

/*
 * A FIFO named ptbpf.json, perf.data or as a module is not opened for
 * long nor read: one line each, and the reader goes on (an alarm fails
 * the test where it would hang).
 */
static void test_fifo(void **state)
{
	struct fixture *fx = *state;
	char want[512];

	alarm(60);
	unlink(file(fx, "perf.data"));
	assert_int_equal(mkfifo(fx->path, 0600), 0);
	summarize(fx, 0);
	snprintf(want, sizeof(want), "ptbpf-dump: %s: not a regular file\n", fx->path);
	assert_non_null(strstr(fx->err, want));
	unlink(file(fx, "ptbpf.json"));
	assert_int_equal(mkfifo(fx->path, 0600), 0);
	assert_true(summarize(fx, 0) >= 1);
	snprintf(want, sizeof(want), "ptbpf-dump: %s: not a regular file\n", fx->path);
	assert_non_null(strstr(fx->err, want));
	alarm(0);
}

static long max_rss_kib(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

/*
 * A sparse 1 GiB perf.data costs what its headers declare, not 1 GiB:
 * the snapshot's own, grown by a hole, reads as before; one of nothing
 * but the hole is refused at its header. A ptbpf.json past any sane
 * size is refused unread. RSS is bounded generously (200 MB), not timed.
 */
static void test_sparse(void **state)
{
	struct fixture *fx = *state;
	char want[512], *before;
	int fd;

	assert_int_equal(summarize(fx, 0), 0);
	before = strdup(fx->out);
	fd = open(file(fx, "perf.data"), O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1LL << 30), 0);
	close(fd);
	assert_int_equal(summarize(fx, 0), 0);
	assert_string_equal(fx->out, before);
	unlink(fx->path);
	fd = open(fx->path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1LL << 30), 0);
	close(fd);
	assert_int_equal(summarize(fx, 0), 1);
	assert_string_equal(fx->err, "ptbpf-dump: perf.data: offset 0x0: not a perf.data file "
				     "(no PERFILE2 magic)\n");
	fd = open(file(fx, "ptbpf.json"), O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1LL << 30), 0);
	close(fd);
	summarize(fx, 0);
	snprintf(want, sizeof(want),
		 "ptbpf-dump: %s: larger than a snapshot's file can be: not read\n", fx->path);
	assert_non_null(strstr(fx->err, want));
	assert_true(max_rss_kib() < 200 * 1000);
	free(before);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_meta_fields),	 T(test_meta_truncated), T(test_perf_truncated),
		T(test_perf_bad_record), T(test_module_not_elf), T(test_switch_file_cut),
		T(test_not_a_snapshot),	 T(test_no_psb),	 T(test_trace_cpus),
		T(test_hostile_names),	 T(test_fifo),		 T(test_sparse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
