// SPDX-License-Identifier: GPL-2.0
/*
 * The crash record (root): programs that die at the end of a known call
 * path (tests/progs/crashpath.c, with and without frame pointers, -O0 and
 * -O2; in the program, in libc through strlen(NULL), abort() from an
 * assertion, in a second thread, in a shared library of our own without
 * frame pointers (tests/progs/crashlib; crashdl dlopen()s it and dies at
 * once), and of a SIGSEGV sent from outside) are
 * recorded by ptbpf, and the fatal snapshot's backtrace, as ptbpf-dump
 * shows it and as `perf script` unwinds the crash sample, is compared
 * frame by frame with `gdb -batch -ex run -ex bt` on the same program.
 *
 * gdb shows calls inlined into a frame, and a function that ended in a
 * tail call (from the call sites' DWARF), as frames of their own;
 * ptbpf-dump does too and marks them, perf script does not show them: perf
 * is compared with the other frames.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "integ.h"

#define MAX_FRAMES 64

struct frames {
	int n;
	char name[MAX_FRAMES][96];
	bool extra[MAX_FRAMES]; /* ptbpf-dump: inlined or a tail call */
};

static char dir[64];

/* "NAME+0x1c ..." or "NAME (args) ...": NAME */
static void take_name(const char *s, char *out, size_t len)
{
	size_t n = strcspn(s, "+ (\t\n");

	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

/*
 * gdb's backtrace of @prog @mode, run to its fatal signal: "#N  NAME (...)"
 * or "#N  0xADDR in NAME (...)".
 */
static void gdb_frames(const char *prog, const char *mode, struct frames *f)
{
	char cmd[512], *txt, *line, *save, *p;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "gdb -nx -batch -ex 'set debuginfod enabled off' -ex run -ex bt "
		 "--args " PROGS "%s %s 2>/dev/null </dev/null",
		 prog, mode);
	txt = run_out(cmd, &st);
	memset(f, 0, sizeof(*f));
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != '#' || f->n == MAX_FRAMES)
			continue;
		p = line + 1 + strspn(line + 1, "0123456789");
		p += strspn(p, " ");
		if (!strncmp(p, "0x", 2)) {
			p = strstr(p, " in ");
			if (!p)
				continue;
			p += 4;
		}
		take_name(p, f->name[f->n++], sizeof(f->name[0]));
	}
	free(txt);
}

/* ptbpf -o @out -- PROG MODE; its exit status. */
static int record(const char *out, const char *prog, const char *mode)
{
	char cmd[600];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "%s -q -b sample -o %s -- " PROGS "%s %s >/dev/null 2>%s.log </dev/null",
		 PTBPF_BIN, out, prog, mode, out);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The directory of the snapshot the fatal trigger took in @out. */
static void fatal_snap(const char *out, char *buf, size_t len)
{
	char cause[32];
	int i, n = count_events(out, "snapshot");

	for (i = 0; i < n; i++) {
		event_str(out, "snapshot", i, "trigger", cause, sizeof(cause));
		if (!strcmp(cause, "fatal")) {
			snprintf(buf, len, "%s/snapshot-%06lld", out,
				 event_field(out, "snapshot", i, "snapshot"));
			return;
		}
	}
	fail_msg("no fatal snapshot in %s", out);
}

/* ptbpf-dump's "backtrace at the ..." lines: "    #N NAME+0x.. [inlined] (file:line)". */
static void dump_frames(const char *snap, struct frames *f)
{
	char cmd[400], *txt, *line, *save, *p;
	bool in = false;
	int st;

	snprintf(cmd, sizeof(cmd), "./ptbpf-dump %s", snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	memset(f, 0, sizeof(*f));
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "  backtrace at the ")) {
			in = true;
			continue;
		}
		p = line + strspn(line, " ");
		if (!in || p[0] != '#') {
			in = false;
			continue;
		}
		if (f->n == MAX_FRAMES)
			break;
		p += 1 + strspn(p + 1, "0123456789");
		p += strspn(p, " ");
		f->extra[f->n] = strstr(p, " [inlined]") || strstr(p, " [tail call]");
		take_name(p, f->name[f->n++], sizeof(f->name[0]));
	}
	free(txt);
}

