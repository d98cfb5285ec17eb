// SPDX-License-Identifier: GPL-2.0
/*
 * Call stacks and perf.data as perf writes it, on real sample-backend
 * snapshots: ptbpf (root) records `callstack` (main -> build -> crunch,
 * then main -> walk_and_crash -> crunch -> SIGSEGV) with frame pointers,
 * and `callstack-nofp` (the same without them) with --call-graph dwarf;
 * perf itself then reads the fatal snapshot as a user would: call paths,
 * the header features perf record writes, build-ids against readelf,
 * perf data convert, perf archive, and the name of a thread that exited
 * before the snapshot (`shortthread`).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "integ.h"

static char dir[64], out_fp[128], out_dwarf[128], out_thr[128], log_fp[128], out_nofp[128];
static pid_t pid_fp, pid_dwarf, pid_thr, pid_nofp;

/*
 * ptbpf -F 4000 -o @out OPTS -- PROG 250 (250 ms of the program's CPU
 * time a phase, and its own rate: neither the machine's load nor a
 * default that a cost budget lowers changes what it records): must die
 * of the target's SIGSEGV.
 */
static int record(const char *out, const char *log, const char *opts, const char *prog, pid_t *pid)
{
	char cmd[700];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "%s -b sample -F 4000 %s -o %s -- " PROGS "%s 250 "
		 ">/dev/null 2>%s",
		 PTBPF_BIN, opts, out, prog, log);
	st = system(cmd);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 139)
		return -1;
	*pid = (pid_t)event_field(out, "fatal", 0, "pid");
	return *pid > 0 ? 0 : -1;
}

static int setup_group(void **state)
{
	char *d = make_tmpdir(), log[160];

	if (!d || geteuid() != 0)
		return 0; /* the tests skip */
	snprintf(dir, sizeof(dir), "%s", d);
	free(d);
	snprintf(out_fp, sizeof(out_fp), "%s/fp", dir);
	snprintf(out_dwarf, sizeof(out_dwarf), "%s/dwarf", dir);
	snprintf(log_fp, sizeof(log_fp), "%s/fp.log", dir);
	snprintf(out_thr, sizeof(out_thr), "%s/thr", dir);
	snprintf(out_nofp, sizeof(out_nofp), "%s/nofp", dir);
	snprintf(log, sizeof(log), "%s/dwarf.log", dir);
	if (record(out_fp, log_fp, "", "callstack", &pid_fp) ||
	    record(out_thr, log_fp, "", "shortthread", &pid_thr) ||
	    record(out_nofp, log_fp, "", "callstack-nofp", &pid_nofp) ||
	    record(out_dwarf, log, "--call-graph dwarf -s 32M", "callstack-nofp", &pid_dwarf))
		return -1;
	return 0;
}

static int teardown_group(void **state)
{
	if (dir[0])
		rm_rf(dir);
	return 0;
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

#define MAX_FRAMES 8

struct stack {
	int pid;
	int n;
	char sym[MAX_FRAMES][64]; /* innermost first */
};

/*
 * The target's samples of @snap as perf script unwinds them, oldest first:
 * "PID TIME:" then one "\tADDR SYM" line per frame.
 */
static size_t read_stacks(const char *snap, int pid, struct stack **out)
{
	char cmd[400], *txt, *line, *save, sym[64];
	struct stack *v = NULL, *cur = NULL;
	size_t n = 0, cap = 0;
	unsigned long long addr;
	int st, p;

	snprintf(cmd, sizeof(cmd), "perf script -i %s/perf.data -F pid,ip,sym 2>/dev/null", snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* frames start with a tab; perf right-aligns the PID of the
		 * header line, so a short one starts with spaces */
		if (line[0] != '\t') {
			cur = NULL;
			if (sscanf(line, "%d", &p) != 1 || p != pid)
				continue;
			if (n == cap)
				v = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));
			cur = &v[n++];
			memset(cur, 0, sizeof(*cur));
			cur->pid = p;
		} else if (cur && cur->n < MAX_FRAMES &&
			   sscanf(line, " %llx %63s", &addr, sym) == 2) {
			snprintf(cur->sym[cur->n++], 64, "%s", sym);
		}
	}
	free(txt);
	*out = v;
	return n;
}

