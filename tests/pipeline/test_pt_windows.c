// SPDX-License-Identifier: GPL-2.0
/*
 * Every recorded instruction decodable, under its thread: the PT window
 * of each snapshot, on each CPU, starts with the thread that ran there
 * named, over the simulated PMU (which writes the intel_pt event's own
 * ITRACE_START and AUX records where the kernel does, and drops them
 * where the kernel would: a ring with no data pages, no room).
 *
 * The target runs on a CPU when the collection starts (the attach) and
 * across reads (SIGUSR2, the end), so no switch-in record of it is in the
 * window: the kernel's ITRACE_START names it in the first window, ptbpf's
 * own record (from the switches and ITRACE_STARTs it read before) in the
 * later ones. For each snapshot kind (stop, requested, end, fatal,
 * --trigger-on staged and cut by the kernel), each scope (process, cpu,
 * cgroup), --pid and -- COMMAND, --follow's forked process, wrapped or
 * not, and with --full (a window reaching back past the last read):
 *
 * - `perf script --itrace=i0nse` prints 0 "instruction trace error"
 *   lines, and every instruction under a tid of the target;
 * - `ptbpf-dump --insn` attributes every instruction (no "tid ?").
 *
 * The control: with the PT event's records dropped (a ring without room,
 * as a writer that maps none), the attach window's instructions have no
 * thread and perf reports the errors. The AUX flags the kernel sets
 * (truncated, collision, partial) are facts of the snapshot's cores in
 * ptbpf.json and in ptbpf-dump's summary.
 *
 * The simulated PMU's own rules for that ring are checked directly too
 * (ITRACE_START at each schedule-in until PT first started, AUX of the
 * whole area at each switch-out, LOST after a full ring), and ptbpf's
 * drain of it: a window of more switches than the ring holds keeps its
 * AUX flags, and the loss is said when not drained; a flagged AUX record
 * of the whole area decodes whole; the ring counts in the memory plan.
 *
 * Each test prints "figures:" lines: instructions decoded and decoder
 * errors per snapshot, the measure.
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

#include "control/control.h"
#include "collect/cores.h"
#include "control/ctlops.h"
#include "output/eventlog.h"
#include "ptbpf.h"
#include "ptbranches.h"
#include "ptfix.h"
#include "ptgen.h"
#include "collect/scope.h"
#include "sim_pmu.h"
#include "snapshot/snapstage.h"
#include "testio.h"

/*
 * The cores, the writer and the controller (stop, fatal, exit), as main.c;
 * the kernel's clock runs past the mmap page's time_zero, as on a host.
 */
static void start(struct ptfix *f, enum ptbpf_scope scope)
{
	sim_pmu_set_time(f->sim, PERF_TIME(1000000));
	ptfix_start(f, scope, PTBPF_PROC_RUNNING, TRIGGER_STOP | TRIGGER_EXIT | TRIGGER_FATAL);
}

/* The same with this thread on CPU 0 at the attach. */
static void start_on_cpu(struct ptfix *f, enum ptbpf_scope scope)
{
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	start(f, scope);
}

/*
 * Path @p through ptgen_branches, written by the hardware of @cpu at TSC
 * @tsc with no switch around it: the thread on the CPU goes on running.
 * Returns the bytes that reached the ring.
 */
static size_t emit_path(struct ptfix *f, int cpu, const struct ptgen_branch_path *p, __u64 tsc)
{
	__u8 buf[256];
	size_t n = ptgen_encode(buf, sizeof(buf), 0, tsc, (__u64)(uintptr_t)ptgen_branches, p->tnt,
				(__u64)(uintptr_t)emit_path);
	long w;

	assert_true(n > 0);
	sim_pmu_set_time(f->sim, PERF_TIME(tsc));
	w = sim_pmu_emit(f->sim, cpu, buf, n);
	assert_true(w >= 0);
	sim_pmu_set_time(f->sim, PERF_TIME(tsc) + 500);
	return (size_t)w;
}

/*
 * perf script --itrace=i0nse over snapshot @id: the instructions, the
 * decoder's errors (the first few go to stderr), and the instructions not
 * under a tid of the target (or of the process it forked, tid3); counted
 * by awk, the output can be long.
 */
static void perf_counts(struct ptfix *f, int id, unsigned int *insns, unsigned int *errors,
			unsigned int *foreign)
{
	char cmd[768], *out;

	snprintf(cmd, sizeof(cmd),
		 "perf script --itrace=i0nse -F tid,ip -i %s/snapshot-%06d/perf.data 2>&1 | "
		 "awk -v a=%u -v b=%u -v c=%u '/instruction trace error type/ { if (++e <= 3) "
		 "print > \"/dev/stderr\"; next } NF == 2 { n++; if ($1 != a && $1 != b && "
		 "(c == 0 || $1 != c)) o++ } END { print n + 0, e + 0, o + 0 }'",
		 f->out, id, f->tid, f->tid2, f->tid3);
	out = run_cmd(cmd);
	assert_int_equal(sscanf(out, "%u %u %u", insns, errors, foreign), 3);
	free(out);
}

/* ptbpf-dump --insn over snapshot @id: runs of an unknown thread. */
static unsigned int dump_unknown(struct ptfix *f, int id)
{
	char cmd[512], *out;
	unsigned int n;

	snprintf(cmd, sizeof(cmd),
		 "./ptbpf-dump --insn %s/snapshot-%06d 2>&1 | awk '/tid [?]/ { n++ } "
		 "END { print n + 0 }'",
		 f->out, id);
	out = run_cmd(cmd);
	assert_int_equal(sscanf(out, "%u", &n), 1);
	free(out);
	return n;
}

