// SPDX-License-Identifier: GPL-2.0
/*
 * follow.c: one control per process over one collection, driven with
 * made-up BPF events and fake collection ops that record what they were
 * asked to do, and a fake BPF side (follow_probe) whose states the test
 * sets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "control/follow.h"

#define ROOT 100

struct fake {
	char calls[512]; /* "P R O1 O0 S(stop:101) +101 -101" in order */
	int state[1024]; /* the fake BPF side's state of pid N */
	uint64_t seq[1024];
	int off; /* the last offcpu said, -1: none yet */
	pid_t listed[8]; /* what the fake BPF map holds */
	int nr_listed;
};

static void note(struct fake *f, const char *s)
{
	size_t len = strlen(f->calls);

	snprintf(f->calls + len, sizeof(f->calls) - len, "%s%s", len ? " " : "", s);
}

static int fake_pause(void *ctx, uint64_t *done)
{
	note(ctx, "P");
	*done = 1;
	return 0;
}

static int fake_resume(void *ctx, uint64_t *done)
{
	note(ctx, "R");
	*done = 1;
	return 0;
}

static int fake_snapshot(void *ctx, const struct snap_cause *cause)
{
	char s[64];

	snprintf(s, sizeof(s), "S(%s:%u)", snapcause_name(cause->kind), cause->pid);
	note(ctx, s);
	return 0;
}

static void fake_offcpu(void *ctx, bool off)
{
	struct fake *f = ctx;

	/* only the changes: the group says it at every member's change */
	if (f->off == (int)off)
		return;
	f->off = off;
	note(ctx, off ? "O1" : "O0");
}

static const struct control_ops ops = {
	.pause = fake_pause,
	.resume = fake_resume,
	.snapshot = fake_snapshot,
	.offcpu = fake_offcpu,
};

static int probe_state(void *ctx, pid_t pid, uint64_t *seq)
{
	struct fake *f = ctx;

	if (seq)
		*seq = f->seq[pid];
	return f->state[pid];
}

static bool probe_dying(void *ctx, pid_t pid)
{
	return false;
}

static int probe_list(void *ctx, pid_t *pids, int max)
{
	struct fake *f = ctx;
	int i;

	for (i = 0; i < f->nr_listed && i < max; i++)
		pids[i] = f->listed[i];
	return i;
}

static void probe_member(void *ctx, pid_t pid, bool gone)
{
	char s[32];

	snprintf(s, sizeof(s), "%c%d", gone ? '-' : '+', pid);
	note(ctx, s);
}

struct fx {
	struct fake fake;
	struct eventlog log;
	struct control root;
	struct follow f;
	char dir[64];
};

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	int dfd;

	snprintf(x->dir, sizeof(x->dir), "/tmp/ptbpf-test-XXXXXX");
	if (!x || !mkdtemp(x->dir))
		return -1;
	dfd = open(x->dir, O_RDONLY | O_DIRECTORY);
	if (eventlog_open(&x->log, dfd, -1, -1))
		return -1;
	close(dfd);
	x->fake.off = -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	char path[128];

	follow_free(&x->f);
	eventlog_close(&x->log);
	snprintf(path, sizeof(path), "%s/events.jsonl", x->dir);
	unlink(path);
	rmdir(x->dir);
	free(x);
	return 0;
}

/* The target's control in @scope's terms (@kernel_cut: process scope). */
static void start(struct fx *x, bool kernel_cut)
{
	struct follow_probe probe = {
		.state = probe_state,
		.dying = probe_dying,
		.member = probe_member,
		.list = probe_list,
		.ctx = &x->fake,
	};

	follow_init(&x->f, &ops, &x->fake, &probe);
	control_init(&x->root, &x->log, ROOT, TRIGGER_STOP | TRIGGER_FATAL | TRIGGER_EXIT, false,
		     -1, follow_ops(), follow_root(&x->f));
	control_set_scope(&x->root, kernel_cut ? "process" : "cpu", "", kernel_cut);
	follow_start(&x->f, &x->root, ROOT);
	control_start(&x->root, PTBPF_PROC_RUNNING, "sample", 4096, NULL);
}

