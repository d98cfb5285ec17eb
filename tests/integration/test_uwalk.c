// SPDX-License-Identifier: GPL-2.0
/*
 * The reference stack walker (user/unwind/uwalk.h) over CFI tables
 * (user/unwind/cfitab.h) against gdb, frame for frame. Each case runs a
 * corpus program (tests/progs/uw/uwstack.c: -O0 with frame pointers, -O2
 * without) under gdb in batch mode (tests/gdbstack.py), which stops at
 * breakpoints in a known leaf, inside a PLT stub, or at every instruction
 * of a function (stepi), and writes at each stop the thread's rip, rsp and
 * rbp, its live stack (rsp to the end of its mapping), the process's maps
 * and gdb's own frames (`bt`'s, with their pcs, past main to _start or a
 * thread's clone3). The test builds a table for each mapped executable
 * file, walks the stack copy from those registers, and asserts the walk's
 * pcs are gdb's, all of them, with no frame-pointer step, and that it
 * ended at the CFI's end-of-stack row where gdb found the outermost frame.
 *
 * The one documented exception: a signal handler on the path. The
 * kernel's signal frame (glibc's __restore_rt, a CFA expression that
 * dereferences the saved context) is not covered by a table row, so the
 * walk matches gdb up to and including the trampoline's frame and then
 * falls back to the frame pointer: the frame after it must be marked
 * (uwalk_result.fallback), or the walk must end there; what it found is
 * shown, not compared.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/mman.h>

#include "integ.h"
#include "proc/mapline.h"
#include "unwind/cfitab.h"
#include "unwind/uwalk.h"

#define MAX_MAPS 512
#define MAX_GDB_FRAMES 128
#define MAX_FILES 64

/* one stop of gdbstack.py */
struct stop {
	struct uwalk_regs regs;
	uint64_t stack_addr;
	uint8_t *stack;
	size_t stack_len;
	struct uwalk_map maps[MAX_MAPS];
	unsigned int nr_maps;
	uint64_t pc[MAX_GDB_FRAMES];
	bool sigtramp[MAX_GDB_FRAMES];
	char name[MAX_GDB_FRAMES][64];
	int n;
	char last[64];
};

/* the tables of the files the stops map, built once a case */
static struct {
	char path[PATH_MAX];
	struct cfitab tab;
	int rc;
} files[MAX_FILES];
static int nr_files;

static char dir[64];

static const struct cfitab *table_of(const char *path)
{
	int i;

	for (i = 0; i < nr_files; i++)
		if (!strcmp(files[i].path, path))
			return files[i].rc ? NULL : &files[i].tab;
	assert_true(nr_files < MAX_FILES);
	snprintf(files[i].path, sizeof(files[i].path), "%s", path);
	files[i].rc = cfitab_build(path, &files[i].tab);
	if (files[i].rc)
		print_message("  %s: no table (%s)\n", path, strerror(-files[i].rc));
	nr_files++;
	return files[i].rc ? NULL : &files[i].tab;
}

static void tables_free(void)
{
	int i;

	for (i = 0; i < nr_files; i++)
		cfitab_free(&files[i].tab);
	nr_files = 0;
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Reads stop @i of @out into @s; false when there is no such file. */
static bool read_stop(const char *out, int i, struct stop *s)
{
	char path[300], *txt, *line, *save;
	unsigned long long a, b, c;

	snprintf(path, sizeof(path), "%s/stop-%03d.txt", out, i);
	txt = slurp(path);
	if (!txt)
		return false;
	memset(s, 0, sizeof(*s));
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "regs %llx %llx %llx", &a, &b, &c) == 3) {
			s->regs = (struct uwalk_regs){ .pc = a, .sp = b, .bp = c };
		} else if (!strncmp(line, "map ", 4)) {
			struct snap_map m;
			const struct cfitab *tab = NULL;

			if (mapline_parse(line + 4, &m) != 1)
				continue;
			if ((m.prot & PROT_EXEC) && s->nr_maps < MAX_MAPS) {
				if (m.path && m.path[0] == '/')
					tab = table_of(m.path);
				/* a table whose segments do not hold this offset: none */
				if (uwalk_map_init(&s->maps[s->nr_maps], m.start, m.start + m.len,
						   m.pgoff, tab) == -ERANGE)
					print_message("  %s at 0x%llx: no executable segment\n",
						      m.path, (unsigned long long)m.pgoff);
				s->nr_maps++;
			}
			free(m.path);
		} else if (!strncmp(line, "stack ", 6)) {
			char *hex = strchr(line + 6, ' ');
			size_t k, n;

			assert_non_null(hex);
			s->stack_addr = strtoull(line + 6, NULL, 16);
			hex++;
			n = strlen(hex) / 2;
			s->stack = malloc(n ? n : 1);
			assert_non_null(s->stack);
			for (k = 0; k < n; k++)
				s->stack[k] =
					(uint8_t)(hexval(hex[2 * k]) << 4 | hexval(hex[2 * k + 1]));
			s->stack_len = n;
		} else if (!strncmp(line, "frame ", 6) && s->n < MAX_GDB_FRAMES) {
			char kind[16] = "";

			if (sscanf(line, "frame %llx %15s %63s", &a, kind, s->name[s->n]) < 2)
				fail_msg("bad line in %s: %s", path, line);
			s->sigtramp[s->n] = !strcmp(kind, "sigtramp");
			s->pc[s->n++] = a;
		} else if (!strncmp(line, "last ", 5)) {
			snprintf(s->last, sizeof(s->last), "%s", line + 5);
		}
	}
	free(txt);
	return true;
}