/*
 * Snapshot @id (a @kind snapshot) decodes whole: at least @min
 * instructions, no error, each under the target's threads, and
 * ptbpf-dump attributes them all.
 */
static void check_window(struct ptfix *f, int id, const char *kind, unsigned int min)
{
	unsigned int insns, errors, foreign, unknown;

	perf_counts(f, id, &insns, &errors, &foreign);
	unknown = dump_unknown(f, id);
	print_message("figures: snapshot %d (%s): %u instructions, %u decoder errors, %u not "
		      "under the target, %u \"tid ?\" runs in --insn\n",
		      id, kind, insns, errors, foreign, unknown);
	/* all windows of a test are measured before it fails */
	f->bad += errors || foreign || unknown || insns < min;
}

/*
 * The LLDB bundle of snapshot @id, CPU @cpu, as LLDB's decoder of the
 * switch trace takes it (PerfContextSwitchDecoder.cpp): SWITCH_CPU_WIDE
 * records whose times only grow (it refuses the trace otherwise), the
 * first a switch-in of @pid/@tid: the thread that starts the window,
 * which the kernel's ITRACE_START names in the first window. Returns the
 * number of records (at least one); the first one's time into *@first
 * (may be NULL).
 */
static unsigned int check_lldb_first(struct ptfix *f, int id, int cpu, __u32 pid, __u32 tid,
				     __u64 *first)
{
	struct perf_event_header h;
	unsigned int n = 0;
	char path[256];
	__u64 t, prev = 0;
	size_t len, off;
	__u32 v[4];
	__u8 *buf;

	snprintf(path, sizeof(path), "%s/snapshot-%06d/cpus/%d.perf_context_switch_trace", f->out,
		 id, cpu);
	buf = read_whole(path, &len);
	for (off = 0; off + sizeof(h) + sizeof(v) + sizeof(t) <= len; off += h.size, n++) {
		memcpy(&h, buf + off, sizeof(h));
		memcpy(v, buf + off + sizeof(h), sizeof(v));
		memcpy(&t, buf + off + sizeof(h) + sizeof(v), sizeof(t));
		assert_int_equal(h.type, PERF_RECORD_SWITCH_CPU_WIDE);
		assert_true(h.size >= sizeof(h) + sizeof(v) + sizeof(t));
		assert_true(!n || t > prev);
		prev = t;
		if (n)
			continue;
		if (first)
			*first = t;
		assert_int_equal(h.misc & PERF_RECORD_MISC_SWITCH_OUT, 0);
		assert_int_equal(v[2], pid);
		assert_int_equal(v[3], tid);
	}
	assert_int_equal(off, len);
	assert_true(n > 0);
	free(buf);
	return n;
}

/*
 * Process scope, the default path: this thread is on CPU 0 when the
 * collection starts; it runs A and stops there. The one switch record is
 * its switch-out: only the kernel's ITRACE_START names it.
 */
static void test_attach_on_cpu_stop(void **state)
{
	struct ptfix *f = *state;

	start_on_cpu(f, SCOPE_PROCESS);
	assert_true(emit_path(f, 0, &ptgen_branches_a, 2000000) > 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 1);
	check_window(f, 1, "stop", ptgen_branches_a.n);
	assert_int_equal(f->bad, 0);
	/* LLDB: the kernel's ITRACE_START, then the switch-out */
	assert_int_equal(check_lldb_first(f, 1, 0, f->pid, f->tid, NULL), 2);
}

/*
 * SIGUSR2 while both threads run (one on each CPU since the attach), then
 * more of the same with no switch, then the stop: the second window starts
 * in the middle of each thread's time on its CPU. Three times over, as in
 * the issue: each window after the first is named by ptbpf's record.
 */
static void test_requested_then_stop(void **state)
{
	struct ptfix *f = *state;
	__u64 tsc = 2000000;
	int round, id = 1;

	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 1, f->tid2), 0);
	start(f, SCOPE_PROCESS);
	for (round = 0; round < 3; round++) {
		emit_path(f, 0, &ptgen_branches_a, tsc += 10000);
		emit_path(f, 1, &ptgen_branches_b, tsc += 10000);
		control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
		ptfix_wait_written(f, id++);
		emit_path(f, 0, &ptgen_branches_b, tsc += 10000);
		emit_path(f, 1, &ptgen_branches_a, tsc += 10000);
		assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
		assert_int_equal(sim_pmu_sched_out(f->sim, 1), 0);
		ptfix_event(f, PTBPF_EV_STOP);
		ptfix_wait_written(f, id++);
		ptfix_event(f, PTBPF_EV_RUN);
		/* back on the CPUs before the next round's read */
		assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
		assert_int_equal(sim_pmu_sched_in(f->sim, 1, f->tid2), 0);
	}
	ptfix_drain(f, 6);
	id = 1;
	for (round = 0; round < 3; round++) {
		check_window(f, id++, "requested", ptgen_branches_a.n + ptgen_branches_b.n);
		check_window(f, id++, "stop", ptgen_branches_a.n + ptgen_branches_b.n);
	}
	assert_int_equal(f->bad, 0);
}

/*
 * The LLDB bundle of snapshot @id names the thread of CPU @cpu at the
 * window's start too: its switch trace begins with a switch-in of @tid at
 * TSC 0 (perf time time_zero).
 */