/* @s begins with the frames @want (innermost first). */
static bool starts_with(const struct stack *s, const char *const *want)
{
	int i;

	for (i = 0; want[i]; i++)
		if (i >= s->n || strcmp(s->sym[i], want[i]))
			return false;
	return true;
}

/*
 * The newest samples are in crunch called from walk_and_crash, called from
 * main; earlier ones in crunch called from build: every sample in crunch
 * has one of the two call paths, and both are there.
 */
static void check_call_paths(const char *out, pid_t pid)
{
	static const char *const walk[] = { "crunch", "walk_and_crash", "main", NULL };
	static const char *const build[] = { "crunch", "build", "main", NULL };
	size_t i, n, nwalk = 0, nbuild = 0, ncrunch = 0;
	char snap[300];
	struct stack *s;

	fatal_snap(out, snap, sizeof(snap));
	n = read_stacks(snap, pid, &s);
	for (i = 0; i < n; i++) {
		if (!s[i].n || strcmp(s[i].sym[0], "crunch"))
			continue;
		ncrunch++;
		nwalk += starts_with(&s[i], walk);
		nbuild += starts_with(&s[i], build);
	}
	print_message("%s: %zu samples of pid %d, %zu in crunch: %zu from "
		      "build, %zu from walk_and_crash\n",
		      snap, n, (int)pid, ncrunch, nbuild, nwalk);
	/* 500 ms of its CPU time at 4 kHz is 2000 (fewer in frequency mode) */
	assert_true(ncrunch > 40);
	/* a sample may land while the stack is being built: allow 5 % */
	assert_true(nwalk + nbuild >= ncrunch * 95 / 100);
	assert_true(nwalk > ncrunch / 4 && nbuild > ncrunch / 4);
	/* the newest sample in crunch ran in walk_and_crash */
	for (i = n; i-- > 0;)
		if (s[i].n && !strcmp(s[i].sym[0], "crunch"))
			break;
	assert_true(i < n && starts_with(&s[i], walk));
	free(s);
}

static void test_frame_pointer_stacks(void **state)
{
	need_root();
	check_call_paths(out_fp, pid_fp);
}

static void test_dwarf_stacks(void **state)
{
	need_root();
	check_call_paths(out_dwarf, pid_dwarf);
}

