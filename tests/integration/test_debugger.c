// SPDX-License-Identifier: GPL-2.0
/*
 * Under a debugger and at a crash: the stops say what they were (signal,
 * kind, the instruction pointer), a debugger's internal single-steps make
 * no snapshot of their own, and --min-interval and --max-size keep the
 * output within bounds. Real gdb, real BPF, the sample backend. Root only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "integ.h"

#define TICKER PROGS "ticker"
#define DUMP_BIN "./ptbpf-dump"

struct fx {
	char *dir;
	char out[600], log[600];
	pid_t target, ptbpf;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = fx_dir(f->out, sizeof(f->out), f->log, sizeof(f->log));
	*state = f;
	return f->dir ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fx_show_log(f->log);
	fx_end_ptbpf(f->ptbpf);
	kill_wait(f->target);
	fx_dir_remove(f->dir);
	free(f);
	return 0;
}

/* ptbpf -o OUT OPTS... --pid TARGET; waits for "start". */
static void start_ptbpf(struct fx *f, const char *const opts[])
{
	char *argv[32], pid[16];
	int n = 0, i;

	argv[n++] = PTBPF_BIN;
	argv[n++] = "-b";
	argv[n++] = "sample";
	argv[n++] = "-F"; /* samples are looked for: a fixed rate */
	argv[n++] = "4000";
	argv[n++] = "-o";
	argv[n++] = f->out;
	for (i = 0; opts && opts[i]; i++)
		argv[n++] = (char *)opts[i];
	snprintf(pid, sizeof(pid), "%d", f->target);
	argv[n++] = "--pid";
	argv[n++] = pid;
	argv[n] = NULL;
	f->ptbpf = spawn(argv, f->log);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
}

static void start_ticker(struct fx *f, const char *iters, const char *ms)
{
	char *argv[] = { TICKER, (char *)iters, (char *)ms, NULL };

	f->target = spawn(argv, NULL);
	assert_true(f->target > 0);
	msleep(50);
}

/*
 * The run-time range of function @sym of @prog in process @pid: its
 * address and size from nm, plus where /proc/PID/maps put the file
 * (offset 0): the test programs are PIE.
 */
static void func_range(pid_t pid, const char *prog, const char *sym, unsigned long long *lo,
		       unsigned long long *hi)
{
	char cmd[512], path[PATH_MAX], line[1024], file[PATH_MAX], *o;
	unsigned long long addr = 0, size = 0, start, off, base = 0;
	FILE *m;

	snprintf(cmd, sizeof(cmd), "nm -S %s | awk '$4 == \"%s\"'", prog, sym);
	o = run_out(cmd, NULL);
	assert_int_equal(sscanf(o, "%llx %llx", &addr, &size), 2);
	free(o);
	assert_non_null(realpath(prog, path));
	snprintf(cmd, sizeof(cmd), "/proc/%d/maps", pid);
	m = fopen(cmd, "r");
	assert_non_null(m);
	while (fgets(line, sizeof(line), m))
		if (sscanf(line, "%llx-%*x %*s %llx %*s %*s %s", &start, &off, file) == 3 &&
		    off == 0 && !strcmp(file, path)) {
			base = start;
			break;
		}
	fclose(m);
	assert_true(base != 0);
	*lo = base + addr;
	*hi = *lo + size;
}

/* The @nth (0-based) line of event @name whose text has @with, or NULL. */
static char *event_line(const char *dir, const char *name, const char *with, int nth)
{
	char path[700], pat[64], *buf, *line, *save, *ret = NULL;

	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	snprintf(pat, sizeof(pat), "{\"event\":\"%s\"", name);
	buf = slurp(path);
	if (!buf)
		return NULL;
	whole_lines(buf);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, pat, strlen(pat)) && (!with || strstr(line, with)) &&
		    nth-- == 0) {
			ret = strdup(line);
			break;
		}
	free(buf);
	return ret;
}

static int count_lines(const char *dir, const char *name, const char *with)
{
	char *l;
	int n = 0;

	while ((l = event_line(dir, name, with, n))) {
		free(l);
		n++;
	}
	return n;
}

/* The value of "@key":"0x..." in @line. */
static unsigned long long hex_field(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":\"0x", key);
	p = strstr(line, pat);
	assert_non_null(p);
	return strtoull(p + strlen(pat), NULL, 16);
}

