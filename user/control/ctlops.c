// SPDX-License-Identifier: GPL-2.0
/* control_ops over cores and snapshots; the BPF events' sink (ctlops.h). */
#include "base/clock.h"
#include "ctlops.h"

static int ops_pause(void *ctx, uint64_t *done)
{
	struct ctlops *hands = ctx;
	uint64_t done_ns = 0;
	int ret = cores_pause_all(hands->cores, &done_ns);

	*done = done_ns;
	return ret;
}

static int ops_resume(void *ctx, uint64_t *done)
{
	struct ctlops *hands = ctx;
	uint64_t done_ns = 0;
	int ret = cores_resume_all(hands->cores, &done_ns);

	*done = done_ns;
	return ret;
}

static int ops_snapshot(void *ctx, const struct snap_cause *cause)
{
	struct ctlops *hands = ctx;
	int64_t id = snapstage_stage(hands->stage, cause);

	return id < 0 ? (int)id : 0;
}

static void ops_offcpu(void *ctx, bool off)
{
	struct ctlops *hands = ctx;

	cores_set_offcpu(hands->cores, off);
}

const struct control_ops ctlops_ops = {
	.pause = ops_pause,
	.resume = ops_resume,
	.snapshot = ops_snapshot,
	.offcpu = ops_offcpu,
};

void ctlops_crash(void *ctx, const struct ptbpf_crash *c, size_t len)
{
	struct ctlops *hands = ctx;

	snapstage_crash(hands->stage, c, len);
}

int ctlops_event(void *ctx, const struct ptbpf_event *e)
{
	struct ctlops *hands = ctx;

	if (hands->follow)
		follow_event(hands->follow, e, clock_now_ns());
	else
		control_event(hands->ctl, e, clock_now_ns());
	/*
	 * --trigger-limit reached: no more hits wanted, and a hot function's
	 * would flood the ring faster than the run's end could drain it
	 */
	if (e->kind == PTBPF_EV_HIT && control_end_reason(hands->ctl))
		watch_hitpoints_off(hands->watch);
	/* the loader maps the new image's libraries right after the exec */
	if (e->kind == PTBPF_EV_EXEC)
		snapqueue_refresh_proc(hands->queue);
	/* the target's thread names; a followed process's come from /proc */
	if ((e->kind == PTBPF_EV_EXEC || e->kind == PTBPF_EV_THREAD_START ||
	     e->kind == PTBPF_EV_THREAD_EXIT) &&
	    (!hands->follow || (pid_t)e->tgid == hands->follow->root.pid))
		proccache_note_thread(hands->procs, e->tid, e->comm);
	return 0;
}