static void check_lldb_start(struct ptfix *f, int id, int cpu, __u32 tid)
{
	__u64 t = 0;

	check_lldb_first(f, id, cpu, f->pid, tid, &t);
	assert_int_equal(t, 123456789);
}

/* How the run ends the second window of two_windows(). */
enum win_end { END_STOP, END_FATAL, END_RUN };

/*
 * This thread, on CPU 0, runs path A; a SIGUSR2 read takes window 1 in
 * the middle of its time there; it runs path B; then @end takes window
 * 2: its stop (after its switch-out), a fatal signal or the run's end
 * (both while it is on the CPU). The figures call the windows
 * "requested" and "stop", "fatal" or "end", followed by @how (NULL: no
 * more); both must decode whole.
 */
static void two_windows(struct ptfix *f, enum win_end end, const char *how)
{
	static const char *const ends[] = { "stop", "fatal", "end" };
	char what[64];

	emit_path(f, 0, &ptgen_branches_a, 2000000);
	control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
	ptfix_wait_written(f, 1);
	emit_path(f, 0, &ptgen_branches_b, 2100000);
	if (end == END_STOP) {
		assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
		ptfix_event(f, PTBPF_EV_STOP);
	} else if (end == END_FATAL) {
		ptfix_event(f, PTBPF_EV_FATAL);
	} else {
		control_finish(&f->ctl, true);
	}
	ptfix_drain(f, 2);
	snprintf(what, sizeof(what), "requested%s%s", how ? ", " : "", how ? how : "");
	check_window(f, 1, what, ptgen_branches_a.n);
	snprintf(what, sizeof(what), "%s%s%s", ends[end], how ? ", " : "", how ? how : "");
	check_window(f, 2, what, ptgen_branches_b.n);
	assert_int_equal(f->bad, 0);
}

/* The end of the run while the target runs: the end snapshot's window. */
static void test_end_while_running(void **state)
{
	struct ptfix *f = *state;

	start_on_cpu(f, SCOPE_PROCESS);
	two_windows(f, END_RUN, NULL);
	check_lldb_start(f, 2, 0, f->tid);
}

/*
 * A wrapped window: after a read, the thread stays on CPU 0 and runs far
 * more than the ring holds. The window starts at the first PSB after the
 * wrap, still in that thread's time on the CPU.
 */
static void test_wrapped_window(void **state)
{
	struct ptfix *f = *state;
	__u64 tsc = 2000000;
	unsigned int i;

	start_on_cpu(f, SCOPE_PROCESS);
	emit_path(f, 0, &ptgen_branches_a, tsc);
	control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
	for (i = 0; i * 100 < 2 * BUF; i++)
		emit_path(f, 0, i & 1 ? &ptgen_branches_a : &ptgen_branches_b, tsc += 10000);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 2);
	check_window(f, 1, "requested", ptgen_branches_a.n);
	check_window(f, 2, "stop, wrapped", 100);
	assert_int_equal(f->bad, 0);
}

/*
 * cpu scope, the same runs: the CPU-wide PT event's first enable writes
 * its ITRACE_START, ptbpf names the thread in each later window.
 */
static void test_cpu_scope_windows(void **state)
{
	struct ptfix *f = *state;

	start_on_cpu(f, SCOPE_CPU);
	two_windows(f, END_STOP, "cpu scope");
	check_lldb_first(f, 1, 0, f->pid, f->tid, NULL);
	check_lldb_first(f, 2, 0, f->pid, f->tid, NULL);
}

/* cgroup scope: CPU-wide events behind a cgroup, the same windows. */
static void test_cgroup_scope_windows(void **state)
{
	struct ptfix *f = *state;

	f->cgroup_fd = 7;
	start_on_cpu(f, SCOPE_CGROUP);
	two_windows(f, END_STOP, "cgroup scope");
}

/*
 * A fatal signal while the faulting thread is on its CPU, after a
 * SIGUSR2 read in the middle of its time there: the fatal window.
 */
static void test_fatal_while_on_cpu(void **state)
{
	struct ptfix *f = *state;

	start_on_cpu(f, SCOPE_PROCESS);
	two_windows(f, END_FATAL, NULL);
}

/*
 * -- COMMAND: the events are armed with enable_on_exec; the command's
 * thread is on CPU 0 when it execs, so PT starts there with no switch:
 * the kernel's ITRACE_START at the exec names it, ptbpf's the window
 * after a read.
 */
static void test_command_exec_on_cpu(void **state)
{
	struct ptfix *f = *state;

	f->on_exec = true;
	start_on_cpu(f, SCOPE_PROCESS);
	assert_int_equal(sim_pmu_exec(f->sim, f->tid, "test_pt_windows"), 0);
	two_windows(f, END_STOP, "-- COMMAND");
}

/*
 * --full: every snapshot holds the whole ring, bytes from before the last
 * read included, so a window starts before the read that named its
 * thread: ptbpf names the thread on the CPU before the oldest switch
 * record of the snapshot, from the switches and ITRACE_STARTs it read
 * over the run. This thread runs from the attach (its ITRACE_START is in
 * the first read only), then the helper thread takes CPU 0 and runs past
 * the ring's size, so the third window starts after the wrap, in the
 * helper's time, with a PSB of the helper's trace.
 */
