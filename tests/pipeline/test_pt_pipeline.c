// SPDX-License-Identifier: GPL-2.0
/*
 * The intel-pt path end to end, over the simulated PMU: the real
 * controller (control.c) pauses and resumes the real per-core collection
 * (cores.c) on stop and run events through main.c's control_ops (ctlops.c)
 * and stages snapshots (snapstage.c), whose
 * writer thread writes the real files. The simulated hardware writes a PT
 * stream made with libipt's encoder for a known path through a known
 * function of this binary (PSB, TSC, MODE.exec, TIP.PGE, TNT, TIP.PGD),
 * with matching context-switch records. Then, as a user would:
 *
 * - `perf script --itrace=i0ns -F tid,ip,sym,symoff` prints exactly the
 *   instructions of that path, for the thread that ran it;
 * - libipt's instruction decoder, over an image built from trace.json's
 *   modules, decodes cpus/<id>.intelpt_trace to the same instructions;
 * - trace.json passes the lldb-19 intel-pt schema check.
 *
 * Also: no PT byte is written while paused; snapshots form a stream (the
 * second holds only new bytes) unless --full; a wrapped ring says
 * "wrapped": true in ptbpf.json and in the snapshot event.
 *
 * Process scope: the sim's scheduler alternates the target's threads with
 * an unrelated process on the same CPUs; the buffers, perf script and the
 * bundle's switch traces hold the target's execution only, read with no
 * ioctl once it stopped. The same schedule in cpu scope is the control.
 *
 * --trigger-on with aux-action: a uprobe event with aux_pause in each PT
 * group stops PT at the hit on ptgen_inner's entry, so the hit's
 * snapshot's last decoded instruction is the call into it, although the
 * target ran on into ptgen_inner before the snapshot was staged; its next
 * switch-out resumes PT. Without aux-action (the kernel refuses the bit)
 * the same run's snapshot goes on into ptgen_inner and says "staged".
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <intel-pt.h>

#include "collect/auxact.h"
#include "control/control.h"
#include "collect/cores.h"
#include "control/ctlops.h"
#include "output/eventlog.h"
#include "lldb_schema.h"
#include "perffile.h"
#include "perfrec.h"
#include "ptbpf.h"
#include "ptbranches.h"
#include "ptfix.h"
#include "ptgen.h"
#include "collect/scope.h"
#include "sim_pmu.h"
#include "snapshot/snapstage.h"
#include "testio.h"

/* The fixture's start with the stop trigger: running, in @scope. */
static void start_scope(struct ptfix *f, enum ptbpf_scope scope)
{
	ptfix_start(f, scope, PTBPF_PROC_RUNNING, TRIGGER_STOP);
}

static void start(struct ptfix *f)
{
	start_scope(f, SCOPE_AUTO);
}

/*
 * Path @p through ptgen_branches at TSC @tsc. Its ret leaves the function:
 * tracing stops at its return address, anywhere in this binary outside
 * ptgen_branches.
 */
static size_t encode_path(__u8 *buf, size_t cap, const struct ptgen_branch_path *p, __u64 tsc)
{
	size_t n = ptgen_encode(buf, cap, 0, tsc, (__u64)(uintptr_t)ptgen_branches, p->tnt,
				(__u64)(uintptr_t)encode_path);

	assert_true(n > 0);
	return n;
}

/*
 * Thread @tid runs path @p on @cpu at TSC @tsc: switched in from idle
 * just before, the PT bytes, switched out to idle just after. Returns the
 * PT bytes written (into @pt too), 0 when the core was paused.
 */
static size_t run_path(struct ptfix *f, int cpu, __u32 tid, const struct ptgen_branch_path *p,
		       __u64 tsc, __u8 *pt, size_t cap)
{
	size_t len = encode_path(pt, cap, p, tsc);
	long n;

	sim_pmu_set_time(f->sim, PERF_TIME(tsc) - 1000);
	sim_pmu_switch_np(f->sim, cpu, true, 0, 0, f->pid, tid);
	sim_pmu_switch_np(f->sim, cpu, false, f->pid, tid, 0, 0);
	n = sim_pmu_emit(f->sim, cpu, pt, len);
	assert_true(n >= 0);
	sim_pmu_set_time(f->sim, PERF_TIME(tsc) + 1000);
	sim_pmu_switch_np(f->sim, cpu, true, f->pid, tid, 0, 0);
	sim_pmu_switch_np(f->sim, cpu, false, 0, 0, f->pid, tid);
	return (size_t)n;
}

/* perf script prints exactly path @p then @p2 (may be NULL), by @tid. */
static void check_perf_script2(struct ptfix *f, int id, const struct ptgen_branch_path *p,
			       const struct ptgen_branch_path *p2, __u32 tid)
{
	__u64 base = (__u64)(uintptr_t)ptgen_branches;
	char cmd[512], sym[64], want[64], *out, *line, *save = NULL;
	unsigned int n = 0, total = p->n + (p2 ? p2->n : 0);
	unsigned long t, ip, off;

	snprintf(cmd, sizeof(cmd),
		 "perf script --itrace=i0ns -F tid,ip,sym,symoff -i "
		 "%s/snapshot-%06d/perf.data 2>/dev/null",
		 f->out, id);
	out = run_cmd(cmd);
	print_message("snapshot %d, perf script:\n%s", id, out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(sscanf(line, "%lu %lx %63s", &t, &ip, sym), 3);
		assert_true(n < total);
		off = n < p->n ? p->offs[n] : p2->offs[n - p->n];
		assert_int_equal(t, tid);
		assert_int_equal(ip, base + off);
		snprintf(want, sizeof(want), "ptgen_branches+0x%lx", off);
		assert_string_equal(sym, want);
		n++;
	}
	assert_int_equal(n, total);
	free(out);
}

