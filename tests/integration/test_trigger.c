// SPDX-License-Identifier: GPL-2.0
/*
 * --trigger-on, --trigger-limit, --duration and --min-history on the real
 * kernel, sample backend, with tests/progs/trigger (main -> mid -> leaf,
 * mid burning the CPU for 20 ms before each call):
 *
 * - 5 calls of leaf give 5 snapshots while the program runs on (it ends
 *   on its own, never stopped), each ending at its hit: no target record
 *   is stamped after the hit's kernel time, and the newest sample is within
 *   the target's last 1 ms of CPU before it (its off-CPU time, from the
 *   snapshot's own switch records, does not count). An untraced copy of
 *   the program calling leaf at the same time makes no hit;
 * - a hit from a second thread takes one, with that thread's tid;
 * - --pid and a library (fflush@libc.so.6): only the target's hits,
 *   though another process calls it too;
 * - a missing and an ambiguous symbol (two local twin()) are one line and
 *   exit 1 before anything is attached: no output directory, no BPF
 *   object left;
 * - --trigger-limit 2 ends the run after 2 hits took a snapshot, the command
 *   ended as on SIGINT; --duration 2s ends a run in 2 s (a generous
 *   window); --min-history 1s ignores the hit at 0.5 s and takes the one
 *   at 1.5 s.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "integ.h"

#define TRIGGER PROGS "trigger"

static char *dir, out[128];

static int setup(void **state)
{
	dir = fx_dir(out, sizeof(out), NULL, 0);
	return dir ? 0 : -1;
}

static int teardown(void **state)
{
	fx_dir_remove(dir);
	dir = NULL;
	return 0;
}

/*
 * Runs ptbpf -b sample -o OUT @args (split at spaces) to its end; returns
 * its status and stderr, and fails the test when a BPF object it held is
 * still loaded afterwards, or when it loaded BPF and @bpf is false, or
 * did not and @bpf is true. *@secs gets how long it ran.
 */
static int run_bpf(const char *args, char *err, size_t len, double *secs, bool bpf)
{
	char words[1024];
	double t0 = mono_s();
	struct held h;
	int st;

	/* samples near each hit are looked for: a fixed rate, not the budget's */
	snprintf(words, sizeof(words), "-b sample -F 4000 %s", args);
	st = run_ptbpf_held(NULL, out, words, err, len, &h, 60);
	if (secs)
		*secs = mono_s() - t0;
	if ((h.n[HELD_PROG] > 0) != bpf)
		fail_msg("'%s': %d BPF programs seen loaded", args, h.n[HELD_PROG]);
	return st;
}

static int run_ptbpf(const char *args, char *err, size_t len, double *secs)
{
	return run_bpf(args, err, len, secs, true);
}

/* How many snapshot events of this run say their cause is @name. */
static int snapshots_of(const char *name)
{
	int i, n = 0, total = count_events(out, "snapshot");
	char cause[32];

	for (i = 0; i < total; i++)
		if (!event_str(out, "snapshot", i, "trigger", cause, sizeof(cause)) &&
		    !strcmp(cause, name))
			n++;
	return n;
}

/* The snapshot number of the @nth snapshot event whose cause is @name. */
static int nth_snapshot(const char *name, int nth)
{
	int i, total = count_events(out, "snapshot");
	char cause[32];

	for (i = 0; i < total; i++)
		if (!event_str(out, "snapshot", i, "trigger", cause, sizeof(cause)) &&
		    !strcmp(cause, name) && nth-- == 0)
			return (int)event_field(out, "snapshot", i, "snapshot");
	return -1;
}

/*
 * Snapshot @id against its hit @hit (ns) by thread @tid of @pid: no record
 * of @pid after the hit, and the CPU time @tid ran between its newest
 * sample and the hit (wall time minus its switch-out..switch-in gaps, from
 * the snapshot's switch records). Returns that CPU time in ns.
 */