/* perf report -g draws crunch's two callers from the fatal snapshot. */
static void test_report_callers(void **state)
{
	char snap[300], cmd[500], *txt;
	int st;

	need_root();
	fatal_snap(out_fp, snap, sizeof(snap));
	snprintf(cmd, sizeof(cmd),
		 "perf report -i %s/perf.data -g caller --stdio --no-children "
		 "--comm callstack 2>/dev/null",
		 snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	if (!strstr(txt, "--build") || !strstr(txt, "--walk_and_crash") ||
	    strstr(txt, "no callchain"))
		fail_msg("perf report -g shows no callers:\n%s", txt);
	free(txt);
}

/*
 * -F above kernel.perf_event_max_sample_rate is lowered, to it or below
 * (where a sample costs too much for it), and said in one line.
 */
static void test_freq_bounded(void **state)
{
	char cmd[600], max[32] = "", log[160], out[160], why[32], *txt;
	unsigned long long want;
	long long hz;
	FILE *f;
	int st;

	need_root();
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	assert_non_null(f);
	assert_non_null(fgets(max, sizeof(max), f));
	fclose(f);
	max[strcspn(max, "\n")] = 0;
	want = strtoull(max, NULL, 10) * 2;
	snprintf(log, sizeof(log), "%s/freq.log", dir);
	snprintf(out, sizeof(out), "%s/freq", dir);
	snprintf(cmd, sizeof(cmd),
		 "%s -b sample -F %llu -o %s -- /bin/true "
		 ">/dev/null 2>%s",
		 PTBPF_BIN, want, out, log);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	hz = event_field(out, "start", 0, "rate_hz");
	assert_int_equal(event_str(out, "start", 0, "rate", why, sizeof(why)), 0);
	assert_string_equal(why, "lowered");
	assert_true(hz > 0 && (unsigned long long)hz <= want / 2);
	txt = slurp(log);
	assert_non_null(txt);
	snprintf(cmd, sizeof(cmd), "sampling at %lld Hz", hz);
	if (!strstr(txt, cmd))
		fail_msg("no word of the lowered rate:\n%s", txt);
	snprintf(cmd, sizeof(cmd), "-F %llu", want);
	if (!strstr(txt, cmd) || strstr(strstr(txt, cmd) + 1, cmd))
		fail_msg("not one line of the lowered rate:\n%s", txt);
	free(txt);
}

/* perf report --header-only shows what perf record would have written. */
static void test_header_features(void **state)
{
	static const char *const want[] = {
		"# cpudesc : ",
		"# total memory : ",
		"# cmdline : ",
		"ptbpf",
		"# sibling threads : ",
		"# CPU 0: Core ID",
		"# clockid: monotonic (1)",
		"# reference time: ",
		"# nrcpus avail : ",
		"# cpuid : ",
	};
	static const char *const feats[] = { "BUILD_ID",     "CPUDESC", "TOTAL_MEM", "CMDLINE",
					     "CPU_TOPOLOGY", "CLOCKID", "CLOCK_DATA" };
	char snap[300], cmd[500], *txt, *miss;
	unsigned int i;
	int st;

	need_root();
	fatal_snap(out_fp, snap, sizeof(snap));
	snprintf(cmd, sizeof(cmd), "perf report --header-only -I -i %s/perf.data 2>/dev/null",
		 snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(txt, want[i]))
			fail_msg("no '%s' in:\n%s", want[i], txt);
	miss = strstr(txt, "# missing features:");
	for (i = 0; miss && i < sizeof(feats) / sizeof(feats[0]); i++) {
		char word[32];

		snprintf(word, sizeof(word), " %s ", feats[i]);
		if (strstr(miss, word))
			fail_msg("%s missing:\n%s", feats[i], txt);
	}
	free(txt);
}

/* readelf -n's Build ID of @path, or "" */
static void readelf_id(const char *path, char *id, size_t len)
{
	char cmd[400], *txt;
	int st;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null | sed -n 's/.*Build ID: //p'",
		 path);
	txt = run_out(cmd, &st);
	txt[strcspn(txt, "\n")] = 0;
	snprintf(id, len, "%s", txt);
	free(txt);
}

/*
 * perf buildid-list: the program, libc and the [vdso], each with readelf's
 * id (the vDSO's of the vdso.so the snapshot holds).
 */
static void test_build_ids(void **state)
{
	char snap[300], cmd[500], id[64], want[64], path[400], *txt, *line, *save;
	bool prog = false, libc = false, vdso = false;
	int st, n = 0;

	need_root();
	fatal_snap(out_fp, snap, sizeof(snap));
	snprintf(cmd, sizeof(cmd), "perf buildid-list -i %s/perf.data 2>&1", snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %399s", id, path) != 2)
			continue;
		/* the vDSO: the image the snapshot holds */
		if (!strcmp(path, "[vdso]")) {
			vdso = true;
			snprintf(path, sizeof(path), "%s/vdso.so", snap);
		}
		readelf_id(path, want, sizeof(want));
		if (strcmp(id, want))
			fail_msg("%s: perf says %s, readelf %s", path, id, want);
		prog |= !!strstr(path, "/callstack");
		libc |= !!strstr(path, "/libc.so");
		n++;
	}
	print_message("%d build-ids, each as readelf -n has it\n", n);
	assert_true(prog && libc && vdso);
	free(txt);
}