static void check_perf_script(struct ptfix *f, int id, const struct ptgen_branch_path *p, __u32 tid)
{
	check_perf_script2(f, id, p, NULL, tid);
}

/* The bytes of cpus/@cpu.intelpt_trace of snapshot @id equal @want. */
static void check_cpu_file(struct ptfix *f, int id, int cpu, const __u8 *want, size_t len)
{
	char path[256];
	size_t got;
	__u8 *buf;

	snprintf(path, sizeof(path), "%s/snapshot-%06d/cpus/%d.intelpt_trace", f->out, id, cpu);
	buf = read_whole(path, &got);
	assert_int_equal(got, len);
	if (len)
		assert_memory_equal(buf, want, len);
	free(buf);
}

/* An image of trace.json's modules, each file at its loadAddress. */
static struct pt_image *image_from_bundle(struct ptfix *f, int id)
{
	char cmd[512], *out, *line, *save = NULL, *path;
	struct pt_image *img = pt_image_alloc("bundle");
	unsigned long long load;
	unsigned int added = 0;
	struct stat st;

	assert_non_null(img);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json, sys\n"
		 "d = json.load(open(sys.argv[1]))\n"
		 "for p in d[\"processes\"]:\n"
		 "  for m in p[\"modules\"]:\n"
		 "    a = m[\"loadAddress\"]\n"
		 "    a = int(a, 0) if type(a) is str else a\n"
		 "    print(\"%%x %%s\" %% (a, m[\"systemPath\"]))' "
		 "%s/snapshot-%06d/trace.json",
		 f->out, id);
	out = run_cmd(cmd);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		load = strtoull(line, &path, 16);
		path++;
		if (stat(path, &st))
			continue; /* deleted since: not ours */
		assert_true(pt_image_add_file(img, path, 0, (uint64_t)st.st_size, NULL, load) >= 0);
		added++;
	}
	free(out);
	assert_true(added > 0);
	return img;
}

/* libipt's instruction decoder over @img: the instructions of @buf. */
static unsigned int insn_decode(const __u8 *buf, size_t len, struct pt_image *img, __u64 *ips,
				unsigned int max)
{
	struct pt_insn_decoder *d;
	struct pt_config cfg;
	struct pt_insn insn;
	struct pt_event ev;
	unsigned int n = 0;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	d = pt_insn_alloc_decoder(&cfg);
	assert_non_null(d);
	assert_int_equal(pt_insn_set_image(d, img), 0);
	st = pt_insn_sync_forward(d);
	while (st >= 0) {
		while (st >= 0 && (st & pts_event_pending))
			st = pt_insn_event(d, &ev, sizeof(ev));
		if (st < 0)
			break;
		memset(&insn, 0, sizeof(insn));
		st = pt_insn_next(d, &insn, sizeof(insn));
		if (insn.iclass != ptic_error && n < max)
			ips[n++] = insn.ip;
	}
	/* the whole stream decoded, up to its end */
	assert_int_equal(st, -pte_eos);
	pt_insn_free_decoder(d);
	return n;
}

static void check_libipt(struct ptfix *f, int id, int cpu, const struct ptgen_branch_path *p)
{
	__u64 base = (__u64)(uintptr_t)ptgen_branches, ips[32];
	struct pt_image *img = image_from_bundle(f, id);
	char path[256];
	unsigned int n, i;
	size_t len;
	__u8 *buf;

	snprintf(path, sizeof(path), "%s/snapshot-%06d/cpus/%d.intelpt_trace", f->out, id, cpu);
	buf = read_whole(path, &len);
	n = insn_decode(buf, len, img, ips, 32);
	assert_int_equal(n, p->n);
	for (i = 0; i < n; i++)
		assert_int_equal(ips[i], base + p->offs[i]);
	free(buf);
	pt_image_free(img);
}

/* trace.json against the schema lldb-19 prints. */
static void check_schema(struct ptfix *f, int id)
{
	char py[128], lldb[128], cmd[512], *out;

	assert_int_equal(lldb_schema_write(f->out, py, sizeof(py), lldb, sizeof(lldb)), 0);
	snprintf(cmd, sizeof(cmd), "python3 %s %s/snapshot-%06d/trace.json %s", py, f->out, id,
		 lldb);
	out = run_cmd(cmd);
	/* this binary is among the modules */
	assert_non_null(strstr(out, "test_pt_pipeline"));
	free(out);
	unlink(py);
	unlink(lldb);
}

/* One value of ptbpf.json of snapshot @id, by a Python expression. */
static char *ptbpf_json(struct ptfix *f, int id, const char *expr)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json, sys; d = json.load(open(sys.argv"
		 "[1])); print(%s)' %s/snapshot-%06d/ptbpf.json",
		 expr, f->out, id);
	return run_cmd(cmd);
}

/* The snapshot lines of events.jsonl, as Python prints their @keys ("a.b": b in a). */
static char *snapshot_events(struct ptfix *f, const char *keys)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import functools, json, sys\n"
		 "for l in open(sys.argv[1]):\n"
		 "  e = json.loads(l)\n"
		 "  if e[\"event\"] == \"snapshot\":\n"
		 "    print(*[functools.reduce(lambda d, x: d[x], k.split(\".\"), e)\n"
		 "            for k in \"%s\".split()])' "
		 "%s/events.jsonl",
		 keys, f->out);
	return run_cmd(cmd);
}

/*
 * Path A on CPU 0 by this thread, stop: snapshot 1 decodes to path A with
 * perf and libipt. Run; path B on CPU 1 by the helper thread, stop:
 * snapshot 2 holds path B only (a stream), CPU 0 has nothing new.
 */