static unsigned long long num_field(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	assert_non_null(p);
	return strtoull(p + strlen(pat), NULL, 10);
}

#define HITS 3

/*
 * gdb -batch with a breakpoint hit HITS times: HITS stop events naming
 * SIGTRAP and a breakpoint at an IP inside report(), HITS snapshots for
 * them, and none for the single-steps gdb takes to step over each
 * breakpoint (those stops are there, kind single_step).
 */
static void test_gdb_breakpoint_hits(void **state)
{
	struct fx *f = *state;
	unsigned long long lo, hi, ip;
	char cmd[1024], *l, dir[700], *o;
	int i, st;

	need_root();
	start_ticker(f, "1000000", "20");
	start_ptbpf(f, NULL);
	func_range(f->target, TICKER, "report", &lo, &hi);
	snprintf(cmd, sizeof(cmd),
		 "timeout 60 gdb -nx -batch -p %d -ex 'break report' "
		 "-ex continue -ex continue -ex continue -ex delete "
		 "-ex detach >/dev/null 2>&1",
		 f->target);
	st = system(cmd);
	assert_int_equal(WEXITSTATUS(st), 0);
	/* the last run after the detach, then its stop's snapshot is out */
	assert_true(wait_events(f->out, "snapshot", HITS + 1, 60));
	msleep(200);
	assert_int_equal(count_lines(f->out, "stop", "\"kind\":\"breakpoint\""), HITS);
	for (i = 0; i < HITS; i++) {
		l = event_line(f->out, "stop", "\"kind\":\"breakpoint\"", i);
		assert_non_null(strstr(l, "\"signal\":\"SIGTRAP\""));
		ip = hex_field(l, "ip");
		/* x86's int3 leaves the IP after the trap: still inside */
		if (ip < lo || ip >= hi)
			fail_msg("breakpoint %d at 0x%llx, report() is "
				 "0x%llx-0x%llx",
				 i, ip, lo, hi);
		free(l);
	}
	/* gdb stepped over its breakpoint twice: stops, but no snapshots */
	assert_true(count_lines(f->out, "stop", "\"kind\":\"single_step\"") >= HITS - 1);
	assert_int_equal(count_lines(f->out, "snapshot", "\"stop_kind\":\"breakpoint\""), HITS);
	assert_int_equal(count_lines(f->out, "snapshot", "\"stop_kind\":\"single_step\""), 0);
	/* and the attach (SIGSTOP): HITS + 1 stop snapshots in all */
	assert_int_equal(count_lines(f->out, "snapshot", "\"trigger\":\"stop\""), HITS + 1);
	assert_int_equal(count_events(f->out, "snapshot_skipped"), 0);
	/* ptbpf-dump names the function the breakpoint stopped in */
	l = event_line(f->out, "snapshot", "\"stop_kind\":\"breakpoint\"", 0);
	snprintf(dir, sizeof(dir), "%s/snapshot-%06llu", f->out, num_field(l, "snapshot"));
	free(l);
	snprintf(cmd, sizeof(cmd), "%s %s", DUMP_BIN, dir);
	o = run_out(cmd, NULL);
	assert_non_null(strstr(o, "  stopped: tid "));
	assert_non_null(strstr(o, ", breakpoint, si_code "));
	assert_non_null(strstr(o, " at report+0x"));
	free(o);
}

/* The regular files' bytes under the snapshot directories of @out. */
static unsigned long long snap_bytes(const char *out)
{
	char cmd[800], *o;
	unsigned long long n;

	snprintf(cmd, sizeof(cmd),
		 "find %s -mindepth 2 -type f -printf '%%s\\n' 2>/dev/null | "
		 "awk '{s+=$1} END {print s+0}'",
		 out);
	o = run_out(cmd, NULL);
	n = strtoull(o, NULL, 10);
	free(o);
	return n;
}

/*
 * `break report if iter < 0`, a condition that never holds, on a target
 * that calls report() every 10 ms, until 100 stops were logged (then it
 * is killed; gdb's attach and its stops take what a loaded machine gives
 * them, so the count is waited for, not assumed from the target's
 * length): the snapshots stay at most one per --min-interval (plus the
 * last stop's) and within --max-size, measured while gdb runs.
 */