/* perf data convert --to-json exits 0 with JSON that parses. */
static void test_convert_json(void **state)
{
	char snap[300], cmd[900], *txt;
	int st;

	need_root();
	fatal_snap(out_fp, snap, sizeof(snap));
	snprintf(cmd, sizeof(cmd),
		 "perf data convert --to-json %s/conv.json --force -i "
		 "%s/perf.data >/dev/null 2>&1 && python3 -c 'import json,sys; "
		 "d=json.load(open(sys.argv[1])); s=d[\"samples\"]; "
		 "print(len(s), sum(1 for x in s if len(x.get(\"callchain\", "
		 "[])) > 2))' %s/conv.json",
		 dir, snap, dir);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	print_message("perf data convert: samples, with a call chain: %s", txt);
	assert_true(atoi(txt) > 40);
	assert_true(atoi(strchr(txt, ' ') + 1) > 40);
	free(txt);
}

/* perf archive packs the objects from the build-id cache ptbpf filled. */
static void test_archive(void **state)
{
	char snap[300], cmd[700], want[64], *txt;
	int st;

	need_root();
	fatal_snap(out_fp, snap, sizeof(snap));
	readelf_id(PROGS "callstack", want, sizeof(want));
	snprintf(cmd, sizeof(cmd),
		 "perf archive %s/perf.data >/dev/null 2>&1 && "
		 "tar tjf %s/perf.data.tar.bz2",
		 snap, snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	snprintf(cmd, sizeof(cmd), "progs/callstack/%s/elf", want);
	/* perf archive packs the objects with samples (--with-hits) */
	if (!strstr(txt, cmd))
		fail_msg("perf archive lacks %s:\n%s", cmd, txt);
	free(txt);
}

/* A thread gone before the snapshot keeps its name (perf showed :TID). */
static void test_exited_thread_named(void **state)
{
	char snap[300], cmd[500], comm[32], *txt, *line, *save;
	long long tid = event_field(out_thr, "thread_exit", 0, "tid");
	int st, t, named = 0, anon = 0;

	need_root();
	assert_true(tid > 0);
	fatal_snap(out_thr, snap, sizeof(snap));
	snprintf(cmd, sizeof(cmd), "perf script -i %s/perf.data -F tid,comm 2>/dev/null", snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%31s %d", comm, &t) != 2 || t != tid)
			continue;
		named += !strcmp(comm, "shortlived");
		anon += comm[0] == ':';
	}
	print_message("thread %lld: %d samples named shortlived, %d :TID\n", tid, named, anon);
	assert_true(named > 20);
	assert_int_equal(anon, 0);
	free(txt);
}

/* ptbpf-dump's summary: span, hottest functions, the last ones, named. */
static void test_dump_summary(void **state)
{
	char snap[300], cmd[500], *txt, *last;
	int st;

	need_root();
	fatal_snap(out_fp, snap, sizeof(snap));
	snprintf(cmd, sizeof(cmd), "./ptbpf-dump %s", snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	last = strstr(txt, "last before the fatal (newest first):");
	if (!strstr(txt, "  span: ") || !strstr(txt, "hottest of the target") ||
	    !strstr(txt, "%  crunch") || !last ||
	    !strstr(last, "crunch <- walk_and_crash <- main <- "
			  "__libc_start_call_main"))
		fail_msg("summary lacks the last moments:\n%s", txt);
	free(txt);
}

/* Whether the summary of @out's fatal snapshot says @hint (shown when not @want). */
static bool summary_says(const char *out, const char *hint, bool want)
{
	char snap[300], cmd[500], *txt;
	bool says;
	int st;

	fatal_snap(out, snap, sizeof(snap));
	snprintf(cmd, sizeof(cmd), "./ptbpf-dump %s", snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	says = strstr(txt, hint) != NULL;
	if (says != want)
		print_message("%s", txt);
	free(txt);
	return says;
}

/*
 * A program without frame pointers recorded with the default call graph:
 * its chains run into junk, and the summary says to record with
 * --call-graph dwarf; the same program recorded so has no such chain.
 */
static void test_fp_hint(void **state)
{
	static const char hint[] = "frame-pointer call chains run through code without frame "
				   "pointers (a caller outside every function); record with "
				   "--call-graph dwarf";

	need_root();
	assert_true(summary_says(out_nofp, hint, true));
	assert_false(summary_says(out_dwarf, "record with --call-graph dwarf", false));
}

/*
 * Whether a row of the hottest functions in @txt is in the vDSO: its
 * object is "[vdso]" (a function the saved vdso.so names, such as
 * __vdso_clock_gettime, whichever the CPU and clocksource make the code
 * spin in) or, where no symbol covers the address, the row is named
 * "[vdso]" itself. A row of the vDSO named by a raw address fails.
 */
static bool vdso_row(const char *txt)
{
	const char *line = txt;
	bool found = false;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char row[256], sym[128], obj[128];

		snprintf(row, sizeof(row), "%.*s", (int)len, line);
		if (sscanf(row, " %*[0-9.]%%  %127s %127s", sym, obj) >= 1) {
			bool in_vdso = !strcmp(sym, "[vdso]") ||
				       (sscanf(row, " %*[0-9.]%%  %*s %127s", obj) == 1 &&
					!strcmp(obj, "[vdso]"));

			if (in_vdso && !strncmp(sym, "0x", 2))
				fail_msg("a vDSO row named by its address: %s", row);
			found |= in_vdso;
		}
		line = end ? end + 1 : NULL;
	}
	return found;
}

/*
 * Samples in the vDSO (forker's parent spins in clock_gettime, which the
 * vDSO answers): the hottest functions place them in "[vdso]", as perf
 * script's DSO column does, never at a raw address.
 */
static void test_vdso_named(void **state)
{
	char out[160], log[160], cmd[600], *txt;
	int st;

	need_root();
	snprintf(out, sizeof(out), "%s/vdso", dir);
	snprintf(log, sizeof(log), "%s/vdso.log", dir);
	snprintf(cmd, sizeof(cmd),
		 "%s -q -b sample -F 4000 -o %s -- " PROGS "forker 1000 >/dev/null 2>%s", PTBPF_BIN,
		 out, log);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof(cmd), "./ptbpf-dump %s/snapshot-000001", out);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	if (!vdso_row(txt))
		fail_msg("no sample in [vdso]:\n%s", txt);
	free(txt);
	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s/snapshot-000001/perf.data -F ip,dso 2>/dev/null | "
		 "grep -c '(\\[vdso\\])'",
		 out);
	assert_true(run_count(cmd) > 0);
}