static void test_stop_snapshots_decode(void **state)
{
	struct ptfix *f = *state;
	__u8 a[128], b[128], junk[128];
	size_t la, lb;
	__u64 w0, w1;
	char *out;

	start(f);
	la = run_path(f, 0, f->tid, &ptgen_branches_a, 2000000, a, sizeof(a));
	assert_true(la > 0);
	ptfix_event(f, PTBPF_EV_STOP);
	/* paused: the hardware writes nothing, on any core */
	assert_false(sim_pmu_running(f->sim, 0));
	assert_false(sim_pmu_running(f->sim, 1));
	w0 = sim_pmu_written(f->sim, 0);
	w1 = sim_pmu_written(f->sim, 1);
	assert_int_equal(run_path(f, 0, f->tid, &ptgen_branches_b, 2010000, junk, sizeof(junk)), 0);
	assert_int_equal(sim_pmu_written(f->sim, 0), w0);
	assert_int_equal(sim_pmu_written(f->sim, 1), w1);
	/* running again: appended */
	ptfix_event(f, PTBPF_EV_RUN);
	assert_true(sim_pmu_running(f->sim, 0));
	lb = run_path(f, 1, f->tid2, &ptgen_branches_b, 2050000, b, sizeof(b));
	assert_int_equal(lb, encode_path(junk, sizeof(junk), &ptgen_branches_b, 2050000));
	assert_int_equal(sim_pmu_written(f->sim, 1), w1 + lb);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 2);

	check_cpu_file(f, 1, 0, a, la);
	check_cpu_file(f, 1, 1, NULL, 0);
	check_perf_script(f, 1, &ptgen_branches_a, f->tid);
	check_libipt(f, 1, 0, &ptgen_branches_a);
	check_schema(f, 1);

	check_cpu_file(f, 2, 0, NULL, 0);
	check_cpu_file(f, 2, 1, b, lb);
	check_perf_script(f, 2, &ptgen_branches_b, f->tid2);
	check_libipt(f, 2, 1, &ptgen_branches_b);
	check_schema(f, 2);

	out = ptbpf_json(f, 1,
			 "d[\"backend\"], d[\"trigger\"], d[\"signal\"], "
			 "[(c[\"cpu\"], c[\"bytes\"], c[\"wrapped\"]) for c in "
			 "d[\"cores\"]]");
	snprintf((char *)junk, sizeof(junk),
		 "intel-pt stop SIGSTOP [(0, %zu, False), (1, 0, False)]\n", la);
	assert_string_equal(out, (char *)junk);
	free(out);
	out = snapshot_events(f, "snapshot trigger wrapped lost_bytes");
	assert_string_equal(out, "1 stop False 0\n2 stop False 0\n");
	free(out);
}

/*
 * The whole buffer of @cpu in snapshot @id, oldest first: zeros (PAD
 * packets, the ring as mapped) then @want at its end.
 */
static void check_whole_ring(struct ptfix *f, int id, int cpu, const __u8 *want, size_t len)
{
	char path[256];
	size_t got, i;
	__u8 *buf;

	snprintf(path, sizeof(path), "%s/snapshot-%06d/cpus/%d.intelpt_trace", f->out, id, cpu);
	buf = read_whole(path, &got);
	assert_int_equal(got, BUF);
	for (i = 0; i < BUF - len; i++)
		if (buf[i])
			fail_msg("byte %zu of %s is 0x%x", i, path, buf[i]);
	assert_memory_equal(buf + BUF - len, want, len);
	free(buf);
}

/* --full: every snapshot holds whole buffers, old bytes included. */
static void test_full_holds_all(void **state)
{
	struct ptfix *f = *state;
	__u8 a[128], b[128], ab[256];
	size_t la, lb;

	f->full = true;
	start(f);
	la = run_path(f, 0, f->tid, &ptgen_branches_a, 2000000, a, sizeof(a));
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_event(f, PTBPF_EV_RUN);
	lb = run_path(f, 0, f->tid, &ptgen_branches_b, 2050000, b, sizeof(b));
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 2);
	memcpy(ab, a, la);
	memcpy(ab + la, b, lb);
	check_whole_ring(f, 1, 0, a, la);
	check_whole_ring(f, 2, 0, ab, la + lb);
	check_whole_ring(f, 2, 1, NULL, 0);
	check_perf_script(f, 1, &ptgen_branches_a, f->tid);
	check_perf_script2(f, 2, &ptgen_branches_a, &ptgen_branches_b, f->tid);
}

/* More than the ring holds between two snapshots: wrapped, and said so. */
static void test_wrap_reported(void **state)
{
	struct ptfix *f = *state;
	char *out, want[128];

	start(f);
	assert_int_equal(sim_pmu_tick(f->sim, 0, 3 * BUF + 1000), 3 * BUF + 1000);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 1);
	/* the whole ring, newest last; how much was lost the head can't say
	 * (in overwrite mode aux_head is a position, not a running total) */
	out = ptbpf_json(f, 1,
			 "[(c[\"bytes\"], c[\"wrapped\"]) for c in "
			 "d[\"cores\"]]");
	snprintf(want, sizeof(want), "[(%lu, True), (0, False)]\n", BUF);
	assert_string_equal(out, want);
	free(out);
	out = snapshot_events(f, "snapshot wrapped");
	assert_string_equal(out, "1 True\n");
	free(out);
}

/*
 * Process scope: the sim's scheduler puts tasks on the CPUs and writes the
 * switch records itself; OTHER_PID is an unrelated process.
 */

static void add_tasks(struct ptfix *f)
{
	assert_int_equal(sim_pmu_task(f->sim, f->pid, f->tid), 0);
	assert_int_equal(sim_pmu_task(f->sim, f->pid, f->tid2), 0);
	assert_int_equal(sim_pmu_task(f->sim, OTHER_PID, OTHER_PID), 0);
}