/* One BPF event of process @pid. */
static void ev(struct fx *x, pid_t pid, enum ptbpf_event_kind kind, uint64_t seq)
{
	struct ptbpf_event e;

	memset(&e, 0, sizeof(e));
	e.ts = 1000 + seq;
	e.kind = kind;
	e.tgid = (__u32)pid;
	e.tid = (__u32)pid;
	e.seq = seq;
	e.ppid = ROOT;
	e.sig = kind == PTBPF_EV_STOP ? SIGSTOP : 0;
	follow_event(&x->f, &e, 2000 + seq);
}

/* The calls since the last look, then forgotten. */
static void expect(struct fx *x, const char *want)
{
	assert_string_equal(x->fake.calls, want);
	x->fake.calls[0] = '\0';
}

/*
 * cpu scope: a worker's stop is its own snapshot, and the cores pause
 * only when every process is stopped; the first to run resumes them.
 */
static void test_pause_when_all_stopped(void **state)
{
	struct fx *x = *state;

	start(x, false);
	expect(x, "O0 R");
	ev(x, 101, PTBPF_EV_FORK, 0);
	ev(x, 102, PTBPF_EV_FORK, 0);
	expect(x, "+101 +102");
	assert_int_equal(follow_live(&x->f), 3);
	ev(x, 101, PTBPF_EV_STOP, 1);
	expect(x, "S(stop:101)");
	ev(x, ROOT, PTBPF_EV_STOP, 1);
	expect(x, "S(stop:100)");
	ev(x, 102, PTBPF_EV_STOP, 1);
	/* the last one: the cores pause, and nothing can run */
	expect(x, "O1 P S(stop:102)");
	ev(x, 101, PTBPF_EV_RUN, 2);
	expect(x, "O0 R");
}

/*
 * Each process orders its own transitions: a worker's seq 2 before its
 * seq 1 waits for it, whatever the target's seqs are.
 */
static void test_own_order(void **state)
{
	struct fx *x = *state;

	start(x, true);
	expect(x, "O0 R");
	ev(x, 101, PTBPF_EV_FORK, 0);
	ev(x, ROOT, PTBPF_EV_STOP, 1);
	expect(x, "+101 S(stop:100)");
	ev(x, 101, PTBPF_EV_RUN, 2); /* its stop (1) is still on its way */
	expect(x, "");
	ev(x, 101, PTBPF_EV_STOP, 1);
	/* both stopped for a moment (nothing can run), then its run */
	expect(x, "O1 S(stop:101) O0");
	assert_int_equal(x->f.kids[0]->ctl->target, PTBPF_PROC_RUNNING);
}

/*
 * The run lives while any process does: the target's exit leaves its
 * workers; a worker's exit is its snapshot and it leaves the group;
 * events of a process that left are dropped.
 */
static void test_exits(void **state)
{
	struct fx *x = *state;

	start(x, true);
	ev(x, 101, PTBPF_EV_FORK, 0);
	x->fake.calls[0] = '\0';
	ev(x, ROOT, PTBPF_EV_EXIT, 1);
	assert_int_equal(follow_live(&x->f), 1);
	expect(x, "S(exit:100)");
	ev(x, 101, PTBPF_EV_EXIT, 1);
	/*
	 * nothing runs now: off, its snapshot (process scope: the kernel
	 * cut already), the cores paused, the snapshots' list says gone
	 */
	expect(x, "O1 S(exit:101) P -101");
	assert_int_equal(follow_live(&x->f), 0);
	ev(x, 101, PTBPF_EV_STOP, 2);
	expect(x, "");
	assert_int_equal(x->f.joined, 1);
	assert_int_equal(x->f.left, 1);
}