static void test_full_windows(void **state)
{
	struct ptfix *f = *state;
	__u64 tsc = 2000000;
	unsigned int i;

	f->full = true;
	start_on_cpu(f, SCOPE_PROCESS);
	emit_path(f, 0, &ptgen_branches_a, tsc);
	control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
	ptfix_wait_written(f, 1);
	emit_path(f, 0, &ptgen_branches_b, tsc += 10000);
	control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
	ptfix_wait_written(f, 2);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid2), 0);
	for (i = 0; i * 100 < 2 * BUF; i++)
		emit_path(f, 0, i & 1 ? &ptgen_branches_a : &ptgen_branches_b, tsc += 10000);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	emit_path(f, 0, &ptgen_branches_a, tsc += 10000);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 3);
	check_window(f, 1, "requested, --full", ptgen_branches_a.n);
	check_window(f, 2, "requested, --full", ptgen_branches_a.n + ptgen_branches_b.n);
	check_window(f, 3, "stop, --full, wrapped", 100);
	assert_int_equal(f->bad, 0);
}

/*
 * --trigger-on, staged (no aux-action on this kernel): each hit's
 * snapshot is read while both threads run on, so the next window starts
 * in the middle of their time on the CPUs; the stop after them too.
 */
static void test_hit_windows(void **state)
{
	static const struct hitpoint specs[] = {
		{ .spec = "ptgen_branches", .symbol = "ptgen_branches", .path = "/proc/self/exe" },
	};
	struct ptfix *f = *state;
	__u64 tsc = 2000000;

	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 1, f->tid2), 0);
	start(f, SCOPE_PROCESS);
	control_set_points(&f->ctl, specs, 1);
	emit_path(f, 0, &ptgen_branches_a, tsc);
	emit_path(f, 1, &ptgen_branches_b, tsc += 10000);
	ptfix_hit(f, (__u64)(uintptr_t)ptgen_branches);
	ptfix_wait_written(f, 1);
	emit_path(f, 0, &ptgen_branches_b, tsc += 10000);
	emit_path(f, 1, &ptgen_branches_a, tsc += 10000);
	ptfix_hit(f, (__u64)(uintptr_t)ptgen_branches);
	ptfix_wait_written(f, 2);
	emit_path(f, 0, &ptgen_branches_a, tsc += 10000);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 1), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 3);
	check_window(f, 1, "--trigger-on", ptgen_branches_a.n + ptgen_branches_b.n);
	check_window(f, 2, "--trigger-on", ptgen_branches_a.n + ptgen_branches_b.n);
	check_window(f, 3, "stop after --trigger-on", ptgen_branches_a.n);
	assert_int_equal(f->bad, 0);
}

/*
 * --trigger-on cut by the kernel (aux-action): the hit pauses PT on CPU 0
 * until the thread's next switch-out; the snapshot is read with the
 * thread still there, and the next window starts at its switch-in; the
 * helper on CPU 1 runs through the read.
 */
static void test_hit_cut_windows(void **state)
{
	static const struct hitpoint specs[] = {
		{ .spec = "ptgen_branches", .symbol = "ptgen_branches", .path = "/proc/self/exe" },
	};
	struct ptfix *f = *state;
	__u64 tsc = 2000000;

	assert_int_equal(sim_sysfs_write(f->root, "bus/event_source/devices/uprobe/type", "7\n"),
			 0);
	sim_pmu_set_uprobe(f->sim, 7, true);
	strcpy(f->points[0].path, "/proc/self/exe");
	f->points[0].offset = 0x1234;
	f->nr_points = 1;
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 1, f->tid2), 0);
	start(f, SCOPE_PROCESS);
	assert_true(cores_aux_pause(f->cores));
	control_set_points(&f->ctl, specs, 1);
	emit_path(f, 0, &ptgen_branches_a, tsc);
	emit_path(f, 1, &ptgen_branches_b, tsc += 10000);
	assert_int_equal(sim_pmu_uprobe_hit(f->sim, 0, f->points[0].path, f->points[0].offset), 1);
	ptfix_hit(f, (__u64)(uintptr_t)ptgen_branches);
	ptfix_wait_written(f, 1);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	emit_path(f, 0, &ptgen_branches_b, tsc += 10000);
	emit_path(f, 1, &ptgen_branches_a, tsc += 10000);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 1), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 2);
	check_window(f, 1, "--trigger-on, cut", ptgen_branches_a.n + ptgen_branches_b.n);
	check_window(f, 2, "stop after a cut", ptgen_branches_a.n + ptgen_branches_b.n);
	assert_int_equal(f->bad, 0);
}

/*
 * --follow: a process this thread forks inherits the events and runs on
 * CPU 1 through a read. perf_log_itrace_start() checks the parent event's
 * PERF_ATTACH_ITRACE, which pt_config() sets only on the event that
 * starts: this thread never ran on CPU 1, so the child's schedule-in
 * there writes an ITRACE_START (where the parent had run, none would
 * come). Its first window names it by that record and its switch-in, the
 * next by ptbpf's record.
 */