/*
 * Task @tid runs path @p on @cpu at TSC @tsc, between its sched-in just
 * before and its sched-out just after. Returns the PT bytes that reached
 * the buffer (into @pt too).
 */
static size_t sched_path(struct ptfix *f, int cpu, __u32 tid, const struct ptgen_branch_path *p,
			 __u64 tsc, __u8 *pt, size_t cap)
{
	size_t len = encode_path(pt, cap, p, tsc);
	long n;

	sim_pmu_set_time(f->sim, PERF_TIME(tsc) - 1000);
	assert_int_equal(sim_pmu_sched_in(f->sim, cpu, tid), 0);
	n = sim_pmu_emit(f->sim, cpu, pt, len);
	assert_true(n >= 0);
	sim_pmu_set_time(f->sim, PERF_TIME(tsc) + 1000);
	assert_int_equal(sim_pmu_sched_out(f->sim, cpu), 0);
	return (size_t)n;
}

struct path_run {
	const struct ptgen_branch_path *p;
	__u32 tid;
};

/* perf script prints exactly the paths of @runs, in order, each by its tid. */
static void check_perf_runs(struct ptfix *f, int id, const struct path_run *runs, unsigned int nr)
{
	__u64 base = (__u64)(uintptr_t)ptgen_branches;
	char cmd[512], sym[64], want[64], *out, *line, *save = NULL;
	unsigned int r = 0, n = 0, lines = 0, total = 0;
	unsigned long t, ip;

	for (r = 0; r < nr; r++)
		total += runs[r].p->n;
	snprintf(cmd, sizeof(cmd),
		 "perf script --itrace=i0ns -F tid,ip,sym,symoff -i "
		 "%s/snapshot-%06d/perf.data 2>&1",
		 f->out, id);
	out = run_cmd(cmd);
	print_message("snapshot %d, perf script:\n%s", id, out);
	r = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lu %lx %63s", &t, &ip, sym) != 3)
			fail_msg("not an instruction: %s", line);
		assert_true(lines < total);
		while (n == runs[r].p->n) {
			n = 0;
			r++;
		}
		assert_int_equal(t, runs[r].tid);
		assert_int_equal(ip, base + runs[r].p->offs[n]);
		snprintf(want, sizeof(want), "ptgen_branches+0x%x", runs[r].p->offs[n]);
		assert_string_equal(sym, want);
		n++;
		lines++;
	}
	assert_int_equal(lines, total);
	free(out);
}

/*
 * The decoder's errors in snapshot @id (perf script's `e` option): PT
 * bytes perf can't follow, e.g. of a process it has no maps of. Returns
 * the number of error lines; their text into @text (@cap bytes).
 */
static unsigned int perf_errors(struct ptfix *f, int id, char *text, size_t cap)
{
	char cmd[512], *out, *line, *save = NULL;
	unsigned int n = 0;

	snprintf(cmd, sizeof(cmd),
		 "perf script --itrace=i0nse -F tid,ip,sym,symoff -i "
		 "%s/snapshot-%06d/perf.data 2>&1",
		 f->out, id);
	out = run_cmd(cmd);
	*text = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "instruction trace error type")) {
			snprintf(text + strlen(text), cap - strlen(text), "%s\n", line);
			n++;
		}
	free(out);
	return n;
}

/*
 * The bundle's switch trace of @cpu: SWITCH_CPU_WIDE records, as LLDB
 * reads them, switch-in then switch-out of @tid, @nr_runs times, and
 * nothing else.
 */
static void check_switch_trace(struct ptfix *f, int id, int cpu, __u32 tid, unsigned int nr_runs)
{
	char path[256];
	unsigned int n = 0;
	size_t len, off;
	__u8 *buf;

	snprintf(path, sizeof(path), "%s/snapshot-%06d/cpus/%d.perf_context_switch_trace", f->out,
		 id, cpu);
	buf = read_whole(path, &len);
	for (off = 0; off + sizeof(struct perf_event_header) <= len;) {
		struct perf_event_header h;
		/* next_prev pid/tid, then the sample id: pid, tid, time */
		__u32 v[4];

		memcpy(&h, buf + off, sizeof(h));
		assert_true(h.size >= sizeof(h) + sizeof(v) + 8);
		assert_true(off + h.size <= len);
		memcpy(v, buf + off + sizeof(h), sizeof(v));
		assert_int_equal(h.type, PERF_RECORD_SWITCH_CPU_WIDE);
		assert_int_equal(h.misc & PERF_RECORD_MISC_SWITCH_OUT,
				 n & 1 ? PERF_RECORD_MISC_SWITCH_OUT : 0);
		/* the task-bound event does not see the other task */
		assert_int_equal(v[0], (__u32)-1);
		assert_int_equal(v[1], (__u32)-1);
		assert_int_equal(v[2], f->pid);
		assert_int_equal(v[3], tid);
		off += h.size;
		n++;
	}
	assert_int_equal(off, len);
	assert_int_equal(n, 2 * nr_runs);
	free(buf);
}

/*
 * Process scope: this thread runs path A on CPU 0 and the helper thread
 * path A on CPU 1, each followed on its CPU by an unrelated process that
 * runs path B. The stop cuts nothing (the kernel did, at the switches) and
 * the snapshot of the stopped target is read with no ioctl: perf script
 * decodes exactly the target's two runs, B nowhere; the bundle passes the
 * schema check and its switch traces are the target's threads' own, as
 * SWITCH_CPU_WIDE records. After a run, a second snapshot holds only the
 * new run of B by this thread.
 */