static unsigned long long cpu_before_hit(int id, pid_t pid, pid_t tid, unsigned long long hit)
{
	unsigned long long sec, ns, t, newest = 0, off = 0, out_at = 0;
	char cmd[600], *txt, *line, *save, *rest;
	int p, th, st, n;

	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s/snapshot-%06d/perf.data --ns -G "
		 "-F pid,tid,time --show-switch-events 2>/dev/null",
		 out, id);
	txt = run_out(cmd, &st);
	/* pass 1: the newest sample of @tid, and nothing after the hit */
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d/%d %llu.%llu:%n", &p, &th, &sec, &ns, &n) != 4 || p != pid)
			continue;
		t = sec * 1000000000ULL + ns;
		if (t > hit)
			fail_msg("snapshot %d: a record at %llu, after the "
				 "hit at %llu: %s",
				 id, t, hit, line);
		rest = line + n;
		if (!strstr(rest, "PERF_RECORD") && th == tid && t > newest)
			newest = t;
	}
	free(txt);
	if (!newest)
		fail_msg("snapshot %d: no sample of tid %d", id, tid);
	/* pass 2: the gaps of @tid between that sample and the hit */
	txt = run_out(cmd, &st);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d/%d %llu.%llu:%n", &p, &th, &sec, &ns, &n) != 4 || th != tid)
			continue;
		t = sec * 1000000000ULL + ns;
		if (t < newest)
			continue;
		if (strstr(line + n, "SWITCH OUT"))
			out_at = t;
		else if (strstr(line + n, "SWITCH IN") && out_at) {
			off += t - out_at;
			out_at = 0;
		}
	}
	free(txt);
	if (out_at) /* switched out and not back before the hit: impossible */
		fail_msg("snapshot %d: tid %d off the CPU at its hit", id, tid);
	return hit - newest - off;
}

/*
 * 5 calls of leaf: 5 hits, 5 snapshots while the program runs on, each
 * ending at its hit, the newest sample within 1 ms of the target's CPU
 * before it. An untraced copy calling leaf meanwhile makes no hit.
 */
static void test_five_calls(void **state)
{
	/* calling all along, however slowly ptbpf starts: killed below */
	char *other_argv[] = { TRIGGER, "800", "100", "100", NULL };
	char err[4096], cmd[300], hex[32], spec[32];
	unsigned long long hit, cpu;
	long long cut = 0;
	pid_t other, pid;
	int i, id;

	need_root();
	other = spawn(other_argv, "/dev/null");
	assert_int_equal(
		run_ptbpf("--trigger-on leaf -- " TRIGGER " 5 300 300", err, sizeof(err), NULL), 0);
	kill_wait(other);
	pid = (pid_t)event_field(out, "start", 0, "pid");
	assert_int_equal(count_events(out, "trigger"), 5);
	assert_int_equal(snapshots_of("trigger"), 5);
	/* never stopped: it ran on and ended by itself */
	assert_int_equal(count_events(out, "stop"), 0);
	assert_int_equal(event_field(out, "exit", 0, "exit_code"), 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(event_field(out, "trigger", i, "tid"), pid);
		assert_int_equal(event_str(out, "trigger", i, "spec", spec, sizeof(spec)), 0);
		assert_string_equal(spec, "leaf");
		/* the uprobe's ip is leaf's first instruction */
		assert_int_equal(event_str(out, "trigger", i, "ip", hex, sizeof(hex)), 0);
		snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"leaf\" { print $1 }'", TRIGGER);
		{
			char *addr = run_out(cmd, NULL);
			unsigned long long a = strtoull(addr, NULL, 16),
					   ip = strtoull(hex, NULL, 16);

			/* a PIE: the low 12 bits are the file's */
			assert_int_equal(ip & 0xfff, a & 0xfff);
			free(addr);
		}
		id = nth_snapshot("trigger", i);
		assert_true(id > 0);
		hit = (unsigned long long)event_field(out, "trigger", i, "ts");
		assert_int_equal(event_field(out, "snapshot", id - 1, "trigger_ts"),
				 (long long)hit);
		assert_int_equal(event_str(out, "snapshot", id - 1, "cut", hex, sizeof(hex)), 0);
		assert_string_equal(hex, "time");
		cpu = cpu_before_hit(id, pid, pid, hit);
		print_message("snapshot %d: newest sample %llu us of CPU "
			      "before the hit, cut %lld records\n",
			      id, cpu / 1000, event_field(out, "snapshot", id - 1, "cut_records"));
		assert_true(cpu <= 1000000ULL);
		cut += event_field(out, "snapshot", id - 1, "cut_records");
	}
	/* the target ran on past its hits: the cut left records out */
	assert_true(cut > 0);
	/* ptbpf.json says the hit: point, function, file, thread, time */
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json, sys; h = json.load(open(sys.argv[1]))"
		 "[\"hit\"]; print(h[\"spec\"], h[\"symbol\"], "
		 "h[\"object\"].endswith(\"progs/trigger\"), h[\"tid\"], "
		 "h[\"ts\"], h[\"cut\"])' %s/snapshot-000002/ptbpf.json",
		 out);
	{
		char *txt = run_out(cmd, NULL), want[128];

		snprintf(want, sizeof(want), "leaf leaf True %d %lld time\n", pid,
			 event_field(out, "trigger", 1, "ts"));
		assert_string_equal(txt, want);
		free(txt);
	}
	/* the reader says where the hit was, by name */
	snprintf(cmd, sizeof(cmd), "./ptbpf-dump %s/snapshot-000003", out);
	{
		char *txt = run_out(cmd, NULL), want[64];

		snprintf(want, sizeof(want), "hit: tid %d, at leaf+0x0 (", pid);
		if (!strstr(txt, want))
			fail_msg("ptbpf-dump: no '%s' in:\n%s", want, txt);
		/* and what ran up to it, as for a stop */
		if (!strstr(txt, "  last before the hit (newest first):\n    "))
			fail_msg("ptbpf-dump: no samples last before the hit in:\n%s", txt);
		free(txt);
	}
}