/* The frames ptbpf-dump's "last" samples show at most (last.c). */
#define LAST_FRAMES 8

/* The line of @txt that starts with @want after its padding, or NULL. */
static char *sample_line(char *txt, const char *want)
{
	char *line = txt;

	while (line && *line) {
		char *p = line + strspn(line, " ");

		if (!strncmp(p, want, strlen(want)))
			return line;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

/*
 * glibc's aliases of one address: the versioned dynamic symbol
 * (clock_gettime@@GLIBC_2.17) or, where its debug symbols are installed,
 * the internal one (__GI___clock_gettime). perf and ptbpf-dump may pick
 * either: the name without version and internal prefix decides.
 */
static const char *base_name(const char *s, char *buf, size_t len)
{
	if (!strncmp(s, "__GI_", 5))
		s += 5;
	while (*s == '_')
		s++;
	snprintf(buf, len, "%.*s", (int)strcspn(s, "@"), s);
	return buf;
}

static bool same_function(const char *a, const char *b)
{
	char x[256], y[256];

	return !strcmp(a, b) || !strcmp(base_name(a, x, sizeof(x)), base_name(b, y, sizeof(y)));
}

/*
 * --call-graph dwarf without frame pointers: the stacks ptbpf-dump unwinds
 * for its last samples are perf script's for the same samples (by time),
 * frame by frame through main (past it the two name libc's aliases
 * apart), and as deep.
 */
static void test_dwarf_dump_matches_perf(void **state)
{
	char snap[300], cmd[500], want[64], *txt, *perf, *at, *line, *save, *f, *fsave;
	struct json_object *root, *last, *e, *v;
	unsigned long long t;
	size_t i, k, n, frames;
	int st;

	need_root();
	fatal_snap(out_dwarf, snap, sizeof(snap));
	snprintf(cmd, sizeof(cmd), "./ptbpf-dump --json %s", snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	snprintf(cmd, sizeof(cmd), "perf script -i %s/perf.data -F time,ip,sym --ns 2>/dev/null",
		 snap);
	perf = run_out(cmd, &st);
	assert_int_equal(st, 0);
	root = json_tokener_parse(txt);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(
		json_object_array_get_idx(json_object_object_get(root, "snapshots"), 0), "last",
		&last));
	n = json_object_array_length(last);
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		char *stack, *ours[64], *theirs[64];
		size_t no = 0, nt = 0;

		e = json_object_array_get_idx(last, i);
		assert_true(json_object_object_get_ex(e, "time_ns", &v));
		t = (unsigned long long)json_object_get_int64(v);
		assert_true(json_object_object_get_ex(e, "stack", &v));
		stack = strdup(json_object_get_string(v));
		for (f = strtok_r(stack, " ", &fsave); f && no < 64;
		     f = strtok_r(NULL, " ", &fsave))
			if (strcmp(f, "<-"))
				ours[no++] = f;
		/*
		 * perf's sample "TIME: " padded to a width (no space once the
		 * seconds fill it), then "\tADDR SYM" per frame
		 */
		snprintf(want, sizeof(want), "%llu.%09llu: ", t / 1000000000, t % 1000000000);
		at = sample_line(perf, want);
		if (!at)
			fail_msg("no perf script sample at %s", want);
		at = strchr(at, '\n');
		at = strndup(at + 1, strcspn(at + 1, "\0"));
		for (line = strtok_r(at, "\n", &save); line && line[0] == '\t' && nt < 64;
		     line = strtok_r(NULL, "\n", &save)) {
			char *sym = line + strspn(line, "\t ");

			sym += strcspn(sym, " ");
			sym += strspn(sym, " ");
			sym[strcspn(sym, " ")] = '\0';
			theirs[nt++] = sym;
		}
		print_message("%llu: ptbpf-dump %zu frames, perf %zu: %s\n", t, no, nt,
			      json_object_get_string(v));
		/* as deep, up to the 8 frames a "last" stack shows */
		assert_int_equal(no, nt < LAST_FRAMES ? nt : LAST_FRAMES);
		frames = 0;
		for (k = 0; k < no; k++) {
			/*
			 * The vDSO has no file: ptbpf-dump names its frames
			 * "[vdso]+OFF", and perf by its symbol only where a
			 * perf record on this host once put the image in
			 * ~/.debug (else "[unknown]"). Its place is the fact.
			 */
			if (strncmp(ours[k], "[vdso]+", 7) && !same_function(ours[k], theirs[k]))
				fail_msg("frame %zu: %s, perf: %s", k, ours[k], theirs[k]);
			frames++;
			if (!strcmp(ours[k], "main"))
				break;
		}
		/* unwound: the sampled function's callers down to main */
		assert_true(frames >= 3 && !strcmp(ours[frames - 1], "main"));
		free(at);
		free(stack);
	}
	json_object_put(root);
	free(perf);
	free(txt);
}

/* The timeline nests call stacks and never overlaps slices on a track. */
static void test_timeline_nesting(void **state)
{
	char cmd[1600], *txt;
	int st, tracks, slices, depth, chained;

	need_root();
	snprintf(cmd, sizeof(cmd),
		 "./ptbpf-dump --timeline %s/tl.json %s >/dev/null && "
		 "python3 tests/tl_check.py %s/tl.json --chain "
		 "main,walk_and_crash,crunch",
		 dir, out_fp, dir);
	txt = run_out(cmd, &st);
	if (st)
		fail_msg("timeline check failed (%d): %s", st, txt);
	assert_int_equal(sscanf(txt,
				"tracks %d slices %d maxdepth %d "
				"chained %d",
				&tracks, &slices, &depth, &chained),
			 4);
	print_message("timeline: %s", txt);
	assert_true(depth >= 4 && chained > 10 && slices > 40);
	free(txt);

	/* the Perfetto trace nests the same stacks: read back through
	 * protoc and the checked-in schema, the same chains */
	snprintf(cmd, sizeof(cmd),
		 "./ptbpf-dump --timeline %s/tl.pftrace %s >/dev/null && "
		 "protoc --decode=perfetto.protos.Trace -Itests tests/perfetto_trace.proto "
		 "<%s/tl.pftrace >%s/tl.txt && "
		 "python3 tests/pf_check.py %s/tl.txt --same-as %s/tl.json --json %s/pf.json "
		 ">/dev/null && python3 tests/tl_check.py %s/pf.json --chain "
		 "main,walk_and_crash,crunch",
		 dir, out_fp, dir, dir, dir, dir, dir, dir);
	txt = run_out(cmd, &st);
	if (st)
		fail_msg("perfetto timeline check failed (%d): %s", st, txt);
	assert_int_equal(
		sscanf(txt, "tracks %*d slices %d maxdepth %*d chained %d", &slices, &chained), 2);
	assert_true(chained > 10 && slices > 40);
	free(txt);
}

/*
 * ptbpf -o @out @opts -- spin, stopped and continued @n times 15 ms
 * apart, one snapshot a stop: a debugger session's rhythm. Returns the
 * target's pid.
 */
static pid_t stop_cycles(const char *out, const char *opt, int n)
{
	/* samples in a 50 ms window are counted: a fixed rate */
	char *argv[] = { PTBPF_BIN,   "-q", "-b",	  "sample", "-F",
			 "4000",      "-t", "stop",	  "-o",	    (char *)out,
			 (char *)opt, "--", PROGS "spin", "1",	    NULL };
	pid_t ptbpf, target;
	int i;

	if (!*opt) { /* no option: close the gap */
		argv[10] = "--";
		argv[11] = PROGS "spin";
		argv[12] = "1";
		argv[13] = NULL;
	}
	ptbpf = spawn(argv, NULL);
	assert_true(ptbpf > 0);
	if (!wait_events(out, "start", 1, 60))
		fail_msg("ptbpf did not start");
	target = (pid_t)event_field(out, "start", 0, "pid");
	msleep(100);
	for (i = 0; i < n; i++) {
		assert_int_equal(kill(target, SIGSTOP), 0);
		if (!wait_events(out, "snapshot", i + 1, 60))
			fail_msg("stop %d: no snapshot", i);
		assert_int_equal(kill(target, SIGCONT), 0);
		if (!wait_events(out, "run", i + 1, 60))
			fail_msg("stop %d: no run", i);
		msleep(15);
	}
	kill(target, SIGKILL);
	wait_exit(ptbpf, 20);
	return target;
}

/*
 * What perf script shows of @pid's samples in snapshots @lo..@hi of @out
 * within [@from, @to]: "REL_MS tid TID ip IP" lines, sorted, each once.
 */
static char *perf_window(const char *out, int lo, int hi, pid_t pid, unsigned long long from,
			 unsigned long long to)
{
	char cmd[1024], *txt, *line, *save, *res;
	unsigned long long sec, ns, ip, t;
	int i, st, p, tid;
	FILE *sorted;
	char tmp[200];

	snprintf(tmp, sizeof(tmp), "%s/window.txt", dir);
	sorted = fopen(tmp, "w");
	assert_non_null(sorted);
	for (i = lo; i <= hi; i++) {
		snprintf(cmd, sizeof(cmd),
			 "perf script -i %s/snapshot-%06d/perf.data --ns "
			 "-F pid,tid,time,ip -G 2>/dev/null",
			 out, i);
		txt = run_out(cmd, &st);
		for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "%d/%d %llu.%llu: %llx", &p, &tid, &sec, &ns, &ip) != 5 ||
			    p != pid)
				continue;
			t = sec * 1000000000ULL + ns;
			if (t < from || t > to)
				continue;
			fprintf(sorted, "%+.3f tid %d ip 0x%llx\n", ((double)t - (double)to) / 1e6,
				tid, ip);
		}
		free(txt);
	}
	fclose(sorted);
	snprintf(cmd, sizeof(cmd), "sort -u %s", tmp);
	res = run_out(cmd, &st);
	return res;
}