/* the walker reads only the stack gdb copied */
static int read_copy(void *ctx, uint64_t addr, size_t len, void *buf)
{
	const struct stop *s = ctx;

	if (addr < s->stack_addr || addr - s->stack_addr > s->stack_len ||
	    len > s->stack_len - (addr - s->stack_addr))
		return -EFAULT;
	memcpy(buf, s->stack + (addr - s->stack_addr), len);
	return 0;
}

static void show(const struct stop *s, const struct uwalk_result *r)
{
	int i;

	print_message("    gdb:  ");
	for (i = 0; i < s->n; i++)
		print_message(" %llx%s %s", (unsigned long long)s->pc[i],
			      s->sigtramp[i] ? "(sigtramp)" : "", s->name[i]);
	print_message(" [%s]\n    uwalk:", s->last);
	for (i = 0; i < (int)r->n; i++)
		print_message(" %llx%s", (unsigned long long)r->pc[i],
			      r->fallback & (1ull << i) ? "(fp)" : "");
	print_message(" [%s]\n", uwalk_stop_name(r->stop));
}

struct tally {
	int stops, frames, signal_stops;
};

/*
 * Walks stop @s and compares with gdb: false (and why, shown) when the
 * walk is not gdb's frame for frame.
 */
static bool check_stop(const struct stop *s, int i, struct tally *t)
{
	struct uwalk_result r;
	int k, sig = -1;

	assert_true(s->n > 0);
	assert_true(s->stack_len > 0);
	assert_int_equal(s->regs.pc, s->pc[0]);
	assert_int_equal(uwalk(s->maps, s->nr_maps, &s->regs, read_copy, (void *)s, &r), 0);
	for (k = 0; k < s->n && sig < 0; k++)
		if (s->sigtramp[k])
			sig = k;
	for (k = 0; k < s->n && (sig < 0 || k <= sig); k++) {
		if (k >= (int)r.n || r.pc[k] != s->pc[k] || (r.fallback & (1ull << k))) {
			print_message("  stop %d: frame %d (%s) differs\n", i, k, s->name[k]);
			show(s, &r);
			return false;
		}
	}
	if (sig >= 0) {
		/* the signal frame: a frame-pointer step after it, or the end */
		if ((int)r.n > sig + 1 && !(r.fallback & (1ull << (sig + 1)))) {
			print_message("  stop %d: the frame after the signal frame is not marked\n",
				      i);
			show(s, &r);
			return false;
		}
		if (!t->signal_stops++) {
			print_message(
				"  stop %d: gdb's frames matched up to the signal frame (#%d), "
				"then the frame pointer's:\n",
				i, sig);
			show(s, &r);
		}
		t->frames += sig + 1;
		return true;
	}
	if ((int)r.n != s->n || r.fallback) {
		print_message("  stop %d: %u frames, gdb %d%s\n", i, r.n, s->n,
			      r.fallback ? ", some by frame pointer" : "");
		show(s, &r);
		return false;
	}
	/* gdb found the outermost frame: the CFI's end row says so too */
	if (!strcmp(s->last, "outermost") && r.stop != UWALK_STOP_END) {
		print_message("  stop %d: the walk ended by %s, gdb at the outermost frame\n", i,
			      uwalk_stop_name(r.stop));
		show(s, &r);
		return false;
	}
	t->frames += s->n;
	return true;
}