static void test_follow_windows(void **state)
{
	struct ptfix *f = *state;
	pid_t child = paused_child();
	__u64 tsc = 2000000;

	f->follow = true;
	f->tid3 = (__u32)child;
	start_on_cpu(f, SCOPE_PROCESS);
	assert_int_equal(sim_pmu_clone(f->sim, f->tid, (__u32)child, false), 0);
	snapqueue_follow(f->w.queue, (uint32_t)child, false);
	assert_int_equal(sim_pmu_sched_in(f->sim, 1, (__u32)child), 0);
	emit_path(f, 0, &ptgen_branches_a, tsc);
	emit_path(f, 1, &ptgen_branches_b, tsc += 10000);
	control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
	ptfix_wait_written(f, 1);
	emit_path(f, 0, &ptgen_branches_b, tsc += 10000);
	emit_path(f, 1, &ptgen_branches_a, tsc += 10000);
	control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
	ptfix_wait_written(f, 2);
	emit_path(f, 1, &ptgen_branches_b, tsc += 10000);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 1), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 3);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	check_window(f, 1, "requested, --follow", ptgen_branches_a.n + ptgen_branches_b.n);
	check_window(f, 2, "requested, --follow", ptgen_branches_a.n + ptgen_branches_b.n);
	check_window(f, 3, "stop, --follow", ptgen_branches_b.n);
	assert_int_equal(f->bad, 0);
}

/*
 * -- COMMAND in a CPU-wide scope: the collection starts (the CPU-wide PT
 * event's first enable: its ITRACE_START) while ptbpf itself runs on CPU
 * 0 (OTHER_PID here), before the command is let go; the command's thread
 * then takes the CPU and execs, and runs through a read.
 */
static void command_cpu_wide(struct ptfix *f, enum ptbpf_scope scope, const char *kind)
{
	char what[64];

	f->on_exec = true;
	if (scope == SCOPE_CGROUP)
		f->cgroup_fd = 7;
	assert_int_equal(sim_pmu_task(f->sim, OTHER_PID, OTHER_PID), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, OTHER_PID), 0);
	start(f, scope);
	assert_true(sim_pmu_running(f->sim, 0));
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	assert_int_equal(sim_pmu_exec(f->sim, f->tid, "test_pt_windows"), 0);
	snprintf(what, sizeof(what), "-- COMMAND, %s", kind);
	two_windows(f, END_STOP, what);
	/* LLDB: ptbpf on CPU 0 when PT started, then the command */
	check_lldb_first(f, 1, 0, OTHER_PID, OTHER_PID, NULL);
}

static void test_command_cpu_scope(void **state)
{
	command_cpu_wide(*state, SCOPE_CPU, "cpu scope");
}

static void test_command_cgroup_scope(void **state)
{
	command_cpu_wide(*state, SCOPE_CGROUP, "cgroup scope");
}

/*
 * The control: the PT event's records can't reach ptbpf (its ring has no
 * room, as one of no data pages): the attach window's instructions have no
 * thread, and perf says so with errors. So the tests above can fail.
 */
static void test_control_records_dropped(void **state)
{
	struct ptfix *f = *state;
	unsigned int insns, errors, foreign;

	sim_pmu_drop_records(f->sim, true);
	start_on_cpu(f, SCOPE_PROCESS);
	emit_path(f, 0, &ptgen_branches_a, 2000000);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 1);
	perf_counts(f, 1, &insns, &errors, &foreign);
	print_message("figures: snapshot 1 (stop, records dropped): %u instructions, %u decoder "
		      "errors\n",
		      insns, errors);
	assert_true(errors > 0);
	assert_true(dump_unknown(f, 1) > 0);
}

/*
 * The AUX flags of the kernel's PERF_RECORD_AUX are facts of the
 * snapshot's core: ptbpf.json and ptbpf-dump's summary say that the
 * trace of CPU 0 was truncated and collided inside the window.
 */
static void test_aux_flags_facts(void **state)
{
	struct ptfix *f = *state;
	char cmd[512], *out;

	start_on_cpu(f, SCOPE_PROCESS);
	emit_path(f, 0, &ptgen_branches_a, 2000000);
	sim_pmu_aux_flags(f->sim, 0, PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_COLLISION);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 1);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); "
		 "print([(c[\"cpu\"], c[\"aux\"]) for c in d[\"cores\"]])' "
		 "%s/snapshot-000001/ptbpf.json",
		 f->out);
	out = run_cmd(cmd);
	assert_string_equal(out, "[(0, {'truncated': 1, 'collision': 1, 'partial': 0, "
				 "'records_lost': 0}), (1, {'truncated': 0, 'collision': 0, "
				 "'partial': 0, 'records_lost': 0})]\n");
	free(out);
	snprintf(cmd, sizeof(cmd), "./ptbpf-dump %s/snapshot-000001 2>&1", f->out);
	out = run_cmd(cmd);
	print_message("summary:\n%s", out);
	assert_non_null(strstr(out, "cpu 0: PT data lost in the window: truncated 1 time, "
				    "collision 1 time"));
	assert_null(strstr(out, "cpu 1: PT data lost"));
	free(out);
}

/* ptbpf.json's "aux" facts of CPU 0 in snapshot @id, as Python prints them. */
static char *aux_facts(struct ptfix *f, int id)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); "
		 "print([c[\"aux\"] for c in d[\"cores\"] if c[\"cpu\"] == 0][0])' "
		 "%s/snapshot-%06d/ptbpf.json",
		 f->out, id);
	return run_cmd(cmd);
}