/* A followed process's exit: @sig is what killed it (0: exit()). */
static void exit_ev(struct fx *x, pid_t pid, int sig, uint64_t seq)
{
	struct ptbpf_event e;

	memset(&e, 0, sizeof(e));
	e.ts = 1000 + seq;
	e.kind = PTBPF_EV_EXIT;
	e.tgid = (__u32)pid;
	e.tid = (__u32)pid;
	e.seq = seq;
	e.sig = sig;
	e.exit_code = sig ? sig : 3 << 8;
	follow_event(&x->f, &e, 2000 + seq);
}

/*
 * A fork-per-request server: a child's exit() (any code) is no snapshot,
 * a child killed by a signal still gets one; child-exit brings back one
 * per exit.
 */
static void test_quiet_exits(void **state)
{
	struct fx *x = *state;

	start(x, false);
	ev(x, 101, PTBPF_EV_FORK, 0);
	ev(x, 102, PTBPF_EV_FORK, 0);
	x->fake.calls[0] = '\0';
	exit_ev(x, 101, 0, 1);
	expect(x, "-101");
	exit_ev(x, 102, SIGSEGV, 1);
	expect(x, "S(exit:102) -102");
	x->root.triggers |= TRIGGER_CHILD_EXIT;
	ev(x, 103, PTBPF_EV_FORK, 0);
	x->fake.calls[0] = '\0';
	exit_ev(x, 103, 0, 1);
	expect(x, "S(exit:103) -103");
}

/*
 * Lost events: every worker takes its state from the BPF side; one gone
 * from the BPF map has exited and leaves.
 */
static void test_resync(void **state)
{
	struct fx *x = *state;

	start(x, true);
	ev(x, 101, PTBPF_EV_FORK, 0);
	ev(x, 102, PTBPF_EV_FORK, 0);
	x->fake.calls[0] = '\0';
	x->fake.state[101] = PTBPF_PROC_STOPPED;
	x->fake.seq[101] = 5;
	x->fake.state[102] = PTBPF_PROC_EXITED;
	follow_resync(&x->f);
	/* 102 first (backwards), then 101's lost stop, still a snapshot */
	expect(x, "-102 S(stop:101)");
	assert_int_equal(follow_live(&x->f), 2);
	assert_int_equal(x->f.kids[0]->ctl->seq, 5);
}

/* A fork whose event was lost: the BPF map has it, it joins at resync. */
static void test_lost_fork(void **state)
{
	struct fx *x = *state;

	start(x, true);
	ev(x, 101, PTBPF_EV_FORK, 0);
	x->fake.calls[0] = '\0';
	x->fake.listed[0] = 101;
	x->fake.listed[1] = 103;
	x->fake.nr_listed = 2;
	x->fake.state[101] = PTBPF_PROC_RUNNING;
	x->fake.state[103] = PTBPF_PROC_STOPPED;
	x->fake.seq[103] = 1;
	follow_resync(&x->f);
	/* 103 joins, and its stop (lost with its fork) is a snapshot */
	expect(x, "+103 S(stop:103)");
	assert_int_equal(follow_live(&x->f), 3);
	ev(x, 103, PTBPF_EV_RUN, 2);
	assert_int_equal(x->f.kids[1]->ctl->target, PTBPF_PROC_RUNNING);
}

/* --unit: a process there before the run, stopped, joins as it is. */
static void test_adopt(void **state)
{
	struct fx *x = *state;

	start(x, false);
	x->fake.calls[0] = '\0';
	assert_int_equal(follow_adopt(&x->f, 200, PTBPF_PROC_STOPPED), 0);
	expect(x, "+200");
	assert_int_equal(follow_live(&x->f), 2);
	ev(x, 200, PTBPF_EV_RUN, 1);
	expect(x, "");
	ev(x, ROOT, PTBPF_EV_STOP, 1);
	/* 200 runs: the cores stay on */
	expect(x, "S(stop:100)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pause_when_all_stopped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quiet_exits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