/* perf script's frames of the crash sample: "\tADDR NAME+0x.. (DSO)". */
static void perf_frames(const char *snap, struct frames *f)
{
	char cmd[400], *txt, *line, *save, name[96];
	unsigned long long addr;
	bool in = false;
	int st;

	snprintf(cmd, sizeof(cmd), "perf script -i %s/perf.data -F event,ip,sym 2>/dev/null", snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	memset(f, 0, sizeof(*f));
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* frames start with a tab, the sample's line does not */
		if (line[0] != '\t') {
			in = strstr(line, "crash:") != NULL;
			continue;
		}
		if (!in || f->n == MAX_FRAMES || sscanf(line, " %llx %95s", &addr, name) != 2)
			continue;
		take_name(name, f->name[f->n++], sizeof(f->name[0]));
	}
	free(txt);
}

static void show(const char *who, const struct frames *f)
{
	int i;

	print_message("  %s:", who);
	for (i = 0; i < f->n; i++)
		print_message(" %s%s", f->name[i], f->extra[i] ? "*" : "");
	print_message("\n");
}

/*
 * Records @prog @mode, which must die with @status, and compares the
 * three backtraces: ptbpf-dump's with gdb's frame by frame, perf's with
 * gdb's less the frames ptbpf-dump marks as inlined or tail calls (the
 * first @perf_depth of them; -1: all). gdb stops at main (or a thread's
 * first function): so do the comparisons.
 */
static void check_crash_perf(const char *prog, const char *mode, int status, const char *innermost,
			     int perf_depth)
{
	bool has_level3 = false;
	struct frames g, d, p, phys;
	char out[160], snap[300];
	int i;

	need_root();
	snprintf(out, sizeof(out), "%s/%s-%s", dir, prog, mode);
	assert_int_equal(record(out, prog, mode), status);
	fatal_snap(out, snap, sizeof(snap));
	gdb_frames(prog, mode, &g);
	dump_frames(snap, &d);
	perf_frames(snap, &p);
	print_message("%s %s:\n", prog, mode);
	show("gdb", &g);
	show("ptbpf-dump", &d);
	show("perf script", &p);
	/* gdb must have seen the crash where the program makes it */
	assert_true(g.n >= 4);
	assert_memory_equal(g.name[0], innermost, strlen(innermost));
	for (i = 0; i < g.n; i++)
		has_level3 |= !strcmp(g.name[i], "level3");
	assert_true(has_level3);
	assert_true(d.n >= g.n);
	for (i = 0; i < g.n; i++)
		assert_string_equal(d.name[i], g.name[i]);
	memset(&phys, 0, sizeof(phys));
	for (i = 0; i < g.n; i++)
		if (!d.extra[i])
			memcpy(phys.name[phys.n++], g.name[i], sizeof(g.name[i]));
	if (perf_depth >= 0 && perf_depth < phys.n)
		phys.n = perf_depth;
	if (p.n < phys.n) {
		/* seen once under heavy load, never since: what perf said of it */
		char cmd[700], *txt;

		snprintf(
			cmd, sizeof(cmd),
			"grep -o '\"stack[a-z_]*\":[0-9]*' %s/ptbpf.json; perf script -v -i "
			"%s/perf.data -F event,ip,sym 2>&1 >/dev/null | grep -iE 'unwind|dso|elf' | "
			"grep -v 'map already set' | head -n 40",
			snap, snap);
		txt = run_out(cmd, NULL);
		print_message("%s", txt);
		free(txt);
		fail_msg("perf script unwound %d of the %d frames", p.n, phys.n);
	}
	for (i = 0; i < phys.n; i++)
		assert_string_equal(p.name[i], phys.name[i]);
	print_message("  %d frames of gdb's matched by ptbpf-dump, %d by perf script\n", g.n,
		      phys.n);
}

static void check_crash(const char *prog, const char *mode, int status, const char *innermost)
{
	check_crash_perf(prog, mode, status, innermost, -1);
}

static void test_segv_O0_frame_pointers(void **state)
{
	check_crash("crashpath-O0", "segv", 139, "walk_list");
}

static void test_segv_O2_no_frame_pointers(void **state)
{
	check_crash("crashpath-O2", "segv", 139, "walk_list");
}

static void test_segv_O1_frame_pointers(void **state)
{
	check_crash("crashpath", "segv", 139, "walk_list");
}

