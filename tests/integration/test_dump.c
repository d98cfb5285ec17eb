// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf-dump on real sample-backend snapshots: ptbpf (root, as in every
 * integration test) records `crash`, then ptbpf-dump reads the output as
 * a user would. What it prints is checked against perf script on the same
 * perf.data and against events.jsonl; its exit status and messages on bad
 * arguments too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "integ.h"
#include "jsondoc.h"
#include "tlout.h"

#define DUMP_BIN "./ptbpf-dump"

static char dir[64], out[128];
static pid_t target;

/* One recording of crash for all tests: it is the slow part. */
static int setup_group(void **state)
{
	char cmd[512], *d = make_tmpdir();
	int st;

	if (!d || geteuid() != 0 || access(DUMP_BIN, X_OK))
		return 0; /* the tests skip */
	snprintf(dir, sizeof(dir), "%s", d);
	free(d);
	snprintf(out, sizeof(out), "%s/out", dir);
	/*
	 * 400 ms of work(): its own samples are ~1 in 25 (the rest are in
	 * clock_gettime), and a loaded machine gives it a fraction of the
	 * CPU; 150 ms left work() without a sample now and then.
	 */
	snprintf(cmd, sizeof(cmd),
		 "%s -q -b sample -F 4000 -o %s -- " PROGS "crash 400 >/dev/null 2>&1", PTBPF_BIN,
		 out);
	st = system(cmd);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 139)
		return -1;
	target = (pid_t)event_field(out, "fatal", 0, "pid");
	return target > 0 ? 0 : -1;
}

static int teardown_group(void **state)
{
	if (dir[0])
		rm_rf(dir);
	return 0;
}

static void need_run(void)
{
	if (!target)
		skip();
}

/*
 * Samples of pid @pid in @perf_data, as perf script counts them: the
 * recording's, not the crash record's.
 */
static long perf_samples(const char *perf_data, pid_t pid)
{
	char cmd[512];
	long n = 0;
	int st;
	char *o, *p;

	snprintf(cmd, sizeof(cmd),
		 "perf script -F pid,event -i %s 2>/dev/null | "
		 "awk '$1 == %d && $2 != \"crash:\"' | wc -l",
		 perf_data, pid);
	o = run_out(cmd, &st);
	p = o;
	n = strtol(p, NULL, 10);
	free(o);
	return n;
}

/* The summary: cause, signal, pid, and the target's sample count. */
static void test_summary(void **state)
{
	char cmd[512], want[256], path[256], *o, *p;
	unsigned long total = 0, n;
	int st;

	need_run();
	snprintf(cmd, sizeof(cmd), "%s %s", DUMP_BIN, out);
	o = run_out(cmd, &st);
	assert_int_equal(st, 0);
	snprintf(want, sizeof(want),
		 "%s/snapshot-000001: snapshot 1, sample, trigger fatal "
		 "(SIGSEGV) at ",
		 out);
	assert_memory_equal(o, want, strlen(want));
	snprintf(want, sizeof(want), ", pid %d (crash)\n", target);
	assert_non_null(strstr(o, want));
	/* the fault: the function that faulted, by the snapshot's modules */
	assert_non_null(strstr(o, "  fault: tid "));
	assert_non_null(strstr(o, ", si_code 1 (SEGV_MAPERR), at crash+0x"));
	assert_non_null(strstr(o, "), fault address 0x0\n"));
	/*
	 * Nothing ran between the fault and the exit (collection was paused
	 * at the fault): the exit had no new bytes, so no snapshot of its own.
	 */
	assert_null(strstr(o, "snapshot-000002"));
	assert_int_equal(count_events(out, "snapshot_skipped"), 1);
	/* the snapshot's target samples, summed over its cores */
	snprintf(want, sizeof(want), "samples: target ");
	for (p = o; (p = strstr(p, want)); p++) {
		n = strtoul(p + strlen(want), NULL, 10);
		total += n;
	}
	snprintf(path, sizeof(path), "%s/snapshot-000001/perf.data", out);
	assert_int_equal(total, perf_samples(path, target));
	assert_true(total > 0);
	free(o);
}

