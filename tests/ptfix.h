/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of the intel-pt pipeline tests (test_pt_pipeline.c,
 * test_pt_windows.c): the simulated machine with its intel_pt PMU in a
 * fake sysfs, this process as the target (this thread and a named helper
 * thread), and ptbpf's real collection (cores.c), snapshot writer
 * (snapwire.h: snapqueue.c, snapstage.c) and controller (control.c) wired as main.c wires them
 * (ctlops.c), writing into a temporary directory.
 */
#ifndef PTBPF_TESTS_PTFIX_H
#define PTBPF_TESTS_PTFIX_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>

#include "control/control.h"
#include "collect/cores.h"
#include "control/ctlops.h"
#include "output/eventlog.h"
#include "ptbpf.h"
#include "collect/scope.h"
#include "sim_pmu.h"
#include "snapwire.h"

#define NCPU 2
#define PT_TYPE 8
/* an unrelated process (above the default pid_max: no real one) */
#define OTHER_PID 4190000u
#define BUF (64UL << 10)
/*
 * sim_pmu's mmap page converts TSC to perf time as time_zero 123456789,
 * mult 1 << 20, shift 21: perf time = 123456789 + TSC / 2 (TSC < 2^21).
 */
#define PERF_TIME(tsc) (123456789ULL + (tsc) / 2)

struct ptfix {
	char root[64], out[64];
	struct sim_pmu *sim;
	struct cores *cores;
	struct snapwire w; /* the writer, as main.c wires it */
	struct snap_run run;
	struct eventlog log;
	struct control ctl;
	struct ctlops hands; /* as main.c wires them */
	int outfd;
	__u32 pid, tid, tid2; /* this process, this thread, the helper */
	pthread_t helper;
	int helper_pipe[2];
	char comm[16]; /* the target's name in its events */
	char err[512];
	/* the run, as its options make it; set before ptfix_start() */
	bool full; /* --full: whole buffers */
	bool follow; /* --follow: forks inherit the events */
	bool on_exec; /* -- COMMAND: armed with enable_on_exec */
	int cgroup_fd; /* cgroup scope: any descriptor (the sim takes it) */
	const char *proc_root; /* the writer's /proc; NULL: the real one */
	/* --trigger-on points for the PT groups; none when nr_points is 0 */
	struct hitpoint points[1];
	unsigned int nr_points;
	/* the test's own */
	unsigned int bad; /* windows found wrong */
	__u32 tid3; /* --follow: a forked process's thread; 0: none */
};

/*
 * cmocka setup: the directories /tmp/ptbpf-test-@tag-* and
 * /tmp/ptbpf-test-@tag-out-*, the helper thread "@tag-helper", @comm the
 * target's name; @tasks: the two threads are the sim's tasks already.
 * Teardown: the sim must have no descriptor or mapping left; the output
 * stays with PTBPF_TEST_KEEP=1.
 */
int ptfix_setup(void **state, const char *tag, const char *comm, bool tasks);
int ptfix_teardown(void **state);

/* CLOCK_MONOTONIC in ns, as the BPF program stamps its events. */
__u64 ptfix_now(void);

/*
 * The cores over the sim in @scope, the writer and the controller with
 * @triggers; the target in @state when the run starts (running, or held
 * stopped as --wait-for holds it). Process scope binds the events to this
 * thread and the helper. Collection starts paused and is on once started
 * (unless armed on exec).
 */
void ptfix_start(struct ptfix *f, enum ptbpf_scope scope, int state, unsigned int triggers);

/*
 * The BPF program's word about this thread: it stopped (SIGSTOP), runs
 * again (SIGCONT), died of a fatal signal (SIGSEGV)...
 */
void ptfix_event(struct ptfix *f, enum ptbpf_event_kind kind);

/* A --trigger-on hit of this thread at @ip, as the BPF uprobe sends it. */
void ptfix_hit(struct ptfix *f, __u64 ip);

/* The writer has written @n snapshots (events.jsonl says so). */
void ptfix_wait_written(struct ptfix *f, unsigned int n);

/* Writes everything queued and stops the writer (@written snapshots in
 * all): the files are final. */
void ptfix_drain(struct ptfix *f, unsigned long written);

#endif /* PTBPF_TESTS_PTFIX_H */
