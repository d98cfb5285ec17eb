/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --follow: the processes the target creates (fork, vfork, clone without
 * CLONE_THREAD), and theirs, each tracked as the target is: its own
 * control (control.h), so its transitions keep their own order, its stops
 * and faults are snapshots that name it, and its events.jsonl lines carry
 * its pid. The collection is shared: every member's control drives it
 * through this group, which pauses the cores only when no member wants
 * them running and says "off CPU" only when no member can run. Knows
 * nothing of BPF or perf: the BPF side's state comes through follow_probe.
 */
#ifndef PTBPF_FOLLOW_H
#define PTBPF_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "control.h"

struct follow;

/* One followed process (or the target) as the group sees it. */
struct follow_member {
	struct follow *f;
	struct control *ctl; /* the target's: the caller's; others: owned */
	pid_t pid;
	bool on; /* its control wants the collection running */
	bool off; /* none of its threads can run */
};

/* What the group asks of the BPF side (watch.h), and of the snapshots. */
struct follow_probe {
	/* process @pid's state (enum ptbpf_proc_state) and last seq */
	int (*state)(void *ctx, pid_t pid, uint64_t *seq);
	/* process @pid took a fatal signal with its default action */
	bool (*dying)(void *ctx, pid_t pid);
	/* @pid joined the run (@gone false) or left it: for the snapshots */
	void (*member)(void *ctx, pid_t pid, bool gone);
	/*
	 * Optional: the processes the BPF side follows, up to @max into
	 * @pids; returns how many (a fork whose event was lost is there).
	 */
	int (*list)(void *ctx, pid_t *pids, int max);
	void *ctx;
};

struct follow {
	const struct control_ops *ops; /* the real collection */
	void *ops_ctx;
	struct follow_probe probe;
	struct follow_member root;
	struct follow_member **kids;
	unsigned int nr_kids, cap_kids;
	unsigned int nr_on; /* members that want the cores running */
	unsigned int nr_can_run; /* members with a thread that can run */
	bool real_on, real_off;
	bool root_gone;
	uint64_t joined, left; /* processes, over the run */
	/* what a new member's control is set up with: the target's */
	struct control *tmpl;
};

/*
 * Sets up the group over the real collection @ops/@ops_ctx. The target's
 * control must then be set up with follow_ops() and follow_root(f) as its
 * ops and context (control_init), and registered with follow_start().
 */
void follow_init(struct follow *f, const struct control_ops *ops, void *ops_ctx,
		 const struct follow_probe *probe);

/* The ops every member's control drives the group with. */
const struct control_ops *follow_ops(void);

/* The context of the target's control. */
void *follow_root(struct follow *f);

/*
 * The target's control, after control_init() and control_set_scope():
 * members that join get its triggers, verbosity, scope and --min-interval.
 */
void follow_start(struct follow *f, struct control *root, pid_t pid);

/*
 * One BPF event of any followed process (@e->tgid): a fork makes the new
 * process a member; each event goes to its process's control; a process
 * whose exit is applied leaves (its last folded stop gets its snapshot).
 * Events of a process that is no member (one that left) are dropped.
 */
void follow_event(struct follow *f, const struct ptbpf_event *e, uint64_t recv_ns);

/*
 * --unit: process @pid was in the traced cgroup before the run began (the
 * BPF side counts it, watch_adopt()): a member from now on, in @state
 * (PTBPF_PROC_RUNNING or _STOPPED). Returns 0 or -ENOMEM.
 */
int follow_adopt(struct follow *f, pid_t pid, int state);

/* Processes of the run not yet gone, the target included. */
unsigned int follow_live(const struct follow *f);

/*
 * The followed processes not yet gone, the target not included: up to
 * @max of them into @pids. Returns how many there are (maybe more than
 * @max).
 */
unsigned int follow_others(const struct follow *f, pid_t *pids, unsigned int max);

/* The target is gone (its pidfd said so), whatever its events said. */
void follow_root_gone(struct follow *f);

/*
 * Timed work of the other members: their given-up gaps (the BPF side's
 * state rules), fatal pauses they did not die of. Returns the next time to
 * call (CLOCK_MONOTONIC ns) or 0.
 */
uint64_t follow_timers(struct follow *f, uint64_t now);

/*
 * Events were lost: every other member is brought in line with BPF's
 * state, and a process the BPF side follows whose fork event was lost
 * becomes a member.
 */
void follow_resync(struct follow *f);

/* The earliest folded stop's snapshot due among the other members, or 0. */
uint64_t follow_deadline(const struct follow *f);

/* Takes the other members' folded snapshots due at @now. */
void follow_tick(struct follow *f, uint64_t now);

/* The end: the cores are paused, whoever still runs. */
void follow_finish(struct follow *f);

/* Releases the members' controls. */
void follow_free(struct follow *f);

#endif /* PTBPF_FOLLOW_H */