static void test_json(void **state)
{
	struct json_object *snaps, *s, *cores, *c;
	char cmd[512], *o;
	struct json_object *root;
	const char *str;
	uint64_t v, sum = 0;
	size_t i;
	int st;

	need_run();
	snprintf(cmd, sizeof(cmd), "%s --json %s", DUMP_BIN, out);
	o = run_out(cmd, &st);
	assert_int_equal(st, 0);
	assert_int_equal(jsondoc_parse(o, strlen(o), &root, NULL), 0);
	assert_int_equal(jsondoc_get_u64(root, "errors", &v), 0);
	assert_int_equal(v, 0);
	snaps = jsondoc_get(root, "snapshots");
	assert_int_equal(jsondoc_len(snaps), 1);
	s = jsondoc_at(snaps, 0);
	assert_int_equal(jsondoc_get_str(s, "trigger", &str), 0);
	assert_string_equal(str, "fatal");
	assert_int_equal(jsondoc_get_str(s, "signal", &str), 0);
	assert_string_equal(str, "SIGSEGV");
	assert_int_equal(jsondoc_get_u64(s, "pid", &v), 0);
	assert_int_equal(v, target);
	assert_int_equal(jsondoc_get_str(s, "addr", &str), 0);
	assert_string_equal(str, "0x0"); /* the NULL the crash wrote to */
	assert_int_equal(jsondoc_get_hex(s, "ip", &v), 0);
	assert_true(v != 0);
	cores = jsondoc_get(s, "cores");
	for (i = 0; (c = jsondoc_at(cores, i)); i++) {
		assert_int_equal(jsondoc_get_u64(jsondoc_get(c, "samples"), "target", &v), 0);
		sum += v;
	}
	assert_true(sum > 0);
	jsondoc_free(root);
	free(o);
}

/* Valid trace event JSON; the transitions as instants; slices named. */
static void test_timeline(void **state)
{
	struct json_object *evs, *e;
	char seq[4096] = "", *want;
	char cmd[1536], tl[160], *o, *buf;
	const char *ph, *name;
	struct json_object *root;
	unsigned int k = 0, work = 0, snaps = 0, cpu_runs = 0;
	size_t i, pf_size, json_size;
	uint64_t pid, tid;
	int st;

	need_run();
	snprintf(tl, sizeof(tl), "%s/tl.json", dir);
	snprintf(cmd, sizeof(cmd), "%s --timeline %s %s", DUMP_BIN, tl, out);
	o = run_out(cmd, &st);
	assert_int_equal(st, 0);
	assert_string_equal(o, "");
	buf = slurp(tl);
	assert_non_null(buf);
	/* --timeline -: the same file on standard output */
	snprintf(cmd, sizeof(cmd), "%s --timeline - %s", DUMP_BIN, out);
	free(o);
	o = run_out(cmd, &st);
	assert_int_equal(st, 0);
	assert_string_equal(o, buf);
	assert_int_equal(jsondoc_parse(buf, strlen(buf), &root, NULL), 0);
	evs = jsondoc_get(root, "traceEvents");
	assert_non_null(evs);
	for (i = 0; (e = jsondoc_at(evs, i)); i++) {
		assert_int_equal(jsondoc_get_str(e, "ph", &ph), 0);
		assert_int_equal(jsondoc_get_str(e, "name", &name), 0);
		assert_int_equal(jsondoc_get_u64(e, "pid", &pid), 0);
		assert_int_equal(jsondoc_get_u64(e, "tid", &tid), 0);
		assert_non_null(jsondoc_get(e, "ts"));
		/* the CPU tracks: which of the target's threads ran there */
		if (pid == TL_CPUS_PID) {
			cpu_runs += !strcmp(ph, "B");
			continue;
		}
		assert_int_equal(pid, target);
		/* each snapshot, with its facts, on its cause's track */
		if (!strcmp(ph, "i") && !strncmp(name, "snapshot ", 9)) {
			assert_int_equal(jsondoc_get_str(jsondoc_get(e, "args"), "trigger", &name),
					 0);
			snaps++;
			continue;
		}
		/* a flame chart: each sample a stack of B/E slices */
		if (!strcmp(ph, "B") && !strcmp(name, "work"))
			work++;
		if (!strcmp(ph, "i")) {
			k += snprintf(seq + k, sizeof(seq) - k, "%s%s", k ? " " : "", name);
			assert_true(k < sizeof(seq));
		}
	}
	/* every line of events.jsonl, in its order, as an instant */
	want = event_sequence(out, NULL);
	assert_string_equal(seq, want);
	assert_non_null(strstr(seq, "fatal pause"));
	free(want);
	assert_true(work > 0);
	assert_true(snaps > 0);
	assert_true(cpu_runs > 0);
	jsondoc_free(root);
	free(buf);
	free(o);

	/* the same snapshots as a Perfetto trace: protoc decodes it with
	 * the checked-in schema, its tracks and slices hold, and it shows
	 * the same events as the JSON, in a smaller file */
	snprintf(cmd, sizeof(cmd),
		 "%s --timeline %s/tl.pftrace %s && protoc --decode=perfetto.protos.Trace "
		 "-Itests tests/perfetto_trace.proto <%s/tl.pftrace >%s/tl.txt && "
		 "python3 tests/pf_check.py %s/tl.txt --same-as %s 2>&1",
		 DUMP_BIN, dir, out, dir, dir, dir, tl);
	o = run_out(cmd, &st);
	if (st)
		fail_msg("%s: %d: %s", cmd, st, o);
	print_message("perfetto: %s", o);
	assert_non_null(strstr(o, " clocks "));
	assert_null(strstr(o, " clocks 0"));
	free(o);
	snprintf(cmd, sizeof(cmd), "stat -c %%s %s/tl.pftrace %s", dir, tl);
	o = run_out(cmd, &st);
	assert_int_equal(sscanf(o, "%zu %zu", &pf_size, &json_size), 2);
	print_message("timeline: %zu bytes of Perfetto protobuf, %zu of JSON\n", pf_size,
		      json_size);
	assert_true(pf_size < json_size);
	free(o);
}

