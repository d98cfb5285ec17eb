/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control policy's hands on the real collection: control_ops over the
 * per-core traces (cores.h) and the snapshot stager (snapstage.h), and the
 * one sink for the BPF program's events, which go to the policy
 * (control_event()) and tell the snapshots what they need: an exec maps
 * new libraries (the writer reads /proc again: snapqueue.h), and thread
 * names are kept for snapshots written after a thread exited
 * (proccache.h).
 *
 *	struct ctlops hands = { .ctl = &ctl };
 *	watch = watch_open(pid, follow, verbose, ctlops_event, &hands,
 *			   err, sizeof(err));
 *	hands.watch = watch; hands.cores = cores; hands.stage = stage;
 *	hands.queue = queue; hands.procs = procs;
 *	control_init(&ctl, log, pid, triggers, no_pause, verbosity,
 *		     &ctlops_ops, &hands);
 */
#ifndef PTBPF_CTLOPS_H
#define PTBPF_CTLOPS_H

#include "control.h"
#include "collect/cores.h"
#include "follow.h"
#include "base/ptbpf_types.h"
#include "snapshot/snapstage.h"
#include "watch/watch.h"

struct ctlops {
	struct control *ctl; /* where events go */
	struct cores *cores; /* NULL until they are open */
	/* NULL until the output is ready: the stager, the writer's queue and
	 * its readings of /proc */
	struct snapstage *stage;
	struct snapqueue *queue;
	struct proccache *procs;
	/* --follow: events go to the process's control there; NULL: none */
	struct follow *follow;
	/* the BPF side, for its --trigger-on uprobes; NULL until open */
	struct watch *watch;
};

/* control_ops whose ctx is a struct ctlops. */
extern const struct control_ops ctlops_ops;

/*
 * One event from the BPF program (watch_open()'s callback, @ctx a struct
 * ctlops): to the policy, then to the stager. Returns 0.
 */
int ctlops_event(void *ctx, const struct ptbpf_event *e);

/* watch_crash_cb: a crash record, kept for its fatal snapshot. */
void ctlops_crash(void *ctx, const struct ptbpf_crash *c, size_t len);

#endif /* PTBPF_CTLOPS_H */