/* which strlen libc picks depends on the CPU: __strlen_avx2, _evex... */
static void test_strlen_in_libc(void **state)
{
	check_crash("crashpath-O2", "strlen", 139, "__strlen");
}

/* abort() raises SIGABRT through libc's pthread_kill: its frames first */
static void test_abort_from_assert(void **state)
{
	check_crash("crashpath-O2", "abort", 134, "");
}

static void test_second_thread(void **state)
{
	check_crash("crashpath-O2", "thread", 139, "walk_list");
}

/*
 * In libcrashlib.so, built without frame pointers: lib_walk <- lib_sum <-
 * lib_entry, which a frame-pointer walk skips (%rbp still holds level3's
 * frame), then the program's frames.
 */
static void test_frameless_library(void **state)
{
	check_crash("crashlib", "segv", 139, "lib_walk");
}

/*
 * The same library dlopen()ed and crashed in at once (crashdl): no /proc
 * reading can have seen it, the kernel's MMAP2 record of it names it.
 * perf script (Debian's 6.1) names the fault's frame from it, but was
 * seen to unwind no further when a library's only records are the
 * kernel's (of its code, not of the file's start, as /proc's are): perf
 * is held to that frame.
 */
static void test_dlopen_then_crash(void **state)
{
	check_crash_perf("crashdl", "segv", 139, "lib_walk", 1);
}

/*
 * kill -SEGV from outside: no debugger to compare with, but the stack is
 * the one of the thread that takes the signal, asleep in nap().
 */
static void test_signal_from_outside(void **state)
{
	static const char *const want[] = { "nap", "level3", "level2", "level1", "main" };
	char out[160], snap[300], log[200];
	char *argv[] = { PTBPF_BIN, "-q", "-b", "sample", "-o", out, "--", PROGS "crashpath-O2",
			 "wait",    NULL };
	struct frames d, p;
	unsigned int i, k;
	long long pid;
	char *json;
	pid_t ptbpf;

	need_root();
	snprintf(out, sizeof(out), "%s/wait", dir);
	snprintf(log, sizeof(log), "%s/wait.log", dir);
	ptbpf = spawn(argv, log);
	assert_true(ptbpf > 0);
	assert_true(wait_events(out, "exec", 1, 60));
	pid = event_field(out, "exec", 0, "pid");
	assert_true(pid > 0);
	/* asleep in pause(), past its start: then the signal */
	for (i = 0; i < 600 && task_state((pid_t)pid, (pid_t)pid) != 'S'; i++)
		msleep(50);
	msleep(300);
	assert_int_equal(kill((pid_t)pid, SIGSEGV), 0);
	assert_int_equal(wait_exit(ptbpf, 60), 139);
	fatal_snap(out, snap, sizeof(snap));
	dump_frames(snap, &d);
	perf_frames(snap, &p);
	show("ptbpf-dump", &d);
	show("perf script", &p);
	for (k = 0, i = 0; i < (unsigned int)d.n && k < 5; i++)
		k += !strcmp(d.name[i], want[k]);
	assert_int_equal(k, 5);
	for (k = 0, i = 0; i < (unsigned int)p.n && k < 5; i++)
		k += !strcmp(p.name[i], want[k]);
	assert_int_equal(k, 5);
	/* taken where the signal was delivered, in the thread itself */
	snprintf(log, sizeof(log), "%s/ptbpf.json", snap);
	json = slurp(log);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"at\":\"delivery\""));
	free(json);
}

static int setup_group(void **state)
{
	char *d = make_tmpdir();

	if (!d || geteuid() != 0)
		return 0; /* the tests skip */
	snprintf(dir, sizeof(dir), "%s", d);
	free(d);
	return 0;
}

static int teardown_group(void **state)
{
	if (dir[0])
		rm_rf(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segv_O0_frame_pointers),
		cmocka_unit_test(test_segv_O1_frame_pointers),
		cmocka_unit_test(test_segv_O2_no_frame_pointers),
		cmocka_unit_test(test_strlen_in_libc),
		cmocka_unit_test(test_abort_from_assert),
		cmocka_unit_test(test_second_thread),
		cmocka_unit_test(test_frameless_library),
		cmocka_unit_test(test_dlopen_then_crash),
		cmocka_unit_test(test_signal_from_outside),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