/* A hit from a second thread takes a snapshot, and says which thread it was. */
static void test_second_thread(void **state)
{
	char err[4096];
	long long pid, tid;

	need_root();
	assert_int_equal(run_ptbpf("--trigger-on leaf -- " TRIGGER " 1 300 300 thread", err,
				   sizeof(err), NULL),
			 0);
	pid = event_field(out, "start", 0, "pid");
	assert_int_equal(count_events(out, "trigger"), 1);
	tid = event_field(out, "trigger", 0, "tid");
	assert_true(tid > 0 && tid != pid);
	assert_int_equal(snapshots_of("trigger"), 1);
	assert_int_equal(event_field(out, "snapshot", 0, "trigger_tid"), tid);
	cpu_before_hit(1, (pid_t)pid, (pid_t)tid,
		       (unsigned long long)event_field(out, "trigger", 0, "ts"));
}

/*
 * --pid, a library function: fflush@libc.so.6 (leaf calls it), with an
 * untraced copy of the program calling it too (as every process on the
 * machine that calls fflush takes the uprobe): only the target's hits
 * count, from libc, and --trigger-limit 2 ends the run, the target
 * running on.
 */
static void test_pid_library(void **state)
{
	/*
	 * calls for minutes: ptbpf's start (BPF, the cost's calibration) may
	 * take seconds on a loaded host, and the target must still call, and
	 * still run, when it ends; both are killed below
	 */
	char *targv[] = { TRIGGER, "2000", "200", "100", NULL };
	char *other_argv[] = { TRIGGER, "4000", "50", "50", NULL };
	char err[4096], args[200], spec[64], reason[32];
	pid_t target, other;
	int i, n, st;

	need_root();
	target = spawn(targv, "/dev/null");
	other = spawn(other_argv, "/dev/null");
	msleep(100);
	snprintf(args, sizeof(args), "--trigger-on fflush@libc.so.6 --trigger-limit 2 --pid %d",
		 target);
	st = run_ptbpf(args, err, sizeof(err), NULL);
	if (st)
		fail_msg("ptbpf %s: status %d: %s", args, st, err);
	/* ptbpf is gone, its target is not */
	assert_int_equal(kill(target, 0), 0);
	kill_wait(other);
	kill_wait(target);
	n = count_events(out, "trigger");
	assert_true(n >= 2);
	for (i = 0; i < n; i++) {
		assert_int_equal(event_field(out, "trigger", i, "tid"), target);
		assert_int_equal(event_str(out, "trigger", i, "spec", spec, sizeof(spec)), 0);
		assert_string_equal(spec, "fflush@libc.so.6");
	}
	/*
	 * each of the 2 hits has its snapshot, or a snapshot_skipped when the
	 * target ran nothing new since the last (a sleeping target, sampled at
	 * a budget's rate)
	 */
	assert_true(snapshots_of("trigger") <= 2);
	assert_true(snapshots_of("trigger") + count_events(out, "snapshot_skipped") >= 2);
	assert_int_equal(event_str(out, "end", 0, "reason", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "trigger_limit");
}

/*
 * One stderr line, exit 1, nothing made, and no BPF program ever loaded:
 * the points are resolved before anything is attached.
 */
static void check_refused(const char *args, const char *msg)
{
	char err[4096], *p;
	int st, lines = 0;
	struct stat sb;

	st = run_bpf(args, err, sizeof(err), NULL, false);
	for (p = err; *p; p++)
		lines += *p == '\n';
	if (st != 1 || lines != 1 || strncmp(err, "ptbpf: ", 7) || !strstr(err, msg))
		fail_msg("'%s': status %d, stderr '%s' (want one line with "
			 "'%s')",
			 args, st, err, msg);
	assert_int_not_equal(stat(out, &sb), 0);
}

static void test_bad_symbols(void **state)
{
	char *targv[] = { TRIGGER, "1", "60000", "1", NULL };
	char args[200];
	pid_t pid;

	need_root();
	check_refused("--trigger-on nosuch -- " TRIGGER " 1 1 1",
		      "--trigger-on nosuch: no function nosuch in");
	/* the candidates, when the name is part of one */
	check_refused("--trigger-on lea -- " TRIGGER " 1 1 1", "similar: leaf");
	check_refused("--trigger-on twin -- " TRIGGER " 1 1 1", "2 functions named twin in");
	check_refused("--trigger-on twin -- " TRIGGER " 1 1 1", "(local)");
	check_refused("--trigger-on leaf@libnosuch.so.9 -- " TRIGGER " 1 1 1",
		      "no library libnosuch.so.9");
	/* --pid: the same from the running process's files */
	pid = spawn(targv, "/dev/null");
	msleep(50);
	snprintf(args, sizeof(args), "--trigger-on twin --pid %d", pid);
	check_refused(args, "2 functions named twin in");
	snprintf(args, sizeof(args), "--trigger-on nosuch@libc --pid %d", pid);
	check_refused(args, "no function nosuch in /");
	snprintf(args, sizeof(args), "--trigger-on x@libnosuch --pid %d", pid);
	check_refused(args, "maps no file named libnosuch");
	kill_wait(pid);
}

/*
 * An IFUNC, strlen@libc.so.6: probed at the implementation its resolver
 * chose (__strlen_avx2, _evex, _sse2... by the CPU), which every call
 * reaches, not at the resolver, which runs once at load: 3 hits end the
 * run long before the command's 1,000 calls do. One that ptbpf can't ask
 * (libm's, a library it does not map) is refused with its candidates.
 */
static void test_ifunc(void **state)
{
	char err[4096], reason[32];

	need_root();
	assert_int_equal(run_ptbpf("--trigger-limit 3 --trigger-on strlen@libc.so.6 -- " PROGS
				   "ifunc 1000 20",
				   err, sizeof(err), NULL),
			 0);
	/* ended by ptbpf before its 1,000 calls: the command's own status says so */
	assert_int_equal(event_field(out, "end", 0, "status"), 128 + SIGTERM);
	assert_int_equal(event_str(out, "end", 0, "reason", reason, sizeof(reason)), 0);
	/* 3 hits counted (a hit with no new bytes makes no snapshot of its own) */
	assert_string_equal(reason, "trigger_limit");
	assert_true(count_events(out, "trigger") >= 3);
	if (!strstr(err, "--trigger-on strlen@libc.so.6: an IFUNC; probed at the implementation"))
		fail_msg("no line on the IFUNC: %s", err);
	rm_rf(out); /* a refused run makes none */
	check_refused("--trigger-on cosf32@libm.so.6 -- " PROGS "ifunc 1 1",
		      "cosf32 in /lib/x86_64-linux-gnu/libm.so.6 is an IFUNC");
	check_refused("--trigger-on cosf32@libm.so.6 -- " PROGS "ifunc 1 1", "; candidates: ");
}

/* --trigger-limit 2: two hits, two snapshots, then the end as on SIGINT. */
static void test_trigger_limit(void **state)
{
	char err[4096], reason[32];

	need_root();
	/* the command is ended by ptbpf's SIGTERM: the run ended as asked, 0 */
	assert_int_equal(run_ptbpf("--trigger-limit 2 --trigger-on leaf -- " TRIGGER " 100 300 300",
				   err, sizeof(err), NULL),
			 0);
	assert_int_equal(snapshots_of("trigger"), 2);
	assert_int_equal(event_str(out, "end", 0, "reason", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "trigger_limit");
	assert_int_equal(event_str(out, "end", 0, "ended", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "as_asked");
	assert_int_equal(event_field(out, "end", 0, "exit_status"), 0);
	/*
	 * It did not wait for the other 98 calls (30 s of them): the command's
	 * own status, 128 + SIGTERM, says it was ended before them, after which
	 * it would have exited 0. No duration is asserted: a loaded machine may
	 * be slow, never wrong.
	 */
	assert_int_equal(event_field(out, "end", 0, "status"), 128 + SIGTERM);
}

/*
 * --trigger-limit 1 at the entry of the function that crashes: the limit
 * ends the run, but the command died of its SIGSEGV, no signal of
 * ptbpf's: 128 + SIGSEGV, as a crash without the limit, not 0.
 */
static void test_trigger_limit_crashed(void **state)
{
	char err[4096], reason[32];

	need_root();
	assert_int_equal(run_ptbpf("--trigger-limit 1 --trigger-on crash -- " PROGS "crash 200",
				   err, sizeof(err), NULL),
			 128 + SIGSEGV);
	assert_int_equal(event_str(out, "end", 0, "reason", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "trigger_limit");
	assert_int_equal(event_str(out, "end", 0, "ended", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "by_signal");
	assert_int_equal(event_field(out, "end", 0, "exit_status"), 128 + SIGSEGV);
	assert_int_equal(event_field(out, "end", 0, "status"), 128 + SIGSEGV);
}

/*
 * --trigger-limit on a function the target calls without pause (demo's
 * strlen, millions of times a second): the run still ends by itself at
 * the limit. The uprobes are detached then; before, the hits past the
 * limit filled the event ring faster than the end could drain it, and the
 * run went on until something killed it.
 */
static void test_trigger_limit_hot(void **state)
{
	char err[4096], reason[32];

	need_root();
	assert_int_equal(run_ptbpf("--trigger-limit 3 --trigger-on strlen@libc.so.6 -- " PROGS
				   "demo",
				   err, sizeof(err), NULL),
			 0);
	/* hits microseconds apart: the later ones may have no new bytes (skipped) */
	assert_true(snapshots_of("trigger") >= 1 && snapshots_of("trigger") <= 3);
	assert_int_equal(event_str(out, "end", 0, "reason", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "trigger_limit");
}

/*
 * --duration 2s: the run ends after 2 s of collection, counted from the
 * start event (not from ptbpf's own start-up), the command as on SIGINT.
 */
static void test_duration(void **state)
{
	char err[4096], reason[32];
	long long start, end;
	double secs;

	need_root();
	assert_int_equal(run_ptbpf("--duration 2s -- " PROGS "spin", err, sizeof(err), &secs), 0);
	start = event_field(out, "start", 0, "ts");
	end = event_field(out, "end", 0, "ts");
	print_message("--duration 2s: ran %.3f s, %.3f s of them from start to end\n", secs,
		      (end - start) / 1e9);
	/* not before 2 s; how much after is the machine's load, not asserted */
	assert_true(start > 0);
	assert_true(end - start >= 2000000000LL);
	assert_int_equal(event_str(out, "end", 0, "reason", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "duration");
	assert_int_equal(event_str(out, "end", 0, "ended", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "as_asked");
	assert_int_equal(snapshots_of("end"), 1);
}

/*
 * --min-interval folds hits as it folds stops, and says them as hits: the
 * first hit has its snapshot, the two after it within 10 s are folded into
 * the next one (the exit's).
 */
static void test_min_interval_hits(void **state)
{
	char err[4096];
	int i, n, hits = 0;

	need_root();
	assert_int_equal(run_ptbpf("--min-interval 10s --trigger-on leaf -- " TRIGGER " 3 100 100",
				   err, sizeof(err), NULL),
			 0);
	assert_int_equal(snapshots_of("trigger"), 1);
	n = count_events(out, "snapshot");
	for (i = 0; i < n; i++) {
		hits += event_field(out, "snapshot", i, "folded_hits") > 0 ?
				(int)event_field(out, "snapshot", i, "folded_hits") :
				0;
		assert_int_equal(event_field(out, "snapshot", i, "folded_stops"), -1);
	}
	assert_int_equal(hits, 2);
	if (!strstr(err, ", 2 earlier hits folded in") || strstr(err, "earlier stop"))
		fail_msg("the hits folded in are not said as hits:\n%s", err);
}

/* --min-history 1s: the hit at 0.5 s is ignored, the one at 1.5 s is not. */
static void test_min_history(void **state)
{
	char err[4096], why[32];

	need_root();
	assert_int_equal(run_ptbpf("--min-history 1s --trigger-on leaf -- " TRIGGER " 2 500 1000",
				   err, sizeof(err), NULL),
			 0);
	assert_int_equal(count_events(out, "trigger"), 2);
	assert_int_equal(event_str(out, "trigger", 0, "ignored", why, sizeof(why)), 0);
	assert_string_equal(why, "min_history");
	assert_int_not_equal(event_str(out, "trigger", 1, "ignored", why, sizeof(why)), 0);
	assert_int_equal(snapshots_of("trigger"), 1);
	assert_int_equal(event_field(out, "snapshot", 0, "trigger_ts"),
			 event_field(out, "trigger", 1, "ts"));
}

#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_five_calls),	   T(test_second_thread),	  T(test_bad_symbols),
		T(test_pid_library),	   T(test_trigger_limit),	  T(test_duration),
		T(test_min_history),	   T(test_min_interval_hits),	  T(test_ifunc),
		T(test_trigger_limit_hot), T(test_trigger_limit_crashed),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