/* events.jsonl's pt_records_lost of snapshot @id. */
static unsigned long events_pt_lost(struct ptfix *f, int id)
{
	char cmd[512], *out;
	unsigned long n;

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json, sys; print([e[\"pt_records_lost\"] for e in "
		 "map(json.loads, open(sys.argv[1])) if e[\"event\"] == \"snapshot\" and "
		 "e[\"snapshot\"] == %d][0])' %s/events.jsonl",
		 id, f->out);
	out = run_cmd(cmd);
	assert_int_equal(sscanf(out, "%lu", &n), 1);
	free(out);
	return n;
}

/*
 * The kernel's AUX record in overwrite mode gives the whole AUX area as
 * its size (pt_event_stop()), not the bytes of the session: a window whose
 * record has flags (kept for perf.data) still decodes whole, perf reads
 * that record as the kernel wrote it, and the facts count its flags.
 */
static void test_aux_record_whole_area(void **state)
{
	struct ptfix *f = *state;
	char cmd[512], want[96], *out;

	start_on_cpu(f, SCOPE_PROCESS);
	emit_path(f, 0, &ptgen_branches_a, 2000000);
	sim_pmu_aux_flags(f->sim, 0, PERF_AUX_FLAG_COLLISION | PERF_AUX_FLAG_PARTIAL);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	ptfix_event(f, PTBPF_EV_STOP);
	ptfix_drain(f, 1);
	check_window(f, 1, "stop, AUX record of the whole area", ptgen_branches_a.n);
	assert_int_equal(f->bad, 0);
	snprintf(cmd, sizeof(cmd),
		 "perf script -D -i %s/snapshot-000001/perf.data 2>&1 | grep 'PERF_RECORD_AUX '",
		 f->out);
	out = run_cmd(cmd);
	print_message("perf: %s", out);
	snprintf(want, sizeof(want), "size: %#x flags: %#x", (unsigned int)BUF,
		 PERF_AUX_FLAG_OVERWRITE | PERF_AUX_FLAG_COLLISION | PERF_AUX_FLAG_PARTIAL);
	assert_non_null(strstr(out, want));
	free(out);
	out = aux_facts(f, 1);
	assert_string_equal(out, "{'truncated': 0, 'collision': 1, 'partial': 1, "
				 "'records_lost': 0}\n");
	free(out);
}

/*
 * @n sessions of this thread on CPU 0 (in, 100 bytes, out), each of which
 * has the kernel write a PERF_RECORD_AUX; session @flagged's carries
 * TRUNCATED. @drain_every: the run's drain, every so many sessions (as
 * main.c's tick every CORES_DRAIN_NS); 0: none.
 */
static void many_sessions(struct ptfix *f, unsigned int n, unsigned int flagged,
			  unsigned int drain_every)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
		assert_int_equal(sim_pmu_tick(f->sim, 0, 100), 100);
		if (i == flagged)
			sim_pmu_aux_flags(f->sim, 0, PERF_AUX_FLAG_TRUNCATED);
		assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
		if (drain_every && i % drain_every == drain_every - 1)
			assert_int_equal(cores_drain_records(f->cores), 0);
	}
}

/*
 * A window with more switch-outs than the PT records ring holds (1,023
 * AUX records of 64 bytes after the ITRACE_START): drained as the run
 * does, no record is lost, and the TRUNCATED flag of a late session is a
 * fact of the snapshot. The same run without the drain (the control):
 * the kernel dropped that AUX record with the others past the ring's
 * room, so the flag is gone, and the next window says the loss
 * (records_lost, pt_records_lost) once the kernel's LOST record comes.
 */
static void test_records_drained_between_reads(void **state)
{
	struct ptfix *f = *state;
	char *out;

	start(f, SCOPE_PROCESS);
	many_sessions(f, 1500, 1400, 100);
	control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
	ptfix_wait_written(f, 1);
	ptfix_drain(f, 1);
	out = aux_facts(f, 1);
	print_message("figures: 1500 switch-outs, drained: %s", out);
	assert_string_equal(out, "{'truncated': 1, 'collision': 0, 'partial': 0, "
				 "'records_lost': 0}\n");
	free(out);
	assert_int_equal(events_pt_lost(f, 1), 0);
}

static void test_control_records_not_drained(void **state)
{
	struct ptfix *f = *state;
	char *out;

	start(f, SCOPE_PROCESS);
	many_sessions(f, 1500, 1400, 0);
	control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
	ptfix_wait_written(f, 1);
	many_sessions(f, 1, 1, 0);
	control_snapshot_now(&f->ctl, SNAPCAUSE_REQUESTED);
	ptfix_wait_written(f, 2);
	ptfix_drain(f, 2);
	out = aux_facts(f, 1);
	print_message("figures: 1500 switch-outs, not drained: %s", out);
	assert_non_null(strstr(out, "'truncated': 0,"));
	free(out);
	out = aux_facts(f, 2);
	print_message("figures: the next window: %s", out);
	assert_null(strstr(out, "'records_lost': 0}"));
	free(out);
	assert_true(events_pt_lost(f, 2) > 0);
}

/*
 * The memory plan counts the PT records ring: each CPU maps its AUX area
 * (64 KiB), 16 pages of PT records, the switch ring (16 KiB) and two
 * metadata pages. A limit that leaves out the records ring is refused.
 */
static void test_plan_counts_records_ring(void **state)
{
	struct ptfix *f = *state;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct cores_config cc;
	__u64 without = NCPU * (BUF + (16 << 10) + 2 * pg);
	struct cores *c;

	cores_config_init(&cc);
	cc.buffer_size = BUF;
	cc.sideband_size = 16 << 10;
	cc.sysfs_root = f->root;
	cc.backend = BACKEND_INTEL_PT;
	cc.scope = SCOPE_CPU;
	cc.total_limit = without + NCPU * 16 * pg - 1;
	c = cores_open(&cc, sim_pmu_ops(f->sim), f->err, sizeof(f->err));
	assert_null(c);
	assert_non_null(strstr(f->err, "buffers of 2 cores need"));
	cc.total_limit = without + NCPU * 16 * pg;
	c = cores_open(&cc, sim_pmu_ops(f->sim), f->err, sizeof(f->err));
	if (!c)
		fail_msg("cores_open: %s", f->err);
	cores_close(c);
}