/*
 * Runs @prog @mode under gdbstack.py with @stops (@bind_now: no lazy
 * binding, for stepping), and checks every stop it wrote; at least
 * @min_stops of them, and each of @names (space-separated; SIGTRAMP: a
 * signal trampoline's) a frame of some stop: the path the case is for was
 * walked.
 */
static void run_case(const char *prog, const char *mode, const char *stops, bool bind_now,
		     int min_stops, const char *names)
{
	char out[200], cmd[1200], path[260], *txt, want[16][64];
	struct stop *s = malloc(sizeof(*s));
	bool seen[16] = { false };
	struct tally t = { 0 };
	static int nr_case;
	int st, i, k, w, nr_want = 0, bad = 0;
	const char *p = names;

	assert_non_null(s);
	while (nr_want < 16 && sscanf(p, "%63s%n", want[nr_want], &k) == 1) {
		nr_want++;
		p += k;
	}
	snprintf(out, sizeof(out), "%s/%02d-%s-%s", dir, nr_case++, prog, mode);
	assert_int_equal(mkdir(out, 0755), 0);
	snprintf(cmd, sizeof(cmd),
		 "GDBSTACK_OUT=%s GDBSTACK_STOPS='%s' timeout 300 gdb -nx -batch "
		 "-ex 'set debuginfod enabled off' %s -x tests/gdbstack.py --args " PROGS
		 "%s %s >%s/gdb.log 2>&1 </dev/null",
		 out, stops, bind_now ? "-ex 'set environment LD_BIND_NOW=1'" : "", prog, mode,
		 out);
	st = system(cmd);
	snprintf(path, sizeof(path), "%s/stops", out);
	txt = slurp(path);
	if (st != 0 || !txt) {
		snprintf(cmd, sizeof(cmd), "tail -n 20 %s/gdb.log", out);
		free(txt);
		txt = run_out(cmd, NULL);
		fail_msg("gdb on %s %s: status %d, no stops written:\n%s", prog, mode, st, txt);
	}
	free(txt);
	for (i = 0; read_stop(out, i, s); i++) {
		t.stops++;
		if (!check_stop(s, i, &t))
			bad++;
		for (w = 0; w < nr_want; w++)
			for (k = 0; k < s->n; k++)
				seen[w] |= !strcmp(want[w], "SIGTRAMP") ?
						   s->sigtramp[k] :
						   !strcmp(want[w], s->name[k]);
		free(s->stack);
	}
	print_message("%s %s: %d stops, %d frames of gdb's walked alike, %d stops through a "
		      "signal frame, %d differ\n",
		      prog, mode, t.stops, t.frames, t.signal_stops, bad);
	free(s);
	tables_free();
	assert_int_equal(bad, 0);
	assert_true(t.stops >= min_stops);
	for (w = 0; w < nr_want; w++)
		if (!seen[w])
			fail_msg("%s %s: no stop had a frame %s", prog, mode, want[w]);
}

static void test_plain_O0(void **state)
{
	run_case("uwstack-O0", "plain", "b:*uw_leaf b:uw_leaf b:*uw_c b:uw_c", false, 3,
		 "uw_leaf uw_c uw_b uw_a main _start");
}

static void test_plain_O2(void **state)
{
	run_case("uwstack-O2", "plain", "b:*uw_leaf b:*uw_c b:uw_c", false, 2,
		 "uw_leaf uw_c uw_b uw_a main _start");
}

/* every instruction of uw_b, uw_c, strcmp in libc, uw_leaf and back */
static void test_every_step_O0(void **state)
{
	run_case("uwstack-O0", "plain", "s:*uw_b:600", true, 50, "uw_leaf uw_c uw_b");
}

static void test_every_step_O2(void **state)
{
	run_case("uwstack-O2", "plain", "s:*uw_b:600", true, 30, "uw_leaf uw_c uw_b");
}

/*
 * uw_noreturn's last instruction calls uw_exit, which does not return: its
 * return address is past uw_noreturn's FDE (the next function, or padding
 * without CFI); the call's own byte, one back, has uw_noreturn's row
 */