static void test_never_true_condition(void **state)
{
	/* 4M: events.jsonl's share (512K) holds every line of the run */
	const char *const opts[] = {
		"--min-interval", "500ms", "-s", "2M", "--max-size", "4M", NULL
	};
	struct fx *f = *state;
	unsigned long long used, most = 0, first, last, max = 4 << 20;
	char cmd[1024], *l;
	int stops, snaps, allowed, st;
	pid_t gdb;

	need_root();
	start_ticker(f, "1000000", "10"); /* killed after 100 stops */
	start_ptbpf(f, opts);
	snprintf(cmd, sizeof(cmd),
		 "exec timeout 60 gdb -nx -batch -p %d "
		 "-ex 'break report if iter < 0' -ex continue "
		 ">/dev/null 2>&1",
		 f->target);
	gdb = fork();
	if (gdb == 0) {
		execl("/bin/sh", "sh", "-c", cmd, NULL);
		_exit(127);
	}
	while (waitpid(gdb, &st, WNOHANG) == 0) {
		used = snap_bytes(f->out);
		most = used > most ? used : most;
		if (count_events(f->out, "stop") >= 100)
			kill(f->target, SIGKILL); /* gdb ends with it */
		msleep(20);
	}
	kill(f->target, SIGKILL); /* gdb timed out first (60 s) */
	assert_int_equal(wait_exit(f->ptbpf, 60), 0);
	f->ptbpf = 0;
	used = snap_bytes(f->out);
	most = used > most ? used : most;
	stops = count_events(f->out, "stop");
	snaps = count_events(f->out, "snapshot");
	l = event_line(f->out, "stop", NULL, 0);
	first = num_field(l, "ts");
	free(l);
	l = event_line(f->out, "stop", NULL, stops - 1);
	last = num_field(l, "ts");
	free(l);
	/* one per 500 ms from the first stop, the last stop's, the exit's */
	allowed = (int)((last - first) / 500000000ULL) + 3;
	print_message("    %d stops over %.2f s, %d snapshots (at most %d), "
		      "%llu bytes at most\n",
		      stops, (last - first) / 1e9, snaps, allowed, most);
	assert_true(stops >= 100);
	assert_true(snaps <= allowed);
	assert_true(snaps >= 2);
	assert_true(most <= max);
	/* the last snapshot came after the last stop: it holds its bytes */
	l = event_line(f->out, "snapshot", NULL, snaps - 1);
	assert_true(num_field(l, "trigger_ts") >= last);
	free(l);
}

/*
 * --max-size 1M over 100 stops: the directory never holds more than
 * 1 MiB of snapshots (measured after every stop's snapshot), the newest
 * is always there, and the removals are reported. On a loaded machine
 * 100 stops may record less than 1 MiB: then the stops go on until
 * --max-size has had to act (400 at most). events.jsonl is rotated within
 * its share meanwhile (to events.jsonl.1, the line just written too):
 * both files are read, and lines are matched by time, not counted.
 */
static char *recent_events(const char *dir)
{
	char path[700], *old, *cur, *both;

	snprintf(path, sizeof(path), "%s/events.jsonl.1", dir);
	old = slurp(path);
	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	cur = slurp(path);
	whole_lines(old);
	whole_lines(cur);
	if (asprintf(&both, "%s%s", old ? old : "", cur ? cur : "") < 0)
		both = NULL;
	free(old);
	free(cur);
	return both;
}

/* Field @key of the newest line of event @name (0: none). */
static unsigned long long newest_field(const char *dir, const char *name, const char *key)
{
	char pat[64], *buf, *p, *q = NULL;
	unsigned long long v = 0;

	snprintf(pat, sizeof(pat), "{\"event\":\"%s\"", name);
	buf = recent_events(dir);
	for (p = buf; p && (p = strstr(p, pat)); p++)
		q = p;
	if (q)
		v = num_field(q, key);
	free(buf);
	return v;
}

/* Whether the stop at @ts has its snapshot, or its snapshot_skipped. */
static bool answered(const char *dir, unsigned long long ts)
{
	static const char *const kinds[] = { "{\"event\":\"snapshot\"",
					     "{\"event\":\"snapshot_skipped\"" };
	char *buf = recent_events(dir), *p;
	bool found = false;
	size_t k;

	for (k = 0; k < 2 && !found; k++)
		for (p = buf; p && !found && (p = strstr(p, kinds[k])); p++)
			found = num_field(p, "trigger_ts") == ts;
	free(buf);
	return found;
}