static void test_process_scope_target_only(void **state)
{
	struct ptfix *f = *state;
	__u8 a[128], a2[128], b[128], junk[128];
	const struct path_run first[] = {
		{ &ptgen_branches_a, f->tid },
		{ &ptgen_branches_a, f->tid2 },
	};
	const struct path_run second[] = { { &ptgen_branches_b, f->tid } };
	size_t la, la2, lb;
	unsigned long calls;
	char *out;

	add_tasks(f);
	start_scope(f, SCOPE_PROCESS);
	la = sched_path(f, 0, f->tid, &ptgen_branches_a, 2000000, a, sizeof(a));
	assert_true(la > 0);
	assert_int_equal(
		sched_path(f, 0, OTHER_PID, &ptgen_branches_b, 2010000, junk, sizeof(junk)), 0);
	la2 = sched_path(f, 1, f->tid2, &ptgen_branches_a, 2020000, a2, sizeof(a2));
	assert_true(la2 > 0);
	assert_int_equal(
		sched_path(f, 1, OTHER_PID, &ptgen_branches_b, 2030000, junk, sizeof(junk)), 0);
	assert_int_equal(sim_pmu_written(f->sim, 0), la);
	assert_int_equal(sim_pmu_written(f->sim, 1), la2);
	calls = sim_pmu_calls(f->sim, SIM_IOCTL);
	ptfix_event(f, PTBPF_EV_STOP);
	/* no pause, and the snapshot read the stopped target's rings as is */
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls);
	assert_true(sim_pmu_running(f->sim, 0));
	ptfix_event(f, PTBPF_EV_RUN);
	lb = sched_path(f, 0, f->tid, &ptgen_branches_b, 2050000, b, sizeof(b));
	assert_true(lb > 0);
	assert_int_equal(
		sched_path(f, 0, OTHER_PID, &ptgen_branches_a, 2060000, junk, sizeof(junk)), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls);
	ptfix_drain(f, 2);

	check_cpu_file(f, 1, 0, a, la);
	check_cpu_file(f, 1, 1, a2, la2);
	check_perf_runs(f, 1, first, 2);
	/* and no byte perf could not decode (see test_cpu_scope_has_other) */
	assert_int_equal(perf_errors(f, 1, (char *)junk, sizeof(junk)), 0);
	check_libipt(f, 1, 0, &ptgen_branches_a);
	check_libipt(f, 1, 1, &ptgen_branches_a);
	check_schema(f, 1);
	check_switch_trace(f, 1, 0, f->tid, 1);
	check_switch_trace(f, 1, 1, f->tid2, 1);

	check_cpu_file(f, 2, 0, b, lb);
	check_cpu_file(f, 2, 1, NULL, 0);
	check_perf_runs(f, 2, second, 1);
	assert_int_equal(perf_errors(f, 2, (char *)junk, sizeof(junk)), 0);
	check_schema(f, 2);
	check_switch_trace(f, 2, 0, f->tid, 1);
	check_switch_trace(f, 2, 1, f->tid, 0);

	out = ptbpf_json(f, 1, "d[\"scope\"]");
	assert_string_equal(out, "process\n");
	free(out);
}

/*
 * --wait-for over the simulated PMU: the target is held (SIGSTOP at its
 * exec) when the run starts, so the controller starts with it stopped;
 * in process scope the cores are armed at once all the same, and what the
 * target runs after its SIGCONT, from its first instruction, is the first
 * thing in the first snapshot (its exit's): perf script and libipt decode
 * exactly path A from ptgen_branches+0, nothing before it.
 */
static void test_held_start_first_insns(void **state)
{
	struct ptfix *f = *state;
	__u8 a[128], junk[128];
	const struct path_run first[] = { { &ptgen_branches_a, f->tid } };
	size_t la;

	add_tasks(f);
	ptfix_start(f, SCOPE_PROCESS, PTBPF_PROC_STOPPED, TRIGGER_STOP | TRIGGER_EXIT);
	/* held: nothing of it can be in the buffers yet */
	assert_int_equal(sim_pmu_written(f->sim, 0), 0);
	assert_int_equal(sim_pmu_written(f->sim, 1), 0);
	ptfix_event(f, PTBPF_EV_RUN); /* let go: SIGCONT */
	la = sched_path(f, 0, f->tid, &ptgen_branches_a, 2000000, a, sizeof(a));
	assert_true(la > 0);
	ptfix_event(f, PTBPF_EV_EXIT);
	ptfix_drain(f, 1);
	check_cpu_file(f, 1, 0, a, la);
	check_perf_runs(f, 1, first, 1);
	assert_int_equal(perf_errors(f, 1, (char *)junk, sizeof(junk)), 0);
	check_libipt(f, 1, 0, &ptgen_branches_a);
	check_schema(f, 1);
}

/*
 * Process scope: this thread runs path A on CPU 0, then a process it
 * forked runs path B on CPU 1. Returns the PT bytes of B that reached a
 * buffer; the stop's snapshot is written.
 */
static size_t fork_runs(struct ptfix *f, pid_t child, __u8 *a, size_t *la, __u8 *b)
{
	size_t lb;

	add_tasks(f);
	ptfix_start(f, SCOPE_PROCESS, PTBPF_PROC_RUNNING, TRIGGER_STOP);
	assert_int_equal(sim_pmu_clone(f->sim, f->tid, (__u32)child, false), 0);
	/* the fork event: its /proc is read for the snapshot's records */
	if (f->follow)
		snapqueue_follow(f->w.queue, (uint32_t)child, false);
	*la = sched_path(f, 0, f->tid, &ptgen_branches_a, 2000000, a, 128);
	assert_true(*la > 0);
	lb = sched_path(f, 1, (__u32)child, &ptgen_branches_b, 2010000, b, 128);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 1);
	return lb;
}