/*
 * The next record of a forward ring of @size bytes at *@off, copied out
 * of the ring (a record may wrap round its end) into @buf.
 */
static const struct perf_event_header *next_rec(const __u8 *ring, size_t size, __u64 *off,
						__u8 *buf)
{
	struct perf_event_header *h = (void *)buf;
	size_t i;

	for (i = 0; i < sizeof(*h); i++)
		buf[i] = ring[(*off + i) % size];
	assert_true(h->size >= sizeof(*h) && h->size <= 256);
	for (i = 0; i < h->size; i++)
		buf[i] = ring[(*off + i) % size];
	*off += h->size;
	return h;
}

/*
 * The simulated PMU keeps the kernel's rules for the PT event's own ring
 * (perf_log_itrace_start(), pt_event_stop() -> perf_aux_output_end(),
 * __perf_output_begin()), driven directly: ITRACE_START once, at the
 * event's first schedule-in with its AUX area mapped, never again; an AUX
 * record at each switch-out, whatever the session wrote (none too): its
 * offset the new aux_head, the hardware's position in the AUX area, its
 * size the whole area's (overwrite mode), its flags OVERWRITE; a writable
 * ring keeps a byte free, drops the records that don't fit and counts
 * them, and the first record that fits once the reader moved data_tail
 * is a LOST of that count.
 */