static void test_max_size_100_stops(void **state)
{
	const char *const opts[] = { "-s", "512K", "--max-size", "1M", NULL };
	struct fx *f = *state;
	unsigned long long used, most = 0, id, prev, ts = 0;
	char path[700], *log;
	double end;
	int i;

	need_root();
	start_ticker(f, "1000000", "1");
	start_ptbpf(f, opts);
	for (i = 0; i < 100 || (i < 400 && !count_events(f->out, "snapshot_removed")); i++) {
		/* ~80 ms of samples a stop: 100 of them hold about 1 MiB */
		msleep(80);
		prev = newest_field(f->out, "stop", "ts");
		assert_int_equal(kill(f->target, SIGSTOP), 0);
		for (end = mono_s() + 60;
		     mono_s() < end && (ts = newest_field(f->out, "stop", "ts")) <= prev;)
			msleep(2);
		if (ts <= prev)
			fail_msg("stop %d: no stop event", i);
		/*
		 * each stop has its snapshot, or a snapshot_skipped when the
		 * target did not run since the last one (a busy machine)
		 */
		for (end = mono_s() + 60; mono_s() < end && !answered(f->out, ts);)
			msleep(2);
		if (!answered(f->out, ts))
			fail_msg("stop %d: no snapshot: %s", i, slurp(f->log));
		used = snap_bytes(f->out);
		most = used > most ? used : most;
		id = newest_field(f->out, "snapshot", "snapshot");
		snprintf(path, sizeof(path), "%s/snapshot-%06llu", f->out, id);
		/* the newest stays */
		if (id && access(path, F_OK))
			fail_msg("stop %d: the newest snapshot %s is gone", i, path);
		assert_int_equal(kill(f->target, SIGCONT), 0);
		if (!wait_stopped(f->target, 0, 60))
			fail_msg("stop %d: the target did not run", i);
	}
	print_message("    %d stops: %llu bytes at most, %d snapshots "
		      "removed\n",
		      i, most, count_events(f->out, "snapshot_removed"));
	assert_true(most <= 1 << 20);
	assert_true(count_events(f->out, "snapshot_removed") > 0);
	log = slurp(f->log);
	assert_non_null(strstr(log, "for --max-size"));
	free(log);
}

/*
 * A crash: fatal carries the faulting IP (inside crash()), si_code
 * SEGV_MAPERR and the fault address (the NULL it wrote to).
 */
static void test_segv_fatal(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PTBPF_BIN, "-b", "sample", "-o", f->out, "--", PROGS "crash", "100", NULL };
	unsigned long long ip, off, size;
	char cmd[800], want[96], *l, *o, *p;

	need_root();
	f->ptbpf = spawn(argv, f->log);
	assert_int_equal(wait_exit(f->ptbpf, 60), 128 + SIGSEGV);
	f->ptbpf = 0;
	l = event_line(f->out, "fatal", NULL, 0);
	assert_non_null(l);
	assert_non_null(strstr(l, "\"signal\":\"SIGSEGV\""));
	assert_non_null(strstr(l, "\"si_code\":1,\"si_code_name\":\"SEGV_MAPERR\""));
	assert_int_equal(hex_field(l, "addr"), 0);
	ip = hex_field(l, "ip");
	free(l);
	/* crash() as the snapshot's perf.data maps it, within its size */
	snprintf(cmd, sizeof(cmd), "%s %s/snapshot-000001", DUMP_BIN, f->out);
	o = run_out(cmd, NULL);
	p = strstr(o, " at crash+0x");
	assert_non_null(p);
	off = strtoull(p + strlen(" at crash+0x"), NULL, 16);
	snprintf(want, sizeof(want), "(0x%llx), fault address 0x0\n", ip);
	assert_non_null(strstr(o, want));
	free(o);
	snprintf(cmd, sizeof(cmd), "nm -S %scrash | awk '$4 == \"crash\"'", PROGS);
	o = run_out(cmd, NULL);
	assert_int_equal(sscanf(o, "%*x %llx", &size), 1);
	free(o);
	assert_true(off < size);
}

#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_gdb_breakpoint_hits),
		T(test_never_true_condition),
		T(test_max_size_100_stops),
		T(test_segv_fatal),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