/*
 * --follow over the simulated PMU: the task-bound events are inherited by
 * a process the target forks (inherit without inherit_thread), so the
 * child's PT reaches the same rings, and perf script decodes it under the
 * child's own tid from the snapshot's records of it (/proc, the followed
 * processes), after the target's: A by this thread, then B by the child.
 */
static void test_follow_fork_traced(void **state)
{
	struct ptfix *f = *state;
	__u8 a[128], b[128], junk[256];
	pid_t child = paused_child();
	const struct path_run runs[] = {
		{ &ptgen_branches_a, f->tid },
		{ &ptgen_branches_b, (__u32)child },
	};
	size_t la, lb;

	f->follow = true;
	lb = fork_runs(f, child, a, &la, b);
	assert_true(lb > 0);
	check_cpu_file(f, 1, 0, a, la);
	check_cpu_file(f, 1, 1, b, lb);
	check_perf_runs(f, 1, runs, 2);
	assert_int_equal(perf_errors(f, 1, (char *)junk, sizeof(junk)), 0);
	check_schema(f, 1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* Without --follow the same fork's PT reaches no buffer at all. */
static void test_no_follow_fork_untraced(void **state)
{
	struct ptfix *f = *state;
	__u8 a[128], b[128];
	pid_t child = paused_child();
	const struct path_run runs[] = { { &ptgen_branches_a, f->tid } };
	size_t la;

	assert_int_equal(fork_runs(f, child, a, &la, b), 0);
	check_cpu_file(f, 1, 1, NULL, 0);
	check_perf_runs(f, 1, runs, 1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/*
 * This binary's code mapping, as /proc/self/maps shows it: the mapping
 * that holds ptgen_branches, for the sim to say the target mapped it.
 */
static void code_mapping(struct sim_mapping *m, char *path, size_t cap)
{
	unsigned long long lo, hi, off, ino, at = (uintptr_t)ptgen_branches;
	char line[PATH_MAX + 128], perms[8];
	unsigned int maj, min;
	int name = 0;
	FILE *fp = fopen("/proc/self/maps", "re");

	assert_non_null(fp);
	memset(m, 0, sizeof(*m));
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj,
			   &min, &ino, &name) < 7 ||
		    at < lo || at >= hi)
			continue;
		line[strcspn(line, "\n")] = '\0';
		assert_true(strlen(line + name) < cap && perms[2] == 'x');
		strcpy(path, line + name);
		*m = (struct sim_mapping){ .start = lo,
					   .len = hi - lo,
					   .pgoff = off,
					   .prot = PROT_READ | PROT_EXEC,
					   .flags = MAP_PRIVATE,
					   .maj = maj,
					   .min = min,
					   .ino = ino,
					   .path = path };
	}
	fclose(fp);
	assert_non_null(m->path);
}

/*
 * The records of snapshot @id's perf.data: how many FORK and EXIT, and
 * how many MMAP2 of @path.
 */
static void perf_data_records(struct ptfix *f, int id, const char *path, unsigned int *forks,
			      unsigned int *exits, unsigned int *maps)
{
	const struct perf_event_header *h;
	struct perffile_header fh;
	char file[256];
	size_t len, off = 0;
	__u8 *buf;

	snprintf(file, sizeof(file), "%s/snapshot-%06d/perf.data", f->out, id);
	buf = read_whole(file, &len);
	assert_true(len >= sizeof(fh));
	memcpy(&fh, buf, sizeof(fh));
	assert_true(fh.data_off + fh.data_size <= len);
	*forks = *exits = *maps = 0;
	while (perfrec_next(buf + fh.data_off, fh.data_size, &off, &h) == 1) {
		struct perfrec_auxtrace at;

		/* the trace bytes follow an AUXTRACE record */
		if (h->type == PERFFILE_RECORD_AUXTRACE) {
			memcpy(&at, h, sizeof(at));
			off += at.size;
		}
		*forks += h->type == PERF_RECORD_FORK;
		*exits += h->type == PERF_RECORD_EXIT;
		*maps += h->type == PERF_RECORD_MMAP2 &&
			 !strcmp((const char *)h + sizeof(struct perfrec_mmap2), path);
	}
	assert_int_equal(off, fh.data_size);
	free(buf);
}

/*
 * Code a process maps after its last /proc reading is named by the
 * kernel's MMAP2 record alone (a library dlopen()ed just before a crash;
 * a life too short for the writer to read): here /proc is of no use (an
 * empty proc root: the target was gone before the writer looked) and this
 * binary's code reaches the snapshot only through the MMAP2 the sim
 * writes into the target's sideband ring when the target maps it, on
 * CPU 0, with the FORK of a thread it makes there; the thread's EXIT
 * follows on CPU 1. perf script names the instructions of the path,
 * libipt decodes them over trace.json's modules; perf.data holds the
 * mapping once (the readings' MMAP2, at the file's start) and none of the
 * kernel's FORK and EXIT records.
 * Tried with ptbpf's code made to ignore them: with kmaps_merge() skipping
 * every record, perf script prints no instruction (no map: the snapshot
 * has no module); with kmaps_strip() keeping them, perf.data holds the
 * mapping twice, the FORK and the EXIT.
 */
static void test_kernel_maps_name_code(void **state)
{
	struct ptfix *f = *state;
	const struct path_run runs[] = { { &ptgen_branches_a, f->tid } };
	unsigned int forks, exits, maps;
	char proc[96], path[PATH_MAX];
	struct sim_mapping m;
	__u8 a[128];

	/* in the fake sysfs root: the teardown removes it, failed or not */
	snprintf(proc, sizeof(proc), "%s/proc", f->root);
	assert_int_equal(mkdir(proc, 0700), 0);
	f->proc_root = proc;
	code_mapping(&m, path, sizeof(path));
	add_tasks(f);
	start_scope(f, SCOPE_PROCESS);
	sim_pmu_set_time(f->sim, PERF_TIME(1990000));
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	/* the target's sideband event of CPU 0 asks for it, alone */
	assert_int_equal(sim_pmu_mmap(f->sim, 0, &m), 1);
	assert_int_equal(sim_pmu_clone(f->sim, f->tid, OTHER_PID + 1, true), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_true(sched_path(f, 0, f->tid, &ptgen_branches_a, 2000000, a, sizeof(a)) > 0);
	sim_pmu_set_time(f->sim, PERF_TIME(2010000));
	assert_int_equal(sim_pmu_sched_in(f->sim, 1, OTHER_PID + 1), 0);
	assert_int_equal(sim_pmu_exit(f->sim, OTHER_PID + 1), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 1);

	check_perf_runs(f, 1, runs, 1);
	check_libipt(f, 1, 0, &ptgen_branches_a);
	perf_data_records(f, 1, path, &forks, &exits, &maps);
	assert_int_equal(maps, 1);
	assert_int_equal(forks, 0);
	assert_int_equal(exits, 0);
	/* nothing of it was ever there */
	assert_int_equal(rmdir(proc), 0);
}

/*
 * The same schedule in cpu scope, as a control: the unrelated process's
 * path B is in the buffer after the target's A, and perf, told by the
 * switch records that pid OTHER_PID ran it, reports it as a decoder error
 * (it has no maps of that process). So in process scope a byte of another
 * task would show in perf script, as an instruction or as an error.
 */
static void test_cpu_scope_has_other(void **state)
{
	struct ptfix *f = *state;
	__u8 a[128], b[128], ab[256];
	const struct path_run runs[] = { { &ptgen_branches_a, f->tid } };
	char errs[512], want[64];
	size_t la, lb;

	add_tasks(f);
	start_scope(f, SCOPE_CPU);
	la = sched_path(f, 0, f->tid, &ptgen_branches_a, 2000000, a, sizeof(a));
	lb = sched_path(f, 0, OTHER_PID, &ptgen_branches_b, 2010000, b, sizeof(b));
	assert_true(la > 0 && lb > 0);
	assert_int_equal(sim_pmu_written(f->sim, 0), la + lb);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 1);
	memcpy(ab, a, la);
	memcpy(ab + la, b, lb);
	check_cpu_file(f, 1, 0, ab, la + lb);
	check_perf_runs(f, 1, runs, 1);
	assert_int_equal(perf_errors(f, 1, errs, sizeof(errs)), 1);
	snprintf(want, sizeof(want), "pid %u tid %u", OTHER_PID, OTHER_PID);
	assert_non_null(strstr(errs, want));
	check_schema(f, 1);
}

#define UPROBE_TYPE 7

static struct pt_packet ip_packet(enum pt_packet_type type, __u64 ip)
{
	struct pt_packet p = { .type = type };

	p.payload.ip.ipc = ip ? pt_ipc_sext_48 : pt_ipc_suppressed;
	p.payload.ip.ip = ip;
	return p;
}

/*
 * What the hardware writes for ptgen_outer(0) (x != 1, so jne is taken)
 * up to the uprobe on ptgen_inner's entry: PSB+, MODE.exec, TIP.PGE at
 * ptgen_outer, TNT (jne taken), then the direct call; the breakpoint traps
 * into the (untraced) kernel at ptgen_inner: FUP there, TIP.PGD.
 */
static size_t encode_to_hit(__u8 *buf, size_t cap, __u64 tsc)
{
	struct pt_packet pk[8];

	memset(pk, 0, sizeof(pk));
	ptgen_psb(pk, tsc);
	pk[4] = ip_packet(ppt_tip_pge, (__u64)(uintptr_t)ptgen_outer);
	pk[5].type = ppt_tnt_8;
	pk[5].payload.tnt.bit_size = 1;
	pk[5].payload.tnt.payload = 1;
	pk[6] = ip_packet(ppt_fup, (__u64)(uintptr_t)ptgen_inner);
	pk[7] = ip_packet(ppt_tip_pgd, 0);
	return ptgen_packets(buf, cap, 0, pk, 8);
}

/*
 * The rest, back from the uprobe: TIP.PGE at ptgen_inner, its add and ret
 * (TIP to ptgen_outer+0xf), ptgen_outer's ret leaving (TIP.PGD).
 */
static size_t encode_after_hit(__u8 *buf, size_t cap)
{
	struct pt_packet pk[3] = {
		ip_packet(ppt_tip_pge, (__u64)(uintptr_t)ptgen_inner),
		ip_packet(ppt_tip, (__u64)(uintptr_t)ptgen_outer + 0xf),
		ip_packet(ppt_tip_pgd, (__u64)(uintptr_t)encode_after_hit),
	};

	return ptgen_packets(buf, cap, 0, pk, 3);
}

/* The last instruction perf script decodes in snapshot @id is @want. */
static void check_last_perf(struct ptfix *f, int id, const char *want)
{
	char cmd[512], sym[64] = "", *out, *line, *save = NULL;
	unsigned int n = 0;

	snprintf(cmd, sizeof(cmd),
		 "perf script --itrace=i0ns -F ip,sym,symoff -i "
		 "%s/snapshot-%06d/perf.data 2>/dev/null",
		 f->out, id);
	out = run_cmd(cmd);
	print_message("snapshot %d, perf script:\n%s", id, out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		n += sscanf(line, "%*s %63s", sym) == 1;
	assert_true(n > 0);
	assert_string_equal(sym, want);
	free(out);
}

/* libipt's instructions of cpus/@cpu of snapshot @id: the last one's IP. */
static __u64 last_insn(struct ptfix *f, int id, int cpu, unsigned int *n)
{
	struct pt_image *img = image_from_bundle(f, id);
	__u64 ips[32];
	char path[256];
	size_t len;
	__u8 *buf;

	snprintf(path, sizeof(path), "%s/snapshot-%06d/cpus/%d.intelpt_trace", f->out, id, cpu);
	buf = read_whole(path, &len);
	*n = insn_decode(buf, len, img, ips, 32);
	free(buf);
	pt_image_free(img);
	assert_true(*n > 0);
	return ips[*n - 1];
}

/*
 * This thread, on CPU 0, runs ptgen_outer into ptgen_inner, where a
 * --trigger-on uprobe hits; it runs on (the rest of the path) before the
 * hit event reaches the controller, which stages the snapshot with the
 * thread still on the CPU. Then it switches out, and runs the path once
 * more. Returns the PT bytes the hardware wrote after the hit, before the
 * snapshot.
 */
static long hit_run(struct ptfix *f, bool aux_action)
{
	static const struct hitpoint specs[] = {
		{ .spec = "ptgen_inner", .symbol = "ptgen_inner", .path = "/proc/self/exe" },
	};
	__u8 a[128], b[64];
	size_t la, lb;
	long after;

	assert_int_equal(sim_sysfs_write(f->root, "bus/event_source/devices/uprobe/type", "7\n"),
			 0);
	sim_pmu_set_uprobe(f->sim, UPROBE_TYPE, aux_action);
	strcpy(f->points[0].path, "/proc/self/exe");
	f->points[0].offset = 0x1234; /* as the sim sees it: any place */
	f->nr_points = 1;
	add_tasks(f);
	start_scope(f, SCOPE_PROCESS);
	assert_int_equal(cores_aux_pause(f->cores), aux_action);
	control_set_points(&f->ctl, specs, 1);

	la = encode_to_hit(a, sizeof(a), 2000000);
	lb = encode_after_hit(b, sizeof(b));
	sim_pmu_set_time(f->sim, PERF_TIME(2000000) - 1000);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	assert_int_equal(sim_pmu_emit(f->sim, 0, a, la), (long)la);
	/* the hit: one uprobe event of this thread's group on CPU 0, if any */
	assert_int_equal(sim_pmu_uprobe_hit(f->sim, 0, f->points[0].path, f->points[0].offset),
			 aux_action ? 1 : 0);
	after = sim_pmu_emit(f->sim, 0, b, lb);
	/* the hit event, as the BPF uprobe sends it */
	ptfix_hit(f, (__u64)(uintptr_t)ptgen_inner);
	/* its next switch-out resumes PT: the next run is traced again */
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	assert_int_equal(sim_pmu_emit(f->sim, 0, b, lb), (long)lb);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	ptfix_drain(f, 1);
	return after;
}

/*
 * aux-action: PT stopped at the hit, so the snapshot's last decoded
 * instruction is the call into ptgen_inner, and nothing of ptgen_inner is
 * in it, though the thread ran on there before the snapshot was staged.
 */
static void test_hit_cut_by_kernel(void **state)
{
	struct ptfix *f = *state;
	unsigned int n;
	__u64 last;
	char *out;

	assert_int_equal(hit_run(f, true), 0);
	last = last_insn(f, 1, 0, &n);
	assert_int_equal(n, 4); /* xor, cmp, jne, call */
	/* ptgen_outer+0xa: call ptgen_inner (ptgen.h) */
	assert_int_equal(last, (__u64)(uintptr_t)ptgen_outer + 0xa);
	/* perf agrees: its last instruction is the call */
	check_last_perf(f, 1, "ptgen_outer+0xa");
	out = ptbpf_json(f, 1,
			 "d[\"trigger\"], d[\"hit\"][\"spec\"], "
			 "d[\"hit\"][\"cut\"]");
	assert_string_equal(out, "trigger ptgen_inner kernel\n");
	free(out);
	out = snapshot_events(f, "trigger hit.spec hit.cut");
	assert_string_equal(out, "trigger ptgen_inner kernel\n");
	free(out);
}

/*
 * The control: a kernel without aux-action refuses the pause events, the
 * groups have none, and the same run's snapshot goes on past the hit into
 * ptgen_inner and back (its last instruction ptgen_outer's ret); it says
 * "staged".
 */
static void test_hit_staged_without_aux_action(void **state)
{
	struct ptfix *f = *state;
	unsigned int n;
	__u64 last;
	char *out;

	assert_true(hit_run(f, false) > 0);
	last = last_insn(f, 1, 0, &n);
	assert_int_equal(n, 7); /* ... call, add, ret, ret */
	assert_int_equal(last, (__u64)(uintptr_t)ptgen_outer + 0xf);
	check_last_perf(f, 1, "ptgen_outer+0xf");
	out = ptbpf_json(f, 1, "d[\"hit\"][\"cut\"]");
	assert_string_equal(out, "staged\n");
	free(out);
}

static int setup(void **state)
{
	return ptfix_setup(state, "pipe", "test_pt_pipelin", false);
}

#define T(t) cmocka_unit_test_setup_teardown(t, setup, ptfix_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_stop_snapshots_decode),
		T(test_full_holds_all),
		T(test_wrap_reported),
		T(test_process_scope_target_only),
		T(test_held_start_first_insns),
		T(test_follow_fork_traced),
		T(test_no_follow_fork_untraced),
		T(test_kernel_maps_name_code),
		T(test_cpu_scope_has_other),
		T(test_hit_cut_by_kernel),
		T(test_hit_staged_without_aux_action),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