static void test_noreturn_call(void **state)
{
	run_case("uwstack-O2", "noreturn", "b:*uw_leaf b:*uw_exit", false, 2,
		 "uw_leaf uw_exit uw_noreturn uw_c");
	run_case("uwstack-O0", "noreturn", "b:*uw_leaf b:uw_exit", false, 2,
		 "uw_leaf uw_exit uw_noreturn uw_c");
}

static void test_recursion(void **state)
{
	run_case("uwstack-O2", "recurse", "b:*uw_leaf b:*uw_rec", false, 2, "uw_leaf uw_rec uw_c");
	run_case("uwstack-O0", "recurse", "b:uw_leaf", false, 1, "uw_leaf uw_rec uw_c");
}

/*
 * libc's qsort calls back into the program: through its msort_with_tmp
 * (recursive) and qsort_r, frameless -O2 code that only CFI unwinds
 */
static void test_qsort_callback(void **state)
{
	run_case("uwstack-O2", "qsort", "b:*uw_leaf s:*uw_cmp:40", true, 3,
		 "uw_leaf uw_cmp uw_sort uw_c");
	run_case("uwstack-O0", "qsort", "b:*uw_leaf b:uw_leaf", false, 2,
		 "uw_leaf uw_cmp uw_sort uw_c");
}

static void test_signal_handler(void **state)
{
	run_case("uwstack-O2", "signal", "b:*uw_leaf b:*on_usr1", false, 2,
		 "uw_leaf on_usr1 SIGTRAMP");
	run_case("uwstack-O0", "signal", "b:*uw_leaf b:uw_leaf b:on_usr1", false, 2,
		 "uw_leaf on_usr1 SIGTRAMP");
}

/* a second thread: gdb and the walk both end at clone3's CFI */
static void test_second_thread(void **state)
{
	run_case("uwstack-O2", "thread", "b:*uw_leaf b:*uw_c", false, 2,
		 "uw_leaf uw_c worker start_thread clone3");
	run_case("uwstack-O0", "thread", "b:uw_leaf", false, 1, "uw_leaf worker clone3");
}

/* libcrashlib.so, no frame pointers: every instruction of its three functions */
static void test_frameless_library(void **state)
{
	run_case("uwstack-O2", "lib", "b:*lib_walk s:*lib_entry:200", true, 20,
		 "lib_walk lib_sum lib_entry uw_c");
	run_case("uwstack-O0", "lib", "b:*lib_walk s:*lib_entry:200", true, 20,
		 "lib_walk lib_sum lib_entry uw_c");
}

/* inside the PLT stub of lib_entry and the PLT's header, lazily bound */
static void test_plt_stub(void **state)
{
	run_case("uwstack-O2", "lib", "plt:lib_entry", false, 5, "lib_entry@plt uw_c");
	run_case("uwstack-O0", "lib", "plt:lib_entry", false, 5, "lib_entry@plt uw_c");
}

/* libuwlib.so, dlopen()ed, its CFI in .debug_frame, calls back */
static void test_dlopen_library(void **state)
{
	run_case("uwstack-O2", "dlopen", "b:*uw_leaf b:*uwlib_entry s:*uwlib_mid:60", false, 10,
		 "uw_leaf uw_cb uwlib_mid uwlib_entry uw_dl");
	run_case("uwstack-O0", "dlopen", "b:uw_leaf b:*uw_cb", false, 2,
		 "uw_leaf uw_cb uwlib_mid uwlib_entry uw_dl");
}

static int setup_group(void **state)
{
	char *d = make_tmpdir();

	if (!d)
		return -1;
	snprintf(dir, sizeof(dir), "%s", d);
	free(d);
	return 0;
}

static int teardown_group(void **state)
{
	if (dir[0] && !getenv("TEST_KEEP"))
		rm_rf(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_O0),       cmocka_unit_test(test_plain_O2),
		cmocka_unit_test(test_every_step_O0),  cmocka_unit_test(test_every_step_O2),
		cmocka_unit_test(test_noreturn_call),  cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_qsort_callback), cmocka_unit_test(test_signal_handler),
		cmocka_unit_test(test_second_thread),  cmocka_unit_test(test_frameless_library),
		cmocka_unit_test(test_plt_stub),       cmocka_unit_test(test_dlopen_library),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
