/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The snapshot writer wired as main.c wires it, for the pipeline tests:
 * the readings of /proc (proccache.h), the writer's queue (snapqueue.h)
 * and the stager over the cores (snapstage.h).
 */
#ifndef PTBPF_TESTS_SNAPWIRE_H
#define PTBPF_TESTS_SNAPWIRE_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proc/proccache.h"
#include "snapshot/snapqueue.h"
#include "snapshot/snapstage.h"

struct snapwire {
	struct snapwrite_opts write;
	struct proccache procs;
	struct snapqueue *queue;
	struct snapstage *stage;
};

/*
 * Starts the writer with @write (copied: its dirfd and formats) and @qc
 * (its limits, queue length, verbosity: the rest is set here), reading
 * /proc under @proc_root (NULL: "/proc"), and the stager @sc over @cores.
 * Returns the stager, or NULL with one line in @err.
 */
static inline struct snapstage *
snapwire_start(struct snapwire *w, const struct snapwrite_opts *write,
	       const struct snapstage_config *sc, struct snapqueue_config *qc, struct cores *cores,
	       struct eventlog *log, const char *proc_root, char *err, size_t errlen)
{
	w->write = *write;
	qc->write = &w->write;
	qc->procs = &w->procs;
	qc->pid = sc->run->pid;
	snapstage_layout(cores, qc);
	proccache_init(&w->procs, proc_root, sc->run->pid);
	w->queue = snapqueue_start(qc);
	if (!w->queue) {
		snprintf(err, errlen, "can't set up snapshot staging: %s", strerror(errno));
		return NULL;
	}
	w->stage = snapstage_start(sc, cores, w->queue, log, err, errlen);
	return w->stage;
}

/* Writes what is queued and stops: the number of snapshots written. */
static inline unsigned long snapwire_stop(struct snapwire *w)
{
	unsigned long n;

	snapstage_stop(w->stage);
	n = snapqueue_stop(w->queue);
	proccache_free(&w->procs);
	w->stage = NULL;
	w->queue = NULL;
	return n;
}

#endif /* PTBPF_TESTS_SNAPWIRE_H */