struct argcase {
	const char *args;
	int status;
	const char *err;
};

static void test_bad_args(void **state)
{
	static const struct argcase cases[] = {
		{ "", 2, "ptbpf-dump: no DIR given (see --help)\n" },
		{ "--bogus x", 2, "ptbpf-dump: unknown option \"--bogus\"\n" },
		{ "--cpu -1 x", 2, "ptbpf-dump: --cpu: \"-1\" is not a CPU number\n" },
		{ "--insn --packets x", 2,
		  "ptbpf-dump: --packets, --insn, --timeline and --last go one "
		  "at a time\n" },
		{ "--last 5xs x", 2,
		  "ptbpf-dump: --last: \"5xs\" is not a duration (e.g. 50ms, "
		  "2s)\n" },
		{ "--last 0ms x", 2,
		  "ptbpf-dump: --last: \"0ms\" is not a duration (e.g. 50ms, "
		  "2s)\n" },
		{ "--last 50ms x y", 2, "ptbpf-dump: --last takes one snapshot DIR\n" },
		{ "--last 50ms /tmp", 1,
		  "ptbpf-dump: /tmp: not a snapshot directory (no ptbpf.json)\n" },
		{ "--json --insn x", 2, "ptbpf-dump: --json goes with the summary only\n" },
		{ "/nonexistent-dir", 1,
		  "ptbpf-dump: /nonexistent-dir: No such file or directory\n" },
		{ "/tmp", 1,
		  "ptbpf-dump: /tmp: neither a snapshot (no ptbpf.json) nor "
		  "an output directory (no snapshot-NNNNNN)\n" },
	};
	char cmd[512], err[1024];
	unsigned int i;

	if (access(DUMP_BIN, X_OK))
		skip();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s %s", DUMP_BIN, cases[i].args);
		assert_int_equal(run_capture(cmd, err, sizeof(err)), cases[i].status);
		assert_string_equal(err, cases[i].err);
	}
}

static void test_packets_on_sample(void **state)
{
	char cmd[512], want[256], *o;
	int st;

	need_run();
	snprintf(cmd, sizeof(cmd), "%s --packets %s/snapshot-000001", DUMP_BIN, out);
	o = run_out(cmd, &st);
	assert_int_equal(st, 0);
	snprintf(want, sizeof(want), "%s/snapshot-000001: sample backend: no Intel PT packets\n",
		 out);
	assert_string_equal(o, want);
	free(o);
}

/*
 * --timeline FILE where FILE is another user's symlink to their file
 * (fs.protected_symlinks may be off): one line, exit 1, the file
 * unchanged; a new path beside it is written.
 */
static void test_timeline_symlink(void **state)
{
	char victim[128], link[128], cmd[512], want[512], err[1024], *buf;
	int fd;

	if (!dir[0] || access(DUMP_BIN, X_OK))
		skip();
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	fd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "secret\n", 7), 7);
	close(fd);
	assert_int_equal(chown(victim, 65534, 65534), 0);
	snprintf(link, sizeof(link), "%s/tl-link.json", dir);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	snprintf(cmd, sizeof(cmd), "%s --timeline %s %s", DUMP_BIN, link, dir);
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 1);
	snprintf(want, sizeof(want), "ptbpf-dump: %s: is a symlink: refusing to write through it\n",
		 link);
	assert_string_equal(err, want);
	buf = slurp(victim);
	assert_non_null(buf);
	assert_string_equal(buf, "secret\n");
	free(buf);

	need_run();
	snprintf(link, sizeof(link), "%s/tl-new.json", dir);
	snprintf(cmd, sizeof(cmd), "%s --timeline %s %s", DUMP_BIN, link, out);
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	buf = slurp(link);
	assert_non_null(buf);
	assert_non_null(strstr(buf, "traceEvents"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),	 cmocka_unit_test(test_json),
		cmocka_unit_test(test_timeline), cmocka_unit_test(test_packets_on_sample),
		cmocka_unit_test(test_bad_args), cmocka_unit_test(test_timeline_symlink),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