/* The same lines from ptbpf-dump --last @dur SNAP (sorted, each once). */
static char *dump_window(const char *snap, const char *dur, int *joined)
{
	char cmd[600], path[200], rel[32], when[32], *txt, *line, *save, *p;
	unsigned long long ip;
	int st, lo = 0, hi = 0, tid, cpu;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "./ptbpf-dump --last %s %s", dur, snap);
	txt = run_out(cmd, &st);
	assert_int_equal(st, 0);
	p = strstr(txt, "from snapshot");
	assert_non_null(p);
	p += strlen("from snapshot");
	if (*p == 's')
		p++;
	assert_int_equal(sscanf(p, " %d..%d", &lo, &hi), 2);
	*joined = hi - lo + 1;
	snprintf(path, sizeof(path), "%s/window-dump.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, " %31s %31s ms tid %d cpu %d 0x%llx", when, rel, &tid, &cpu,
			   &ip) == 5)
			fprintf(f, "%s tid %d ip 0x%llx\n", rel, tid, ip);
	fclose(f);
	free(txt);
	snprintf(cmd, sizeof(cmd), "sort -u %s", path);
	return run_out(cmd, &st);
}

static void check_last(const char *out, pid_t pid, int n, bool full)
{
	unsigned long long cause_ts, prev, dur = 50000000ULL;
	char snap[300], *want, *got;
	int joined, lines = 0;
	const char *p;

	snprintf(snap, sizeof(snap), "%s/snapshot-%06d", out, n);
	cause_ts = (unsigned long long)event_field(out, "stop", n - 1, "ts");
	prev = (unsigned long long)event_field(out, "stop", n - 2, "ts");
	assert_int_equal(event_field(out, "snapshot", n - 1, "trigger_ts"), cause_ts);
	got = dump_window(snap, "50ms", &joined);
	/* a --full snapshot holds the whole buffer: it alone is the truth */
	want = perf_window(out, full ? n : 1, n, pid, cause_ts - dur, cause_ts);
	for (p = got; (p = strchr(p, '\n')); p++)
		lines++;
	print_message("%s: --last 50ms: %d samples from %d snapshot(s)\n", out, lines, joined);
	if (strcmp(got, want))
		fail_msg("--last differs from perf script's window:\n--- "
			 "ptbpf-dump\n%s--- perf script\n%s",
			 got, want);
	/*
	 * How many is not asserted: a loaded machine may give spin no CPU at
	 * all in those 50 ms (0 samples, seen at a load of 40); perf script's
	 * window is the truth compared against.
	 */
	/*
	 * Joined when the window reaches past what the last stream snapshot
	 * holds (since the stop before): 15 ms apart on a quiet machine, but
	 * a loaded one may space the stops by more than the window.
	 */
	if (!full && cause_ts - prev < dur)
		assert_true(joined >= 2);
	print_message("  the stop before: %.3f ms earlier\n", (cause_ts - prev) / 1e6);
	free(got);
	free(want);
}