static void test_sim_records_kernel_rules(void **state)
{
	struct ptfix *f = *state;
	const struct perf_sys_ops *ops = sim_pmu_ops(f->sim);
	size_t pg_size = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PT_TYPE,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU,
		.disabled = 1,
	};
	const struct perf_event_header *h;
	struct perf_event_mmap_page *pg;
	void *base, *aux;
	__u64 v[3], off = 0, head;
	__u32 who[2];
	__u8 *ring, rec[256];
	int fd, i;

	fd = ops->open(ops->ctx, &a, (pid_t)f->tid, 0, -1, 0);
	assert_true(fd >= 0);
	assert_int_equal(ops->mmap(ops->ctx, fd, 2 * pg_size, PROT_READ | PROT_WRITE, 0, &base), 0);
	pg = base;
	ring = (__u8 *)base + pg_size;
	pg->aux_offset = 2 * pg_size;
	pg->aux_size = 4 * pg_size;
	assert_int_equal(ops->mmap(ops->ctx, fd, 4 * pg_size, PROT_READ, 2 * pg_size, &aux), 0);
	assert_int_equal(ops->ioctl(ops->ctx, fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	/* 48 + 63 * 64 bytes fill the page but for 16: 7 AUX records find no room */
	for (i = 0; i < 70; i++) {
		assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
		assert_int_equal(sim_pmu_tick(f->sim, 0, 100), 100);
		assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	}
	head = pg->data_head;
	assert_int_equal(head, 48 + 63 * 64);
	h = next_rec(ring, pg_size, &off, rec);
	assert_int_equal(h->type, PERF_RECORD_ITRACE_START);
	assert_int_equal(h->size, 48);
	memcpy(who, h + 1, sizeof(who));
	assert_int_equal(who[0], f->pid);
	assert_int_equal(who[1], f->tid);
	for (i = 1; off < head; i++) {
		h = next_rec(ring, pg_size, &off, rec);
		assert_int_equal(h->type, PERF_RECORD_AUX);
		memcpy(v, h + 1, sizeof(v));
		assert_int_equal(v[0], i * 100); /* aux_head after the i-th stop */
		assert_int_equal(v[1], 4 * pg_size); /* the whole area, not 100 */
		assert_int_equal(v[2], PERF_AUX_FLAG_OVERWRITE);
	}
	assert_int_equal(pg->aux_head, 7000);
	/* read: room again; the next switch-out's AUX follows a LOST of 7 */
	pg->data_tail = head;
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	assert_int_equal(sim_pmu_tick(f->sim, 0, 100), 100);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	off = head;
	h = next_rec(ring, pg_size, &off, rec);
	assert_int_equal(h->type, PERF_RECORD_LOST);
	memcpy(v, h + 1, 2 * sizeof(v[0]));
	assert_int_equal(v[1], 7);
	h = next_rec(ring, pg_size, &off, rec);
	assert_int_equal(h->type, PERF_RECORD_AUX);
	memcpy(v, h + 1, sizeof(v));
	assert_int_equal(v[0], 7100);
	assert_int_equal(v[1], 4 * pg_size);
	assert_int_equal(off, pg->data_head);
	/* a session of no bytes ends with an AUX record all the same */
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	h = next_rec(ring, pg_size, &off, rec);
	assert_int_equal(h->type, PERF_RECORD_AUX);
	memcpy(v, h + 1, sizeof(v));
	assert_int_equal(v[0], 7100);
	assert_int_equal(v[1], 4 * pg_size);
	assert_int_equal(v[2], PERF_AUX_FLAG_OVERWRITE);
	assert_int_equal(off, pg->data_head);
	assert_int_equal(pg->aux_head, 7100);
	assert_int_equal(ops->munmap(ops->ctx, aux, 4 * pg_size), 0);
	assert_int_equal(ops->munmap(ops->ctx, base, 2 * pg_size), 0);
	assert_int_equal(ops->close(ops->ctx, fd), 0);
}

/* The ITRACE_STARTs of forward ring @ring from *@off to @head: their tids. */
static unsigned int itrace_tids(const __u8 *ring, size_t size, __u64 *off, __u64 head, __u32 *tids,
				unsigned int max)
{
	const struct perf_event_header *h;
	unsigned int n = 0;
	__u8 rec[256];
	__u32 who[2];

	while (*off < head) {
		h = next_rec(ring, size, off, rec);
		if (h->type != PERF_RECORD_ITRACE_START)
			continue;
		assert_true(n < max);
		memcpy(who, h + 1, sizeof(who));
		tids[n++] = who[1];
	}
	return n;
}

/*
 * perf_log_itrace_start() writes an ITRACE_START at each schedule-in until
 * PT of the event it checks first started: while no AUX area is mapped PT
 * can't start (pt_event_start()), so every schedule-in writes one; the
 * first with the AUX area starts PT (pt_config() sets PERF_ATTACH_ITRACE),
 * and no other follows. An inherited event checks its parent's: a thread
 * whose parent event never started writes one at each of its
 * schedule-ins, though its own PT started.
 */
static void test_sim_itrace_start_rules(void **state)
{
	struct ptfix *f = *state;
	const struct perf_sys_ops *ops = sim_pmu_ops(f->sim);
	size_t pg_size = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PT_TYPE,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU,
		.disabled = 1,
		.inherit = 1,
	};
	struct perf_event_mmap_page *pg;
	void *base, *aux;
	__u64 off = 0;
	__u32 tids[8];
	__u8 *ring;
	int fd, i;

	fd = ops->open(ops->ctx, &a, (pid_t)f->tid, 0, -1, 0);
	assert_true(fd >= 0);
	assert_int_equal(ops->mmap(ops->ctx, fd, 2 * pg_size, PROT_READ | PROT_WRITE, 0, &base), 0);
	pg = base;
	ring = (__u8 *)base + pg_size;
	assert_int_equal(ops->ioctl(ops->ctx, fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	/* no AUX area: PT never starts, each schedule-in says it would */
	for (i = 0; i < 3; i++) {
		assert_int_equal(sim_pmu_sched_in(f->sim, 0, f->tid), 0);
		assert_int_equal(sim_pmu_tick(f->sim, 0, 100), -ENOENT);
		assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	}
	assert_int_equal(itrace_tids(ring, pg_size, &off, pg->data_head, tids, 8), 3);
	assert_int_equal(pg->data_head, 3 * 48); /* and no AUX record */
	/* a thread cloned now: its event checks the parent's, not started */
	assert_int_equal(sim_pmu_clone(f->sim, f->tid, 900, true), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(sim_pmu_sched_in(f->sim, 0, 900), 0);
		assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	}
	assert_int_equal(itrace_tids(ring, pg_size, &off, pg->data_head, tids, 8), 2);
	assert_int_equal(tids[0], 900);
	assert_int_equal(tids[1], 900);
	pg->aux_offset = 2 * pg_size;
	pg->aux_size = 4 * pg_size;
	assert_int_equal(ops->mmap(ops->ctx, fd, 4 * pg_size, PROT_READ, 2 * pg_size, &aux), 0);
	/* the AUX area: the thread's PT starts, but it checks the parent's */
	for (i = 0; i < 2; i++) {
		assert_int_equal(sim_pmu_sched_in(f->sim, 0, 900), 0);
		assert_int_equal(sim_pmu_tick(f->sim, 0, 100), 100);
		assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	}
	assert_int_equal(itrace_tids(ring, pg_size, &off, pg->data_head, tids, 8), 2);
	assert_int_equal(tids[1], 900);
	/* the first start of the parent's event writes the last one */
	for (i = 0; i < 3; i++) {
		assert_int_equal(sim_pmu_sched_in(f->sim, 0, i == 1 ? 900 : f->tid), 0);
		assert_int_equal(sim_pmu_tick(f->sim, 0, 100), 100);
		assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	}
	assert_int_equal(itrace_tids(ring, pg_size, &off, pg->data_head, tids, 8), 1);
	assert_int_equal(tids[0], f->tid);
	assert_int_equal(sim_pmu_exit(f->sim, 900), 0);
	assert_int_equal(ops->munmap(ops->ctx, aux, 4 * pg_size), 0);
	assert_int_equal(ops->munmap(ops->ctx, base, 2 * pg_size), 0);
	assert_int_equal(ops->close(ops->ctx, fd), 0);
}

static int setup(void **state)
{
	return ptfix_setup(state, "win", "test_pt_windows", true);
}

#define T(t) cmocka_unit_test_setup_teardown(t, setup, ptfix_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_attach_on_cpu_stop),
		T(test_requested_then_stop),
		T(test_end_while_running),
		T(test_wrapped_window),
		T(test_cpu_scope_windows),
		T(test_cgroup_scope_windows),
		T(test_fatal_while_on_cpu),
		T(test_command_exec_on_cpu),
		T(test_full_windows),
		T(test_hit_windows),
		T(test_hit_cut_windows),
		T(test_follow_windows),
		T(test_command_cpu_scope),
		T(test_command_cgroup_scope),
		T(test_control_records_dropped),
		T(test_aux_flags_facts),
		T(test_aux_record_whole_area),
		T(test_sim_records_kernel_rules),
		T(test_sim_itrace_start_rules),
		T(test_records_drained_between_reads),
		T(test_control_records_not_drained),
		T(test_plan_counts_records_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