/*
 * --last 50ms on the 8th of 8 stream snapshots joins those before it (when
 * the window reaches past the last one) and shows exactly the samples perf
 * script finds in that window over all of them; on a --full run, exactly those of the one snapshot, each once.
 */
static void test_last_joins_stream(void **state)
{
	char out[160];
	pid_t pid;

	need_root();
	snprintf(out, sizeof(out), "%s/stream", dir);
	pid = stop_cycles(out, "", 8);
	check_last(out, pid, 8, false);
	snprintf(out, sizeof(out), "%s/full", dir);
	pid = stop_cycles(out, "--full", 8);
	check_last(out, pid, 8, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_pointer_stacks),
		cmocka_unit_test(test_dwarf_stacks),
		cmocka_unit_test(test_dwarf_dump_matches_perf),
		cmocka_unit_test(test_report_callers),
		cmocka_unit_test(test_freq_bounded),
		cmocka_unit_test(test_header_features),
		cmocka_unit_test(test_build_ids),
		cmocka_unit_test(test_convert_json),
		cmocka_unit_test(test_archive),
		cmocka_unit_test(test_exited_thread_named),
		cmocka_unit_test(test_dump_summary),
		cmocka_unit_test(test_fp_hint),
		cmocka_unit_test(test_vdso_named),
		cmocka_unit_test(test_timeline_nesting),
		cmocka_unit_test(test_last_joins_stream),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
